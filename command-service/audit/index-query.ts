import { entryId, positionOfId, runId, runPrefix, type AuditCollections, type AuditEntryDoc } from '../../shared/read-models/audit-log';

/**
 * Which events of one scope match the filters, from the audit-log index
 * (shared/read-models/audit-log.ts), in log order either way.
 *
 * Each filter is a sorted set of positions: the scope's entries, and for each
 * filter the union of its terms' runs. Their intersection is found by
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
  entry: AuditEntryDoc;
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

/** Documents read per index read. */
const CHUNK = 256;

interface Reads {
  count: number;
}

/** A sorted set of positions of the scope, walked in one direction. */
interface PositionSet {
  /** The first member at or after `t` (asc; at or before, desc), or null when none is left in range. */
  seek(t: number): Promise<number | null>;
}

export async function queryIndex(collections: AuditCollections, query: IndexQuery): Promise<IndexPage> {
  const reads: Reads = { count: 0 };
  let { low, high } = query;
  if (query.timeFrom !== undefined || query.timeUntil !== undefined) {
    const times = new TimeBounds(collections, query.code, reads);
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
  const entries = new EntrySet(collections, query.code, low, high, asc, reads);
  const sets: PositionSet[] = [
    entries,
    ...query.groups.map((terms) => {
      const runs = terms.map((term) => new RunSet(collections, query.code, term, low, high, asc, reads));
      return runs.length === 1 ? runs[0]! : new UnionSet(runs, asc);
    }),
  ];

  const matches: IndexMatch[] = [];
  let t = asc ? low + 1 : high;
  let agreeing = 0;
  let i = 0;
  const start = t;
  while (matches.length < query.limit) {
    // Past the budget, the page ends where it got to; it always gets somewhere, so paging always ends.
    if (reads.count >= query.readBudget && t !== start) return { matches, next: asc ? t - 1 : t + 1 };
    const found = await sets[i]!.seek(t);
    if (found === null) return { matches, next: null };
    if (found === t) agreeing++;
    else {
      t = found;
      agreeing = 1;
    }
    if (agreeing === sets.length) {
      matches.push({ position: t, entry: entries.current! });
      t = asc ? t + 1 : t - 1;
      agreeing = 0;
      i = 0;
      if (asc ? t > high : t <= low) return { matches, next: null };
    } else {
      i = (i + 1) % sets.length;
    }
  }
  return { matches, next: matches.at(-1)!.position };
}

/** The scope's entries: every event of the scope. */
class EntrySet implements PositionSet {
  private buffer: AuditEntryDoc[] = [];
  private exhausted = false;
  current: AuditEntryDoc | null = null;

  constructor(
    private readonly c: AuditCollections,
    private readonly code: string,
    private readonly low: number,
    private readonly high: number,
    private readonly asc: boolean,
    private readonly reads: Reads,
  ) {}

  async seek(t: number): Promise<number | null> {
    for (;;) {
      while (this.buffer.length > 0 && (this.asc ? positionOfId(this.buffer[0]!.id) < t : positionOfId(this.buffer[0]!.id) > t)) {
        this.buffer.shift();
      }
      const head = this.buffer[0];
      if (head) {
        this.current = head;
        return positionOfId(head.id);
      }
      if (this.exhausted) return null;
      await this.fill(t);
    }
  }

  private async fill(t: number): Promise<void> {
    this.reads.count++;
    const range = this.asc
      ? { $gte: entryId(this.code, t), $lte: entryId(this.code, this.high) }
      : { $gt: entryId(this.code, this.low), $lte: entryId(this.code, t) };
    this.buffer = await this.c.entries.find({ id: range }, { sortBy: 'id', descending: !this.asc, limit: CHUNK });
    this.exhausted = this.buffer.length < CHUNK;
  }
}

interface Run {
  start: number;
  end: number;
}

/** The positions of one term: its runs. */
class RunSet implements PositionSet {
  /** Runs in walking order; ascending, the first may start before the candidate and reach it. */
  private buffer: Run[] = [];
  private exhausted = false;

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
        if (head) return head.start > this.high ? null : Math.max(head.start, t);
      } else {
        while (this.buffer.length > 0 && this.buffer[0]!.start > t) this.buffer.shift();
        const head = this.buffer[0];
        if (head) {
          const found = Math.min(head.end, t);
          return found <= this.low ? null : found;
        }
      }
      if (this.exhausted) return null;
      await this.fill(t);
    }
  }

  private async fill(t: number): Promise<void> {
    const prefix = runPrefix(this.code, this.term);
    const run = (doc: { id: string; e: number }): Run => ({ start: positionOfId(doc.id), end: doc.e });
    if (this.asc) {
      // The run that may hold t (the last to start at or before it), then those that start after it.
      this.reads.count += 2;
      const [holding] = await this.c.runs.find(
        { id: { $gt: prefix, $lte: runId(this.code, this.term, t) } },
        { sortBy: 'id', descending: true, limit: 1 },
      );
      const later = await this.c.runs.find(
        { id: { $gt: runId(this.code, this.term, t), $lte: runId(this.code, this.term, this.high) } },
        { sortBy: 'id', limit: CHUNK },
      );
      this.buffer = [...(holding && holding.e >= t ? [run(holding)] : []), ...later.map(run)];
      this.exhausted = later.length < CHUNK;
    } else {
      // Runs that start at or before t, latest first: the first holds t or ends before it.
      this.reads.count++;
      const earlier = await this.c.runs.find(
        { id: { $gt: prefix, $lte: runId(this.code, this.term, t) } },
        { sortBy: 'id', descending: true, limit: CHUNK },
      );
      this.buffer = earlier.map(run);
      this.exhausted = earlier.length < CHUNK;
    }
  }
}

/** Any of several terms (a filter given more than once). */
class UnionSet implements PositionSet {
  constructor(
    private readonly sets: PositionSet[],
    private readonly asc: boolean,
  ) {}

  async seek(t: number): Promise<number | null> {
    let best: number | null = null;
    for (const set of this.sets) {
      const found = await set.seek(t);
      if (found !== null && (best === null || (this.asc ? found < best : found > best))) best = found;
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
  constructor(
    private readonly c: AuditCollections,
    private readonly code: string,
    private readonly reads: Reads,
  ) {}

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
    const entry = a <= to ? await this.firstAtOrAfter(a, to) : null;
    return entry && passes(entry.t) ? positionOfId(entry.id) : null;
  }

  private async firstAtOrAfter(position: number, to: number): Promise<AuditEntryDoc | undefined> {
    this.reads.count++;
    const [entry] = await this.c.entries.find(
      { id: { $gte: entryId(this.code, position), $lte: entryId(this.code, to) } },
      { sortBy: 'id', limit: 1 },
    );
    return entry;
  }
}
