import type { Range } from '../../shared/docstore/port';
import {
  decodeBlock,
  decodePostings,
  entryBounds,
  entryId,
  postingsId,
  postingsPrefix,
  type AuditCollections,
  type AuditEntry,
  type AuditPostingsDoc,
} from '../../shared/read-models/audit-log';

/**
 * Which events of one scope match the filters, from the audit-log index
 * (shared/read-models/audit-log.ts), in log order either way.
 *
 * Each filter is a sorted set of positions: the scope's entries, and for each
 * filter the union of its terms' runs (read from their postings documents). Their intersection is found by
 * leapfrogging: each set in turn is asked for its first member at or after the
 * current candidate (at or before, descending), which jumps the candidate ahead
 * until all agree. A set answers from a buffer of what it last read, and reads
 * the index (a range of ids) only when the buffer is spent, so a selective
 * filter costs a few reads per match however large the scope is.
 */

export interface IndexQuery {
  /** The scope's code (its `audit_scopes` document). */
  code: string;
  /** One group per filter; an event matches when it carries a term of every group. */
  groups: string[][];
  order: 'asc' | 'desc';
  /** Positions considered: after `low`, up to `high` (inclusive). */
  low: number;
  high: number;
  /** Log-time bounds, epoch milliseconds, inclusive. */
  timeFrom?: number;
  timeUntil?: number;
  limit: number;
  /** Most index reads for this page; past it the page ends early, and says where to go on. */
  readBudget: number;
}

export interface IndexMatch {
  position: number;
  entry: AuditEntry;
}

export interface IndexPage {
  matches: IndexMatch[];
  /**
   * Where the next page starts (the `after` of the next request, in the same
   * order): the last match, or the last position examined when the read budget
   * ran out; null once the range is done.
   */
  next: number | null;
}

/**
 * Documents read per index read: few after a jump (the next match may be far
 * away), twice as many each time a set is read on from where its last read
 * ended (a dense stretch), up to the most.
 */
/** The size of a set's next read: doubled when it goes on where the last one ended, else back to the least. */
class ChunkSize {
  private size: number;
  private reachedTo: number | null = null;

  constructor(
    private readonly least = 8,
    private readonly most = 256,
  ) {
    this.size = least;
  }

  next(t: number, asc: boolean): number {
    const onward = this.reachedTo !== null && (asc ? t <= this.reachedTo + 1 : t >= this.reachedTo - 1);
    this.size = onward ? Math.min(this.most, this.size * 2) : this.least;
    return this.size;
  }

  /** Where the read that was just made ends (the last position it covers). */
  covered(position: number | null): void {
    this.reachedTo = position;
  }
}

interface Reads {
  count: number;
}

/** A sorted set of positions of the scope, walked in one direction. */
interface PositionSet {
  /** The first member at or after `t` (asc; at or before, desc), or null when none is left in range. */
  seek(t: number): Promise<number | null>;
  /**
   * Whether the position the last seek found is known to be an event of the scope:
   * a run covers every event of the scope between its ends, and events of other
   * scopes too, but its ends are the scope's.
   */
  readonly known: boolean;
}

export async function queryIndex(collections: AuditCollections, query: IndexQuery): Promise<IndexPage> {
  const reads: Reads = { count: 0 };
  const blocks = new EntryBlocks(collections, query.code, reads);
  let { low, high } = query;
  if (query.timeFrom !== undefined || query.timeUntil !== undefined) {
    const times = new TimeBounds(blocks);
    if (query.timeFrom !== undefined) {
      const from = query.timeFrom;
      const first = await times.firstWhere(low + 1, high, (t) => t >= from);
      if (first === null) return { matches: [], next: null };
      low = first - 1;
    }
    if (query.timeUntil !== undefined) {
      const until = query.timeUntil;
      const after = await times.firstWhere(low + 1, high, (t) => t > until);
      if (after !== null) high = after - 1;
    }
  }
  if (low >= high) return { matches: [], next: null };

  const asc = query.order === 'asc';
  const entries = new EntrySet(blocks, low, high, asc);
  const sets: PositionSet[] = [
    entries,
    ...query.groups.map((terms) => {
      const runs = terms.map((term) => new RunSet(collections, query.code, term, low, high, asc, reads));
      return runs.length === 1 ? runs[0]! : new UnionSet(runs, asc);
    }),
  ];

  const found: number[] = [];
  const entryAt = new Map<number, AuditEntry>();
  const page = async (next: number | null): Promise<IndexPage> => ({ matches: await withEntries(blocks, found, entryAt), next });
  let t = asc ? low + 1 : high;
  let agreeing = 0;
  // Whether t is known to be an event of the scope; then the entries need not be asked.
  let known = false;
  let i = 0;
  const start = t;
  while (found.length < query.limit) {
    // Past the budget, the page ends where it got to; it always gets somewhere, so paging always ends.
    if (reads.count >= query.readBudget && t !== start) return page(asc ? t - 1 : t + 1);
    const set = sets[i]!;
    if (set === entries && known) agreeing++;
    else {
      const next = await set.seek(t);
      if (next === null) return page(null);
      if (next === t) {
        agreeing++;
        known ||= set.known;
      } else {
        t = next;
        agreeing = 1;
        known = set.known;
      }
      if (set === entries) entryAt.set(t, entries.current!);
    }
    if (agreeing === sets.length) {
      found.push(t);
      t = asc ? t + 1 : t - 1;
      agreeing = 0;
      known = false;
      i = 0;
      if (asc ? t > high : t <= low) return page(null);
    } else {
      i = (i + 1) % sets.length;
    }
  }
  return page(found.at(-1)!);
}

