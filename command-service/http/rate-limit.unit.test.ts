import { TokenBuckets } from './rate-limit';

describe('per-key token buckets', () => {
  let now = 0;
  const clock = () => now;
  beforeEach(() => (now = 0));

  it('lets a burst through, then one request per 1/rate seconds', () => {
    const buckets = new TokenBuckets(2, 3, clock);
    expect([buckets.take('k'), buckets.take('k'), buckets.take('k')]).toEqual([0, 0, 0]);
    expect(buckets.take('k')).toBeCloseTo(0.5);
    now = 250;
    expect(buckets.take('k')).toBeCloseTo(0.25);
    now = 500;
    expect(buckets.take('k')).toBe(0);
    expect(buckets.take('k')).toBeCloseTo(0.5);
  });

  it('keeps one bucket per key', () => {
    const buckets = new TokenBuckets(1, 1, clock);
    expect(buckets.take('a')).toBe(0);
    expect(buckets.take('a')).toBeGreaterThan(0);
    expect(buckets.take('b')).toBe(0);
  });

  it('refills up to the burst, not beyond', () => {
    const buckets = new TokenBuckets(10, 2, clock);
    buckets.take('k');
    now = 60_000;
    expect([buckets.take('k'), buckets.take('k')]).toEqual([0, 0]);
    expect(buckets.take('k')).toBeGreaterThan(0);
  });

  it('stays bounded: past maxKeys, the buckets that refilled are dropped', () => {
    const buckets = new TokenBuckets(1, 1, clock, 3);
    for (const key of ['a', 'b', 'c']) buckets.take(key);
    now = 1000;
    expect(buckets.take('c')).toBe(0);
    now = 1500;
    // a and b refilled by now; c (taken again at 1000) has not.
    buckets.take('d');
    expect(buckets.size).toBe(2);
    expect(buckets.take('c')).toBeGreaterThan(0);
  });
});
