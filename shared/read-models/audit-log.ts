import type { Collection, CollectionSpec, DocumentStore } from '../docstore/port';
import type { EventMetadata } from '../events/envelope';

/**
 * The audit-log index: a read model over every event, answering "which events
 * of this environment (or organisation) match these filters, in log order"
 * without reading the log. The event bodies stay in the log; the index holds
 * where to find them. Its layout is shared by the projection that writes it
 * (projection-service/audit) and the queries that read it (command-service/audit);
 * docs/audit.md explains it.
 *
 * A *scope* is the log a reader sees: an environment's (its stream, plus the copy
 * tasks that read or wrote it) or an organisation's (its stream). Each scope gets a
 * short *code* (the base-36 position of its first event), which prefixes every key.
 *
 * - `audit_entries`: every event of the scope, in blocks of consecutive events
 *   keyed `<code>|<first position>`: each event's position, stream version (and
 *   stream, when not the scope's own) and log time.
 * - `audit_postings`: the postings of each filter *term* (`us=alice`, `ty=RoleAssigned`,
 *   `md.ticket=ABC-1`), as runs of consecutive scope events that all carry the term,
 *   grouped in documents of up to RUNS_PER_POSTINGS runs keyed `<code>|<term>|<start of
 *   the first>`. A term's documents follow one another: each holds the runs that start
 *   before the next one's id. Events of one request share their actor, type, request id
 *   and most refs, so a bulk write of 5,000 tuples costs a handful of runs for those
 *   terms plus one per instance it names; and since a batch writes each term's current
 *   document once, however many runs it adds, an interleaved log costs a document write
 *   per term and batch rather than per run.
 *
 * Every query is a range of `id`s (the port's `$gte`/`$lte` on `id`, ascending or
 * descending), which both engines answer from their primary key: nothing else is
 * indexed, so each index entry is written once. Positions are written in base 36
 * padded to 11 characters, so the ids of a scope or a term sort as their positions
 * (2^53 fits in 11 digits).
 */

export interface AuditScopeDoc {
  /** The scope: the stream id of the environment or organisation (`env-…`, `org-…`). */
  id: string;
  code: string;
}

/** One event of a scope, as the index knows it. */
export interface AuditEntry {
  position: number;
  /** The event's version in its stream. */
  v: number;
  /** Its stream, when not the scope's own (a copy task's events in an environment's log). */
  s?: string;
  /**
   * Log time, in epoch milliseconds: the event's timestamp, or the latest before it
   * in the scope if that is later, so that it never decreases along the scope
   * (timestamps come from the writers' clocks; a copy writes its request's time).
   */
  t: number;
}

/**
 * Up to ENTRIES_PER_BLOCK consecutive entries of a scope, keyed `<code>|<first position>`,
 * as differences from the entry before (mostly 1, 1 and a few milliseconds in a bulk
 * write), so that a batch of events costs a block write, not a write per event.
 */
export interface AuditEntryBlockDoc {
  id: string;
  /** Positions: 0 (the id's), then each one's distance from the one before. */
  p: number[];
  /** Stream versions: the first, then differences. */
  v: number[];
  /** Log times: the first, then differences. */
  t: number[];
  /** Streams of the entries that are not of the scope's own stream, by index in the block. */
  s?: Record<string, string>;
}

export const ENTRIES_PER_BLOCK = 32;

export function encodeBlock(code: string, entries: AuditEntry[]): AuditEntryBlockDoc {
  const first = entries[0]!;
  const doc: AuditEntryBlockDoc = { id: entryId(code, first.position), p: [], v: [], t: [] };
  let previous: AuditEntry | null = null;
  for (const [i, entry] of entries.entries()) {
    doc.p.push(previous ? entry.position - previous.position : 0);
    doc.v.push(previous ? entry.v - previous.v : entry.v);
    doc.t.push(previous ? entry.t - previous.t : entry.t);
    if (entry.s !== undefined) (doc.s ??= {})[i] = entry.s;
    previous = entry;
  }
  return doc;
}

export function decodeBlock(doc: AuditEntryBlockDoc): AuditEntry[] {
  const entries: AuditEntry[] = [];
  let position = positionOfId(doc.id);
  let v = 0;
  let t = 0;
  for (let i = 0; i < doc.p.length; i++) {
    position += doc.p[i]!;
    v += doc.v[i]!;
    t += doc.t[i]!;
    const stream = doc.s?.[i];
    entries.push(stream === undefined ? { position, v, t } : { position, v, t, s: stream });
  }
  return entries;
}

/**
 * Runs of one term: from `<code>|<term>|<first start>`, each run's length (its
 * last position minus its first) and the distance from its end to the next
 * run's start, alternately: `[end0 - start0, start1 - end0, end1 - start1, …]`.
 */
export interface AuditPostingsDoc {
  id: string;
  r: number[];
}

/** Runs per postings document: a term's current document is rewritten by each batch that extends it, so it stays small (16 and 64 replayed alike; 16 rewrites less). */
export const RUNS_PER_POSTINGS = 16;

/** The postings document of `runs` (flat, `[start0, end0, start1, end1, …]`, ascending), keyed by the first start. */
export function encodePostings(prefix: string, runs: readonly number[]): AuditPostingsDoc {
  const r: number[] = new Array<number>(runs.length - 1);
  for (let i = 1; i < runs.length; i++) r[i - 1] = runs[i]! - runs[i - 1]!;
  return { id: `${prefix}${encodePosition(runs[0]!)}`, r };
}

