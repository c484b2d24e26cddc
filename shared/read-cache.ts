/**
 * Answers computed from the read models, kept while the read models stay at the
 * position they were computed at. Every projected event moves the position, and
 * the first lookup after a move drops everything, so a cached answer is always
 * the one the store would give now: there is no TTL to tune and nothing to
 * invalidate by hand. (A cache of answers that some events cannot change is given
 * the position of the last event that could: command-service/http/read-model-groups.ts.)
 *
 * How exact that is depends on how the position is learnt. The embedded service
 * advances it in the same process right after the projection commits, so the
 * cache never serves an answer older than the store's. A separate command
 * service polls the projection's checkpoint (every second when idle, every
 * 20 ms while a write waits), so another replica's write may be seen up to one
 * poll later; a request that sends `X-Min-Event-Position` waits for the position
 * first, which empties the cache, so read-your-writes stays exact.
 *
 * Bounded: past `maxEntries` the oldest entry goes (insertion order), so a
 * stream of distinct questions costs a little memory, never an unbounded amount.
 */
export class ReadCache<V> {
  private readonly entries = new Map<string, V>();
  private position: number;

  constructor(
    private readonly currentPosition: () => number,
    private readonly maxEntries: number,
  ) {
    this.position = currentPosition();
  }

  get size(): number {
    return this.entries.size;
  }

  /** The cached answer for `key`, if there is one for the current position. */
  get(key: string): V | undefined {
    this.dropIfMoved();
    return this.entries.get(key);
  }

  /**
   * Keeps an answer that was computed starting at `computedAt` (a `positionNow()`
   * taken before the first read). If the position moved while it was computed,
   * the answer may mix two states of the store, so it is not kept.
   */
  set(key: string, value: V, computedAt: number): void {
    if (this.maxEntries <= 0) return;
    this.dropIfMoved();
    if (this.position !== computedAt) return;
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, value);
  }

  /**
   * The cached answer for `key` at `position` (a `positionNow()` taken by the
   * caller), without asking for the position again: for many lookups at once.
   */
  getAt(key: string, position: number): V | undefined {
    return position === this.position ? this.entries.get(key) : undefined;
  }

  /** The position now, to pass to `set` for an answer about to be computed. */
  positionNow(): number {
    this.dropIfMoved();
    return this.position;
  }

  /** The cached answer, or `compute()`'s, kept if the position did not move meanwhile. */
  async through(key: string, compute: () => Promise<V>): Promise<V> {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const at = this.position;
    const value = await compute();
    this.set(key, value, at);
    return value;
  }

  private dropIfMoved(): void {
    const now = this.currentPosition();
    if (now === this.position) return;
    this.position = now;
    this.entries.clear();
  }
}
