/**
 * The ends of an environment's facts (EnvState.ends): a Map of end key → end (an ISO instant), in
 * the order the facts got them, as a plain Map holds them, which also answers the earliest ends due
 * at an instant without reading every end (`due`).
 *
 * An instant may hold more ends than one ExpireDue command appends: the scheduler then sends
 * command after command, each deciding the next slice against the state the ones before left. A
 * scan of every end for each (expiry-decisions.ts, earliestDue) costs the environment's ends once
 * per command. Here the ends are sorted once, on the first `due`, and kept sorted from then on:
 * an end set later joins a pending list merged in at the next `due`, and an entry replaced or
 * deleted is left where it lies and skipped (each entry is an object of its own, and only the one
 * the map holds now is in force), so a command costs the ends it takes and the ones left behind
 * since the last, not the environment's.
 */
export class Ends implements Map<string, string> {
  private readonly entries_ = new Map<string, EndEntry>();
  /** Given to the next key that is not there: the map's order, which ties at one instant follow. */
  private nextOrder = 0;
  /** Every end in force, by end then order, among entries no longer in force; null until the first `due`. */
  private sorted: EndEntry[] | null = null;
  /** `sorted` before this index holds no entry in force. */
  private head = 0;
  /** Entries set since `sorted` was: merged in at the next `due`. */
  private pending: EndEntry[] = [];
  /** Entries of `sorted` or `pending` no longer in force (a bound on what is left there to skip). */
  private stale = 0;

  constructor(ends?: Iterable<readonly [string, string]>) {
    if (ends) for (const [key, end] of ends) this.set(key, end);
  }

  get size(): number {
    return this.entries_.size;
  }

  get [Symbol.toStringTag](): string {
    return 'Ends';
  }

  has(key: string): boolean {
    return this.entries_.has(key);
  }

  get(key: string): string | undefined {
    return this.entries_.get(key)?.end;
  }

  set(key: string, end: string): this {
    const prior = this.entries_.get(key);
    if (prior?.end === end) return this;
    // A key already there keeps its place in the map's order, as a Map's set does.
    const entry: EndEntry = { key, end, order: prior ? prior.order : this.nextOrder++ };
    this.entries_.set(key, entry);
    if (this.sorted !== null) {
      if (prior) this.stale += 1;
      this.pending.push(entry);
      this.dropIndexIfMostlyStale();
    }
    return this;
  }

  delete(key: string): boolean {
    if (!this.entries_.delete(key)) return false;
    if (this.sorted !== null) {
      this.stale += 1;
      this.dropIndexIfMostlyStale();
    }
    return true;
  }

  clear(): void {
    this.entries_.clear();
    this.dropIndex();
  }

  /**
   * The `limit` earliest ends at or before `now`, in order of their ends; ends at one instant in the
   * map's order (the order their facts got them). The same as earliestDue over the same map.
   */
  due(now: string, limit: number): Array<[key: string, end: string]> {
    if (limit <= 0) return [];
    const sorted = this.index();
    const taken: Array<[string, string]> = [];
    let i = this.head;
    for (; i < sorted.length && taken.length < limit; i++) {
      const entry = sorted[i]!;
      // Sorted by end: none after it is due either, in force or not.
      if (entry.end > now) break;
      if (this.entries_.get(entry.key) !== entry) {
        if (i === this.head) {
          this.head += 1;
          this.stale -= 1;
        }
        continue;
      }
      taken.push([entry.key, entry.end]);
    }
    return taken;
  }

  /** `sorted`, built when there is none and with the pending entries merged in. */
  private index(): EndEntry[] {
    if (this.sorted === null) {
      this.sorted = [...this.entries_.values()].sort(byEnd);
      this.head = 0;
      this.pending = [];
      this.stale = 0;
      return this.sorted;
    }
    if (this.pending.length === 0) return this.sorted;
    // Merged, and what is out of force left out on the way.
    const inForce = (entry: EndEntry) => this.entries_.get(entry.key) === entry;
    const added = this.pending.filter(inForce).sort(byEnd);
    const kept = this.sorted;
    const merged: EndEntry[] = [];
    let i = this.head;
    let j = 0;
    while (i < kept.length || j < added.length) {
      const entry = j >= added.length || (i < kept.length && byEnd(kept[i]!, added[j]!) < 0) ? kept[i++]! : added[j++]!;
      if (inForce(entry)) merged.push(entry);
    }
    this.sorted = merged;
    this.head = 0;
    this.pending = [];
    this.stale = 0;
    return merged;
  }

  /** When more entries are out of force than in it, the index goes; the next `due` sorts what is in force again. */
  private dropIndexIfMostlyStale(): void {
    if (this.stale > this.entries_.size + 1_000) this.dropIndex();
  }

  private dropIndex(): void {
    this.sorted = null;
    this.head = 0;
    this.pending = [];
    this.stale = 0;
  }

  forEach(callback: (value: string, key: string, map: Map<string, string>) => void, thisArg?: unknown): void {
    for (const [key, entry] of this.entries_) callback.call(thisArg, entry.end, key, this);
  }

  *entries(): MapIterator<[string, string]> {
    for (const [key, entry] of this.entries_) yield [key, entry.end];
  }

  keys(): MapIterator<string> {
    return this.entries_.keys();
  }

  *values(): MapIterator<string> {
    for (const entry of this.entries_.values()) yield entry.end;
  }

  [Symbol.iterator](): MapIterator<[string, string]> {
    return this.entries();
  }
}

/** An end as set: replaced by a new entry when the end moves, so an entry left in the index tells whether it is still the one in force. */
interface EndEntry {
  readonly key: string;
  readonly end: string;
  readonly order: number;
}

const byEnd = (a: EndEntry, b: EndEntry): number => (a.end < b.end ? -1 : a.end > b.end ? 1 : a.order - b.order);