/** The runs of a postings document, flat (`[start0, end0, …]`). */
export function decodePostings(doc: AuditPostingsDoc): number[] {
  const runs: number[] = new Array<number>(doc.r.length + 1);
  let position = positionOfId(doc.id);
  runs[0] = position;
  for (let i = 0; i < doc.r.length; i++) runs[i + 1] = position += doc.r[i]!;
  return runs;
}

/** The scopes of a copy task's stream (its source and target environments), for its later events. */
export interface AuditTaskDoc {
  id: string;
  scopes: string[];
}

/** Read by ranges of ids only: no declared field, stored in id order. */
const keyOnly = (name: string): CollectionSpec => ({ name, fields: [], indexes: [], compact: true, clustered: true });

export class AuditCollections {
  readonly scopes: Collection<AuditScopeDoc>;
  readonly entries: Collection<AuditEntryBlockDoc>;
  readonly postings: Collection<AuditPostingsDoc>;
  readonly tasks: Collection<AuditTaskDoc>;

  constructor(store: DocumentStore) {
    this.scopes = store.collection(keyOnly('audit_scopes'));
    this.entries = store.collection(keyOnly('audit_entries'));
    this.postings = store.collection(keyOnly('audit_postings'));
    this.tasks = store.collection(keyOnly('audit_tasks'));
  }
}

/** Fixed-width base 36: ids sort as the positions they hold. */
export const POSITION_WIDTH = 11;
const encodePosition = (position: number): string => position.toString(36).padStart(POSITION_WIDTH, '0');
export const decodePosition = (encoded: string): number => parseInt(encoded, 36);

/** The scope code of a scope whose first event is at `position`. */
export const scopeCode = (position: number): string => position.toString(36);

/** The id of the entry block that starts at `position`. */
export const entryId = (code: string, position: number): string => `${code}|${encodePosition(position)}`;
/** The position an entry block or postings id ends with. */
const positionOfId = (id: string): number => decodePosition(id.slice(-POSITION_WIDTH));
/** Every id of the scope's entry blocks lies strictly between these two. */
export const entryBounds = (code: string) => ({ low: `${code}|`, high: `${code}|~` });

export const postingsPrefix = (code: string, term: string): string => `${code}|${term}|`;
export const postingsId = (code: string, term: string, start: number): string => `${postingsPrefix(code, term)}${encodePosition(start)}`;

/**
 * The filters the index answers, by their query name, with the short name their
 * terms carry (terms are repeated in every postings key).
 */
export const AUDIT_DIMENSIONS = {
  type: 'ty',
  actor_type: 'at',
  actor_id: 'ac',
  request_id: 'rq',
  correlation_id: 'co',
  user: 'us',
  resource_instance: 'ri',
  resource: 'rs',
  role: 'ro',
  relation: 'rl',
  tenant: 'tn',
} as const;
export type AuditDimension = keyof typeof AUDIT_DIMENSIONS;

/** `%`, `|` and `=` are escaped inside terms, so a term's key prefix names it alone. */
const SPECIAL = /[%|=]/;
const escapePart = (part: string): string =>
  SPECIAL.test(part) ? part.replace(/[%|=]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`) : part;

export const auditTerm = (dimension: AuditDimension, value: string): string => `${AUDIT_DIMENSIONS[dimension]}=${escapePart(value)}`;

/** The term of `audit_metadata.<path>=<value>` (path: object keys joined by dots). */
export const auditMetadataTerm = (path: string, value: string): string => `md.${escapePart(path)}=${escapePart(value)}`;

/** What of an event's audit metadata is indexed: scalar leaves up to these sizes, at most this many per event. */
export const AUDIT_METADATA_INDEX = { maxTerms: 64, maxPathLength: 200, maxValueLength: 200 } as const;

/**
 * The terms of an event's audit metadata: each scalar leaf (string, number,
 * boolean, null; the elements of an array of them) under its dotted path, the
 * value as text (`5`, `true`, `null`). Longer paths or values, and leaves past
 * the first AUDIT_METADATA_INDEX.maxTerms in document order, are stored and
 * returned but not filterable.
 */
export function auditMetadataTerms(metadata: Record<string, unknown> | undefined): string[] {
  if (!metadata) return [];
  const terms: string[] = [];
  const pending: Array<[string, unknown]> = Object.entries(metadata).reverse();
  for (let next = pending.pop(); next && terms.length < AUDIT_METADATA_INDEX.maxTerms; next = pending.pop()) {
    const [path, value] = next;
    if (path.length > AUDIT_METADATA_INDEX.maxPathLength) continue;
    if (Array.isArray(value)) {
      const items: unknown[] = value;
      for (let i = items.length - 1; i >= 0; i--) if (!isContainer(items[i])) pending.push([path, items[i]]);
    } else if (isContainer(value)) {
      for (const [key, item] of Object.entries(value).reverse()) pending.push([`${path}.${key}`, item]);
    } else {
      // A scalar (containers were walked above): its JSON text, strings as they are.
      const text = typeof value === 'string' ? value : JSON.stringify(value ?? null);
      if (text.length <= AUDIT_METADATA_INDEX.maxValueLength) terms.push(auditMetadataTerm(path, text));
    }
  }
  return terms;
}

const isContainer = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

export type AuditActorType = 'api_key' | 'system' | 'task';

/**
 * Who made a change, from its metadata: an API key (`actor` is its id); a copy
 * task (no actor, `correlationId` is the task's id: the worker's own events and
 * the events it copies); otherwise the service itself (the bootstrap).
 */
export function auditActorOf(metadata: EventMetadata): { type: AuditActorType; id: string | null } {
  if (metadata.actor !== null) return { type: 'api_key', id: metadata.actor };
  if (metadata.correlationId) return { type: 'task', id: metadata.correlationId };
  return { type: 'system', id: null };
}
