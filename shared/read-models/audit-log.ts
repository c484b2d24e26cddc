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
 * - `audit_entries`: one document per event per scope, `<code>|<position>`, holding
 *   the event's stream version (and its stream when that is not the scope's own)
 *   and the scope's log time.
 * - `audit_runs`: the postings of each filter *term* (`us=alice`, `ty=RoleAssigned`,
 *   `md.ticket=ABC-1`), run-length encoded over the scope's events: one document
 *   `<code>|<term>|<start>` per run of consecutive scope events that all carry the
 *   term, holding its last position. Events of one request share their actor, type,
 *   request id and most refs, so a bulk write of 5,000 tuples costs a handful of run
 *   documents for those terms plus one per instance it names.
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

export interface AuditEntryDoc {
  /** `<code>|<position>` */
  id: string;
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

export interface AuditRunDoc {
  /** `<code>|<term>|<first position>` */
  id: string;
  /** Last position of the run. */
  e: number;
}

/** The scopes of a copy task's stream (its source and target environments), for its later events. */
export interface AuditTaskDoc {
  id: string;
  scopes: string[];
}

const keyOnly = (name: string): CollectionSpec => ({ name, fields: [], indexes: [], compact: true });

export class AuditCollections {
  readonly scopes: Collection<AuditScopeDoc>;
  readonly entries: Collection<AuditEntryDoc>;
  readonly runs: Collection<AuditRunDoc>;
  readonly tasks: Collection<AuditTaskDoc>;

  constructor(store: DocumentStore) {
    this.scopes = store.collection(keyOnly('audit_scopes'));
    this.entries = store.collection(keyOnly('audit_entries'));
    this.runs = store.collection(keyOnly('audit_runs'));
    this.tasks = store.collection(keyOnly('audit_tasks'));
  }
}

/** Fixed-width base 36: ids sort as the positions they hold. */
export const POSITION_WIDTH = 11;
export const encodePosition = (position: number): string => position.toString(36).padStart(POSITION_WIDTH, '0');
export const decodePosition = (encoded: string): number => parseInt(encoded, 36);

/** The scope code of a scope whose first event is at `position`. */
export const scopeCode = (position: number): string => position.toString(36);

export const entryId = (code: string, position: number): string => `${code}|${encodePosition(position)}`;
/** The position an entry or run id ends with. */
export const positionOfId = (id: string): number => decodePosition(id.slice(-POSITION_WIDTH));
/** Every id of the scope's entries lies strictly between these two. */
export const entryBounds = (code: string) => ({ low: `${code}|`, high: `${code}|~` });

export const runPrefix = (code: string, term: string): string => `${code}|${term}|`;
export const runId = (code: string, term: string, start: number): string => `${runPrefix(code, term)}${encodePosition(start)}`;

/**
 * The filters the index answers, by their query name, with the short name their
 * terms carry (terms are repeated in every run's key).
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
const escapePart = (part: string): string => part.replace(/[%|=]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

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