/** The matches with their entries: those met on the way, the others read from their blocks. */
async function withEntries(blocks: EntryBlocks, positions: number[], met: Map<number, AuditEntry>): Promise<IndexMatch[]> {
  for (const position of [...positions].sort((a, b) => a - b)) {
    if (met.has(position)) continue;
    const entry = (await blocks.containing(position))?.find((e) => e.position === position);
    if (!entry) throw new Error(`the audit index has no entry at ${position} in ${blocks.code}, though a run ends there`);
    met.set(position, entry);
  }
  return positions.map((position) => ({ position, entry: met.get(position)! }));
}

/** Reads the scope's entry blocks, decoded; the last one read is kept (matches often share it). */
class EntryBlocks {
  private last: { id: string; entries: AuditEntry[] } | null = null;

  constructor(
    private readonly c: AuditCollections,
    readonly code: string,
    private readonly reads: Reads,
  ) {}

  /** The entries of the block that starts at or before `position` (the one that would hold it). */
  async containing(position: number): Promise<AuditEntry[] | null> {
    const cached = this.last;
    if (cached && cached.entries[0]!.position <= position && cached.entries.at(-1)!.position >= position) return cached.entries;
    const [doc] = await this.find({ $gt: entryBounds(this.code).low, $lte: entryId(this.code, position) }, true, 1);
    return doc ?? null;
  }

  /** Entries of up to `limit` blocks that start after `position` and at or before `high`, in order. */
  async after(position: number, high: number, limit: number): Promise<AuditEntry[][]> {
    return this.find({ $gt: entryId(this.code, position), $lte: entryId(this.code, high) }, false, limit);
  }

  /** Entries of up to `limit` blocks that start at or before `position`, latest first. */
  async before(position: number, limit: number): Promise<AuditEntry[][]> {
    return this.find({ $gt: entryBounds(this.code).low, $lte: entryId(this.code, position) }, true, limit);
  }

  private async find(range: Range, descending: boolean, limit: number): Promise<AuditEntry[][]> {
    this.reads.count++;
    const docs = await this.c.entries.find({ id: range }, { sortBy: 'id', descending, limit });
    const blocks = docs.map((doc) => ({ id: doc.id, entries: decodeBlock(doc) }));
    if (blocks.length > 0) this.last = blocks[0]!;
    return blocks.map((block) => block.entries);
  }
}

/** The scope's entries: every event of the scope. */
class EntrySet implements PositionSet {
  private buffer: AuditEntry[] = [];
  private exhausted = false;
  private readonly chunk = new ChunkSize(1, 16);
  readonly known = true;
  current: AuditEntry | null = null;

  constructor(
    private readonly blocks: EntryBlocks,
    private readonly low: number,
    private readonly high: number,
    private readonly asc: boolean,
  ) {}

  async seek(t: number): Promise<number | null> {
    for (;;) {
      while (this.buffer.length > 0 && (this.asc ? this.buffer[0]!.position < t : this.buffer[0]!.position > t)) this.buffer.shift();
      const head = this.buffer[0];
      if (head) {
        this.current = head;
        return head.position;
      }
      if (this.exhausted) return null;
      await this.fill(t);
    }
  }

  private async fill(t: number): Promise<void> {
    if (this.asc) {
      // The rest of the block that holds t, else the blocks after it.
      const holding = ((await this.blocks.containing(t)) ?? []).filter((e) => e.position >= t);
      if (holding.length > 0) this.buffer = holding;
      else {
        const limit = this.chunk.next(t, true);
        const later = await this.blocks.after(t, this.high, limit);
        this.buffer = later.flat();
        this.exhausted = later.length < limit;
        this.chunk.covered(this.buffer.at(-1)?.position ?? null);
      }
      if (this.buffer.length > 0 && this.buffer.at(-1)!.position > this.high) {
        this.buffer = this.buffer.filter((e) => e.position <= this.high);
        this.exhausted = true;
      }
    } else {
      const limit = this.chunk.next(t, false);
      const earlier = await this.blocks.before(t, limit);
      this.buffer = earlier.flatMap((entries) => [...entries].reverse()).filter((e) => e.position <= t);
      this.exhausted = earlier.length < limit || (earlier.at(-1)?.[0]?.position ?? 0) <= this.low;
      this.chunk.covered(this.buffer.at(-1)?.position ?? null);
      this.buffer = this.buffer.filter((e) => e.position > this.low);
    }
  }
}

interface Run {
  start: number;
  end: number;
}

