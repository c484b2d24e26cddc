import { z } from 'zod';
import { eventTypes, streamKinds } from '../../shared/events';
import { auditMetadataTerm, auditTerm, type AuditDimension } from '../../shared/read-models/audit-log';
import type { AuditPageRequest } from './audit-log';

/**
 * The audit log's query: filters (AND across filters; a filter given more
 * than once matches any of its values), the range, the page. Anything else is
 * a 422 naming it, so a misspelt filter never silently widens an answer.
 */

/** Most values across all filters of one request. */
export const MAX_FILTER_VALUES = 100;
export const MAX_PAGE_SIZE = 1000;
export const DEFAULT_PAGE_SIZE = 100;

const METADATA_PREFIX = 'audit_metadata.';

/** A filter's values: `?type=A&type=B` arrives as an array. */
export const values = <T extends z.ZodType<string>>(value: T) =>
  z.union([value, z.array(value).min(1)]).transform((v): string[] => (Array.isArray(v) ? v : [v]));

const text = z.string().min(1).max(1000);
const anyType = z.enum(streamKinds.flatMap((kind) => eventTypes[kind]) as [string, ...string[]]);
const instanceRef = z.string().regex(/^[A-Za-z0-9\-_]+:[A-Za-z0-9\-_]+$/, 'must be type:key');

/** A position: a non-negative integer. */
const position = z
  .string()
  // At most 15 digits: every such number is a safe integer, so the pattern alone says what is accepted.
  .regex(/^\d{1,15}$/, 'must be a non-negative integer of at most 15 digits')
  .transform(Number);

/**
 * The times accepted, exactly: the pattern is what the document states, and every string it
 * matches parses (Date.parse rolls a 31st over into the next month rather than refusing it).
 */
const EPOCH_SECONDS = /\d{1,12}(\.\d{1,6})?/;
const ISO_TIME =
  /\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])([T ]([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]([01]\d|2[0-3]):?[0-5]\d)?)?/;

/** A time: ISO 8601 (with a date, optionally a time and offset) or epoch seconds; as epoch milliseconds. */
export const time = z
  .string()
  .regex(new RegExp(`^(${EPOCH_SECONDS.source}|${ISO_TIME.source})$`), 'must be an ISO 8601 time or epoch seconds')
  .transform((value, ctx) => {
    const ms = new RegExp(`^${EPOCH_SECONDS.source}$`).test(value) ? Number(value) * 1000 : Date.parse(value);
    if (!Number.isFinite(ms)) {
      ctx.addIssue({ code: 'custom', message: 'must be an ISO 8601 time or epoch seconds' });
      return z.NEVER;
    }
    return ms;
  })
  .meta({ description: 'ISO 8601 (`2026-05-01T12:00:00Z`) or epoch seconds' });

const page = {
  after: position.optional().meta({ description: 'Start after this position (in the direction of `order`); a page’s `next_after`' }),
  until: position.optional().meta({ description: 'Stop at this position, inclusive (in the direction of `order`)' }),
  timestamp_from: time.optional(),
  timestamp_until: time.optional(),
  limit: z
    .string()
    .regex(/^([1-9]\d{0,2}|1000)$/, `must be an integer from 1 to ${MAX_PAGE_SIZE}`)
    .transform(Number)
    .optional(),
  order: z.enum(['asc', 'desc']).optional(),
};

/** Filters of every log (organisation and environment). */
const commonFilters = {
  type: values(anyType).optional(),
  actor_type: values(z.enum(['api_key', 'system', 'task'])).optional(),
  actor_id: values(text).optional(),
  request_id: values(text).optional(),
  correlation_id: values(text).optional(),
};

/** Filters of an environment's log only. */
const environmentFilters = {
  user: values(text).optional(),
  resource_instance: values(instanceRef).optional(),
  resource: values(text).optional(),
  role: values(text).optional(),
  relation: values(text).optional(),
  tenant: values(text).optional(),
};

/** `audit_metadata.<path>=<value>`: any other parameter is unknown. */
function metadataFilters(query: Record<string, unknown>, ctx: z.RefinementCtx, known: Set<string>): void {
  for (const key of Object.keys(query)) {
    if (known.has(key)) continue;
    if (!key.startsWith(METADATA_PREFIX) || key.length === METADATA_PREFIX.length) {
      ctx.addIssue({ code: 'custom', path: [key], message: `unknown filter '${key}'` });
    }
  }
  let count = 0;
  for (const value of Object.values(query)) if (Array.isArray(value)) count += value.length;
  if (count > MAX_FILTER_VALUES)
    ctx.addIssue({
      code: 'too_big',
      origin: 'array',
      maximum: MAX_FILTER_VALUES,
      message: `at most ${MAX_FILTER_VALUES} filter values in all`,
    });
}

const build = <S extends z.ZodRawShape>(shape: S) => {
  const known = new Set(Object.keys(shape));
  return z
    .object(shape)
    .catchall(values(text))
    .superRefine((query, ctx) => metadataFilters(query, ctx, known));
};

export const environmentLogQuery = build({ ...commonFilters, ...environmentFilters, ...page });
export const organizationLogQuery = build({
  stream: z.literal('org').meta({ description: 'The organisation’s log (projects, environments, API keys)' }),
  ...commonFilters,
  ...page,
});
/** The stream endpoints take the filters, and `after` (or `Last-Event-ID`) to resume from. */
export const environmentStreamQuery = build({ ...commonFilters, ...environmentFilters, after: page.after });
export const organizationStreamQuery = build({
  stream: z.literal('org'),
  ...commonFilters,
  after: page.after,
});

type ParsedQuery = Record<string, unknown>;

const dimensions: AuditDimension[] = [
  'type',
  'actor_type',
  'actor_id',
  'request_id',
  'correlation_id',
  'user',
  'resource_instance',
  'resource',
  'role',
  'relation',
  'tenant',
];

/** A parsed query as index terms: one group per filter. */
export function filterGroups(query: ParsedQuery): string[][] {
  const groups: string[][] = [];
  for (const dimension of dimensions) {
    const given = query[dimension] as string[] | undefined;
    if (given) groups.push([...new Set(given)].map((value) => auditTerm(dimension, value)));
  }
  for (const [key, given] of Object.entries(query)) {
    if (key.startsWith(METADATA_PREFIX) && Array.isArray(given)) {
      const path = key.slice(METADATA_PREFIX.length);
      groups.push([...new Set(given as string[])].map((value) => auditMetadataTerm(path, value)));
    }
  }
  return groups;
}

export function pageRequest(query: ParsedQuery): AuditPageRequest {
  return {
    groups: filterGroups(query),
    order: (query.order as 'asc' | 'desc' | undefined) ?? 'asc',
    after: query.after as number | undefined,
    until: query.until as number | undefined,
    timeFrom: query.timestamp_from as number | undefined,
    timeUntil: query.timestamp_until as number | undefined,
    limit: (query.limit as number | undefined) ?? DEFAULT_PAGE_SIZE,
  };
}
