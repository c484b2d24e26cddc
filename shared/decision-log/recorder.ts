import type { Logger } from 'pino';
import type { DecisionEntry, DecisionLogStore } from './port';

export interface DecisionRecorderOptions {
  mode: 'off' | 'sampled' | 'full';
  /** With `sampled`: the probability that a decision is kept. */
  sampleRate: number;
  /** Most entries waiting for their batch; beyond it an entry is dropped and counted. */
  maxBuffered: number;
  flushMs: number;
  /**
   * The retention bound this process applies (the main process), every `everyMs` (default a
   * minute), the first time that long after start (the store is not opened, nor its file made,
   * before the service listens); null: another process applies it.
   */
  retention: { maxAgeMs: number; maxEntries: number; everyMs?: number } | null;
  /** Opens the store at the first flush or read, not at start (nothing is written to a data directory before then). */
  openStore: () => Promise<DecisionLogStore>;
  logger: Logger;
  /** Counted in place for `GET /metrics`. */
  counts: DecisionLogCounts;
  /** Where a random number comes from (tests make sampling deterministic). */
  random?: () => number;
}

export interface DecisionLogCounts {
  written: number;
  dropped: number;
}

/** How often the retention bound is applied by default. */
const RETENTION_EVERY_MS = 60_000;

/**
 * Records decisions off the checks' path: a check asks `wants()` (one comparison, or one random
 * number when sampled) and, if wanted, `add`s its entry to an in-memory buffer; a timer writes
 * the buffer to the store in one batch, often enough that a batch's share of the work left on
 * the checks' thread (making its rows) stays a short pause. A full buffer (the store slower than the checks) drops
 * the entry and counts it, rather than slowing a check down. Entries not yet written when the
 * process stops are written by `close`.
 */
export class DecisionRecorder {
  private buffer: DecisionEntry[] = [];
  private store: Promise<DecisionLogStore> | null = null;
  private flushing: Promise<void> | null = null;
  private readonly timer: NodeJS.Timeout | null;
  private lastRetention = Date.now();
  private readonly random: () => number;
  private lastErrorLogged = 0;

  constructor(private readonly options: DecisionRecorderOptions) {
    this.random = options.random ?? Math.random;
    this.timer = options.mode === 'off' && options.retention === null ? null : setInterval(() => void this.tick(), options.flushMs);
    this.timer?.unref();
  }

  /** Whether this decision is to be kept: false when off, a draw when sampled. Ask once per entry. */
  wants(): boolean {
    const { mode } = this.options;
    if (mode === 'full') return true;
    if (mode === 'off') return false;
    return this.random() < this.options.sampleRate;
  }

  add(entry: DecisionEntry): void {
    if (this.buffer.length >= this.options.maxBuffered) {
      this.options.counts.dropped++;
      return;
    }
    this.buffer.push(entry);
  }

  /** The store, opened at its first use. */
  opened(): Promise<DecisionLogStore> {
    return (this.store ??= this.options.openStore());
  }

  /** Writes what is waiting (and waits for a write already under way). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.buffer.length === 0) return;
    const batch = this.buffer;
    this.buffer = [];
    this.flushing = (async () => {
      try {
        await (await this.opened()).append(batch);
        this.options.counts.written += batch.length;
      } catch (error) {
        this.options.counts.dropped += batch.length;
        this.logError(error, 'decision log entries could not be written; they are dropped');
      }
    })();
    try {
      await this.flushing;
    } finally {
      this.flushing = null;
    }
  }

  /** Writes what is waiting, then deletes what the retention bound says is too old, or too many. */
  async enforceRetention(now = Date.now()): Promise<number> {
    const { retention } = this.options;
    if (!retention) return 0;
    await this.flush();
    const store = await this.opened();
    return (await store.deleteOlderThan(now - retention.maxAgeMs)) + (await store.keepNewest(retention.maxEntries));
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
    if (this.store) await (await this.store).close();
  }

  private async tick(): Promise<void> {
    await this.flush();
    const { retention } = this.options;
    if (retention && Date.now() - this.lastRetention >= (retention.everyMs ?? RETENTION_EVERY_MS)) {
      this.lastRetention = Date.now();
      try {
        await this.enforceRetention();
      } catch (error) {
        this.logError(error, 'decision log retention could not be applied');
      }
    }
  }

  /** At most one line a minute: a store that is down must not flood the log. */
  private logError(error: unknown, message: string): void {
    const now = Date.now();
    if (now - this.lastErrorLogged < 60_000) return;
    this.lastErrorLogged = now;
    this.options.logger.error({ err: error, dropped: this.options.counts.dropped }, message);
  }
}
