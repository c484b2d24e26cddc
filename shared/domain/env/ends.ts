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
 * the index holds now for its key is in force), so a command costs the ends it takes and the ones
 * left behind since the last, not the environment's.
 *
 * The ends themselves stay a plain Map (`map`), which a snapshot holds as it always did and a
 * loaded one is wrapped in as it is: the index costs nothing until the first `due`.
 */
export class Ends implements Map<string, string> {
  /** The ends: what the state holds, and a snapshot stores. */
  private readonly map: Map<string, string>;
  /** Null until the first `due`. */
  private index: EndsIndex | null = null;

  constructor(ends: Map<string, string> = new Map()) {
    this.map = ends;
  }

  /** The ends as a plain Map (a snapshot's; not to be written to). */
  asMap(): ReadonlyMap<string, string> {
    return this.map;
  }

  get size(): number {
    return this.map.size;
  }

  get [Symbol.toStringTag](): string {
    return 'Ends';
  }

  has(key: string): boolean {
    return this.map.has(key);
  }

  get(key: string): string | undefined {
    return this.map.get(key);
  }

  set(key: string, end: string): this {
    const prior = this.map.get(key);
    if (prior === end) return this;
    this.map.set(key, end);
    if (this.index && !this.index.set(key, end, this.map.size)) this.index = null;
    return this;
  }

  delete(key: string): boolean {
    if (!this.map.delete(key)) return false;
    if (this.index && !this.index.delete(key, this.map.size)) this.index = null;
    return true;
  }

  clear(): void {
    this.map.clear();
    this.index = null;
  }

  /**
   * The `limit` earliest ends at or before `now`, in order of their ends; ends at one instant in the
   * map's order (the order their facts got them). The same as earliestDue over the same map.
   */
  due(now: string, limit: number): Array<[key: string, end: string]> {
    if (limit <= 0) return [];
    this.index ??= new EndsIndex(this.map);
    return this.index.due(now, limit);
  }

  forEach(callback: (value: string, key: string, map: Map<string, string>) => void, thisArg?: unknown): void {
    for (const [key, end] of this.map) callback.call(thisArg, end, key, this);
  }

  entries(): MapIterator<[string, string]> {
    return this.map.entries();
  }

  keys(): MapIterator<string> {
    return this.map.keys();
  }

  values(): MapIterator<string> {
    return this.map.values();
  }

  [Symbol.iterator](): MapIterator<[string, string]> {
    return this.map.entries();
  }
}

/** The ends sorted by end, then by the map's order, kept so as the map changes. */
class EndsIndex {
  /** The entry in force for each key (its end and its place in the map's order). */
  private readonly current = new Map<string, EndEntry>();
  /** Given to the next key that is not there: the map's order, which ties at one instant follow. */
  private nextOrder = 0;
  /** Every entry in force, by end then order, among entries no longer in force. */
  private sorted: EndEntry[];
  /** `sorted` before this index holds no entry in force. */
  private head = 0;
  /** Entries set since `sorted` was merged: merged in at the next `due`. */
  private pending: EndEntry[] = [];
  /** Entries of `sorted` or `pending` no longer in force (a bound on what is left there to skip). */
  private stale = 0;

  constructor(map: ReadonlyMap<string, string>) {
    for (const [key, end] of map) this.current.set(key, { key, end, order: this.nextOrder++ });
    this.sorted = [...this.current.values()].sort(byEnd);
  }

  /** `key` now ends at `end`; false when the index is more out of force than in it, and should go. */
  set(key: string, end: string, size: number): boolean {
    const prior = this.current.get(key);
    // A key already there keeps its place in the map's order, as a Map's set does.
    const entry: EndEntry = { key, end, order: prior ? prior.order : this.nextOrder++ };
    this.current.set(key, entry);
    if (prior) this.stale += 1;
    this.pending.push(entry);
    return this.stale <= size + SLACK;
  }

  /** `key` has no end any more; false as for `set`. */
  delete(key: string, size: number): boolean {
    this.current.delete(key);
    this.stale += 1;
    return this.stale <= size + SLACK;
  }

  due(now: string, limit: number): Array<[key: string, end: string]> {
    const sorted = this.merged();
    const taken: Array<[string, string]> = [];
    for (let i = this.head; i < sorted.length && taken.length < limit; i++) {
      const entry = sorted[i]!;
      // Sorted by end: none after it is due either, in force or not.
      if (entry.end > now) break;
      if (this.current.get(entry.key) !== entry) {
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

  /** `sorted` with the pending entries merged in, and what is out of force left out on the way. */
  private merged(): EndEntry[] {
    if (this.pending.length === 0) return this.sorted;
    const inForce = (entry: EndEntry) => this.current.get(entry.key) === entry;
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
}

/** Entries out of force an index may hold beyond as many as are in force, before it is dropped (and sorted again when next asked). */
const SLACK = 1_000;

/** An end as set: replaced by a new entry when the end moves, so an entry left in the index tells whether it is still the one in force. */
interface EndEntry {
  readonly key: string;
  readonly end: string;
  readonly order: number;
}

const byEnd = (a: EndEntry, b: EndEntry): number => (a.end < b.end ? -1 : a.end > b.end ? 1 : a.order - b.order);
