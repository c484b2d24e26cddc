import { randomBytes } from 'node:crypto';

/**
 * The decision log (docs/decision-logs.md): one entry per permission decision a PDP endpoint
 * answered, kept in a store of its own, apart from the event log and the read models. An entry is
 * what was asked, by which API key, what was answered and at which log position, so that the
 * same question with `as_of` that position re-derives the answer.
 */

/** Permit's query types (its AuditLogQueryType): what kind of question an entry answers. */
export const DECISION_QUERY_TYPES = ['check', 'get_user_permissions'] as const;
export type DecisionQueryType = (typeof DECISION_QUERY_TYPES)[number];

export interface DecisionEntry {
  /** A UUIDv7 whose time is `timestamp` (`decisionId`): ids sort as their entries' times. */
  id: string;
  /** When the decision was answered, in milliseconds since the epoch. */
  timestamp: number;
  organizationId: string;
  projectId: string;
  environmentId: string;
  /** The API key that asked (its id, never its secret); null where no key was resolved. */
  apiKeyId: string | null;
  /** The path the question came to, e.g. `/allowed`, `/access/v1/evaluation`. */
  endpoint: string;
  queryType: DecisionQueryType;
  user: string;
  /** null for a question that names no action (user permissions). */
  action: string | null;
  resourceType: string | null;
  resourceKey: string | null;
  tenant: string | null;
  /** null for a question whose answer is not one yes or no (user permissions). */
  decision: boolean | null;
  /** The log position the answer was decided at (`X-Event-Position`): `as_of` it re-derives the answer. */
  position: number;
  /**
   * The question as the endpoint read it: user, action, resource, tenant and the attributes and
   * context sent; null for a check that sent no attributes nor context, whose question its fields
   * say (`inputOf`). Most checks: they are recorded without making it.
   */
  input: Record<string, unknown> | null;
  /** The answer as the endpoint gave it; null for `{allow: decision}` (`resultOf`). */
  result: unknown;
}

/** An entry's question, made from its fields where it was recorded as null. */
export const inputOf = (e: DecisionEntry): Record<string, unknown> =>
  e.input ?? plainCheckInput(e.user, e.action ?? '', e.resourceType ?? '', e.resourceKey, e.tenant);

/** An entry's answer, made from its decision where it was recorded as null. */
export const resultOf = (e: DecisionEntry): unknown => e.result ?? { allow: e.decision };

/** Which entries a read wants; every filter is optional but the environment. */
export interface DecisionFilter {
  environmentId: string;
  /** API key ids (Permit's `pdp_id`). */
  apiKeyIds?: string[];
  users?: string[];
  decision?: boolean;
  /** Each a resource type (`document`) or an instance (`document:readme`). */
  resources?: string[];
  tenant?: string;
  action?: string;
  /** A query type; one no entry has (Permit's `get_authorized_users`, never logged here) matches nothing. */
  queryType?: string;
  /** Inclusive bounds, in milliseconds since the epoch. */
  from?: number;
  to?: number;
}

export interface DecisionPageRequest {
  /** 1-based. */
  page: number;
  perPage: number;
  /** Newest first (default) or oldest first. */
  order: 'newest' | 'oldest';
}

export interface DecisionPage {
  entries: DecisionEntry[];
  /** Entries matching the filter, over every page. */
  total: number;
}

/** The store of the decision log: appended in batches, read with filters and pages, trimmed by age and count. */
export interface DecisionLogStore {
  append(entries: readonly DecisionEntry[]): Promise<void>;
  query(filter: DecisionFilter, page: DecisionPageRequest): Promise<DecisionPage>;
  /** One entry of an environment by its id, or null. */
  get(environmentId: string, id: string): Promise<DecisionEntry | null>;
  /** Deletes every entry older than `timestamp`; says how many. */
  deleteOlderThan(timestamp: number): Promise<number>;
  /**
   * Deletes the oldest entries beyond the newest `max`; says how many. Where the appends of
   * several processes overlap in time, "oldest" may be by append (an adapter that keeps batches).
   */
  keepNewest(max: number): Promise<number>;
  close(): Promise<void>;
}

/** `type` or `type:key`, as the `resources` filter and the answers name a resource. */
export const resourceName = (entry: Pick<DecisionEntry, 'resourceType' | 'resourceKey'>): string | null =>
  entry.resourceType === null ? null : entry.resourceKey === null ? entry.resourceType : `${entry.resourceType}:${entry.resourceKey}`;

/**
 * A new entry's id: a UUIDv7 of `now` made without drawing random bytes per entry (every check
 * makes one): after the time, a counter of this process, then random bits drawn once per process,
 * so ids of one millisecond sort as they were made here and no two processes make the same one.
 */
export function decisionId(now: number): string {
  if (now !== idClock.ms) {
    idClock.ms = now;
    idClock.prefix = idTimeBound(now);
  }
  idClock.seq = (idClock.seq + 1) >>> 0;
  const seq = idClock.seq.toString(16).padStart(8, '0');
  return `${idClock.prefix}-7${seq.slice(0, 3)}-8${seq.slice(3, 6)}-${seq.slice(6)}${PROCESS_BITS}`;
}
const idClock = { ms: -1, prefix: '', seq: 0 };
/** 40 random bits, drawn once: what tells this process's ids from another's. */
const PROCESS_BITS = randomBytes(5).toString('hex');

/** The time of a UUIDv7 (its first 48 bits), in milliseconds since the epoch. */
export const idTime = (id: string): number => parseInt(`${id.slice(0, 8)}${id.slice(9, 13)}`, 16);

/** The least id of that time or later (`id >= idTimeBound(t)` is "at t or later"), as ids compare as strings. */
export function idTimeBound(ms: number): string {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}`;
}

/**
 * The input of a check that sent no attributes nor context, as `/allowed` takes it: what the check
 * routes record (command-service/routes/checks/decision-entries.ts) and what a store that keeps
 * only the columns of such a check (sqlite-decision-log.ts) gives back, built in one place.
 */
export function plainCheckInput(
  user: string,
  action: string,
  type: string,
  key: string | null,
  tenant: string | null,
): Record<string, unknown> {
  const resource: Record<string, unknown> = { type };
  if (key !== null) resource.key = key;
  if (tenant !== null) resource.tenant = tenant;
  return { user: { key: user }, action, resource };
}
