import type { NextFunction, Request, Response } from 'express';
import type { Config } from '../../shared/config';
import { RateLimitedError } from '../../shared/errors';
import { authOf } from './auth';

interface Bucket {
  tokens: number;
  /** When `tokens` was last brought up to date (ms, the clock's). */
  at: number;
}

/**
 * One token bucket per key: `burst` tokens at most, refilled at `ratePerS`
 * per second, one taken per request. In memory, so per process.
 *
 * Bounded: only authenticated keys get a bucket, and past `maxKeys` buckets
 * the full ones (keys idle long enough to have refilled) are dropped, which
 * forgets nothing a full bucket would not give back anyway.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly ratePerS: number,
    private readonly burst: number,
    private readonly now: () => number = () => performance.now(),
    private readonly maxKeys = 100_000,
  ) {
    if (!(ratePerS > 0) || !(burst >= 1)) throw new Error('a token bucket needs a positive rate and a burst of at least 1');
  }

  get size(): number {
    return this.buckets.size;
  }

  /** Takes a token for `key`: 0 if there was one, else the seconds until there will be one (nothing taken). */
  take(key: string): number {
    const now = this.now();
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= this.maxKeys) this.dropFull(now);
      bucket = { tokens: this.burst, at: now };
      this.buckets.set(key, bucket);
    } else {
      bucket.tokens = this.refilled(bucket, now);
      bucket.at = now;
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return (1 - bucket.tokens) / this.ratePerS;
  }

  private refilled(bucket: Bucket, now: number): number {
    return Math.min(this.burst, bucket.tokens + (Math.max(0, now - bucket.at) / 1000) * this.ratePerS);
  }

  private dropFull(now: number): void {
    for (const [key, bucket] of this.buckets) if (this.refilled(bucket, now) >= this.burst) this.buckets.delete(key);
  }
}

/**
 * Per-key rate limit (RATE_LIMIT_PER_KEY_RPS, RATE_LIMIT_PER_KEY_BURST), after
 * `authenticate`: beyond it, 429 in the error shape with `Retry-After` in whole
 * seconds (Permit's SDKs retry on 429 and honour it). A bulk request counts
 * once. Null when the limit is off (the default).
 */
export function rateLimitPerKey(config: Config, now?: () => number) {
  const rate = config.RATE_LIMIT_PER_KEY_RPS;
  if (rate <= 0) return null;
  const burst = config.RATE_LIMIT_PER_KEY_BURST > 0 ? config.RATE_LIMIT_PER_KEY_BURST : Math.max(1, Math.ceil(rate));
  const buckets = new TokenBuckets(rate, burst, now);
  return (_req: Request, res: Response, next: NextFunction) => {
    const wait = buckets.take(authOf(res).keyId);
    if (wait > 0) {
      const retryAfter = Math.max(1, Math.ceil(wait));
      res.setHeader('Retry-After', String(retryAfter));
      throw new RateLimitedError(`This API key is limited to ${rate} requests per second (bursts of ${burst}); retry in ${retryAfter} s`, {
        limit_per_second: rate,
        burst,
        retry_after_seconds: retryAfter,
      });
    }
    next();
  };
}