/** Runs of a postings document, in order. */
function runsOf(doc: AuditPostingsDoc): Run[] {
  const flat = decodePostings(doc);
  const runs: Run[] = [];
  for (let i = 0; i < flat.length; i += 2) runs.push({ start: flat[i]!, end: flat[i + 1]! });
  return runs;
}

/** The positions of one term: its runs, from its postings documents. */
class RunSet implements PositionSet {
  /** Runs in walking order; ascending, the first may start before the candidate and reach it. */
  private buffer: Run[] = [];
  private exhausted = false;
  /**
   * Postings documents per read (each holds up to RUNS_PER_POSTINGS runs, fewer where the projection
   * started a term's next document without reading its last back: a term that kept coming back after
   * the projection dropped it has many short ones). A range of 4 small documents reads about as fast as 1.
   */
  private readonly chunk = new ChunkSize(4, 16);
  known = false;

  constructor(
    private readonly c: AuditCollections,
    private readonly code: string,
    private readonly term: string,
    private readonly low: number,
    private readonly high: number,
    private readonly asc: boolean,
    private readonly reads: Reads,
  ) {}

  async seek(t: number): Promise<number | null> {
    for (;;) {
      if (this.asc) {
        while (this.buffer.length > 0 && this.buffer[0]!.end < t) this.buffer.shift();
        const head = this.buffer[0];
        if (head) {
          const found = Math.max(head.start, t);
          this.known = found === head.start || found === head.end;
          return found > this.high ? null : found;
        }
      } else {
        while (this.buffer.length > 0 && this.buffer[0]!.start > t) this.buffer.shift();
        const head = this.buffer[0];
        if (head) {
          const found = Math.min(head.end, t);
          this.known = found === head.start || found === head.end;
          return found <= this.low ? null : found;
        }
      }
      if (this.exhausted) return null;
      await this.fill(t);
    }
  }

  private async fill(t: number): Promise<void> {
    const prefix = postingsPrefix(this.code, this.term);
    const atT = postingsId(this.code, this.term, t);
    const limit = this.chunk.next(t, this.asc);
    if (this.asc) {
      // The document that may hold t (the last to start at or before it: it holds every run that
      // starts before the next one), then those that start after it.
      this.reads.count += 2;
      const [holding] = await this.c.postings.find({ id: { $gt: prefix, $lte: atT } }, { sortBy: 'id', descending: true, limit: 1 });
      const later = await this.c.postings.find(
        { id: { $gt: atT, $lte: postingsId(this.code, this.term, this.high) } },
        { sortBy: 'id', limit },
      );
      this.buffer = [...(holding ? runsOf(holding).filter((run) => run.end >= t) : []), ...later.flatMap(runsOf)];
      this.exhausted = later.length < limit;
      this.chunk.covered(this.buffer.at(-1)?.end ?? null);
    } else {
      // Documents that start at or before t, latest first, their runs latest first: the first holds t or ends before it.
      this.reads.count++;
      const earlier = await this.c.postings.find({ id: { $gt: prefix, $lte: atT } }, { sortBy: 'id', descending: true, limit });
      this.buffer = earlier.flatMap((doc) => runsOf(doc).reverse());
      this.exhausted = earlier.length < limit;
      this.chunk.covered(this.buffer.at(-1)?.start ?? null);
    }
  }
}

/** Any of several terms (a filter given more than once). */
class UnionSet implements PositionSet {
  known = false;

  constructor(
    private readonly sets: PositionSet[],
    private readonly asc: boolean,
  ) {}

  async seek(t: number): Promise<number | null> {
    let best: number | null = null;
    for (const set of this.sets) {
      const found = await set.seek(t);
      if (found === null) continue;
      if (best === null || (this.asc ? found < best : found > best)) {
        best = found;
        this.known = set.known;
      } else if (found === best) this.known ||= set.known;
    }
    return best;
  }
}

/**
 * Log-time bounds as positions. Log time never decreases along a scope, so
 * the first entry whose time passes a bound is found by bisecting positions,
 * one single-entry read per step.
 */
class TimeBounds {
  constructor(private readonly blocks: EntryBlocks) {}

  /** The first entry's position in [from, to] whose log time satisfies `passes` (monotone along the scope), or null. */
  async firstWhere(from: number, to: number, passes: (time: number) => boolean): Promise<number | null> {
    let a = from;
    let b = to + 1;
    while (a < b) {
      const mid = a + Math.floor((b - a) / 2);
      const entry = await this.firstAtOrAfter(mid, to);
      if (!entry || passes(entry.t)) b = mid;
      else a = mid + 1;
    }
    const entry = a <= to ? await this.firstAtOrAfter(a, to) : undefined;
    return entry && passes(entry.t) ? entry.position : null;
  }

  private async firstAtOrAfter(position: number, to: number): Promise<AuditEntry | undefined> {
    const entry =
      ((await this.blocks.containing(position)) ?? []).find((e) => e.position >= position) ??
      (await this.blocks.after(position, to, 1))[0]?.[0];
    return entry && entry.position <= to ? entry : undefined;
  }
}
