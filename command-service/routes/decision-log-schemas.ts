import { z } from 'zod';
import { inputOf, resultOf, type DecisionEntry, type DecisionFilter } from '../../shared/decision-log/port';
import { canonicalId } from '../../shared/ids';
import { time, values } from '../audit/filters';
import { MAX_PER_PAGE, queryBoolean, queryInteger } from '../http/validation';

/**
 * `GET /v2/pdps/{proj_id}/{env_id}/audit_logs` as Permit's API takes it (its SDKs'
 * `listAuditLogs`, the CLI's `permit test run audit`): the same filters and page, the same
 * answer (`LimitedPaginatedResultAuditLogModel`), plus what we know of each decision that Permit
 * does not say (docs/decision-logs.md).
 */

const text = z.string().min(1).max(1000);

export const decisionLogQuery = z.object({
  pdp_id: text.optional().meta({ description: 'The API key that asked (its id): the key is what identifies a PDP here' }),
  users: values(text).optional().meta({ description: 'User keys (repeat the parameter for several)' }),
  decision: queryBoolean.optional(),
  resources: values(text)
    .optional()
    .meta({ description: 'Resource types (`document`) or instances (`document:readme`); repeat for several' }),
  tenant: text.optional(),
  action: text.optional(),
  timestamp_from: time.optional(),
  timestamp_to: time.optional(),
  sort_by: z
    .enum(['timestamp', 'None'])
    .optional()
    .meta({ description: 'Newest first either way (Permit’s values; `None` asks for no particular order)' }),
  query: z
    .enum(['check', 'get_user_permissions', 'get_authorized_users', 'none'])
    .optional()
    .meta({ description: 'The kind of question: checks, user permissions, authorized users (never logged here), `none`: all' }),
  page: queryInteger(1, 1_000_000, 1),
  per_page: queryInteger(1, MAX_PER_PAGE, 30),
});
export type DecisionLogQuery = z.infer<typeof decisionLogQuery>;

/** The store's filter for a parsed query, in one environment. */
export function decisionFilterOf(environmentId: string, q: DecisionLogQuery): DecisionFilter {
  const filter: DecisionFilter = { environmentId };
  if (q.pdp_id !== undefined) filter.apiKeyIds = [canonicalId(q.pdp_id)];
  if (q.users) filter.users = q.users;
  if (q.decision !== undefined) filter.decision = q.decision;
  if (q.resources) filter.resources = q.resources;
  if (q.tenant !== undefined) filter.tenant = q.tenant;
  if (q.action !== undefined) filter.action = q.action;
  if (q.timestamp_from !== undefined) filter.from = q.timestamp_from;
  if (q.timestamp_to !== undefined) filter.to = q.timestamp_to;
  // Authorized-users questions are not logged: asking for them finds nothing, as asked.
  if (q.query !== undefined && q.query !== 'none') filter.queryType = q.query;
  return filter;
}

/** Permit's query names (the PDP's OPA rules) per endpoint. */
const PERMIT_QUERY: Record<string, string> = {
  '/allowed/bulk': 'permit/bulk',
  '/user-permissions': 'permit/user_permissions',
};

/** The user, resource and tenant of a decision as Permit's audit log context gives them (what `permit test run audit` replays). */
const auditContextSchema = z.strictObject({
  user: z.strictObject({ id: z.string(), key: z.string(), attributes: z.record(z.string(), z.unknown()).optional() }),
  resource: z.strictObject({ type: z.string(), id: z.string(), attributes: z.record(z.string(), z.unknown()).optional() }).nullable(),
  tenant: z.string().nullable(),
  action: z.string().nullable(),
  context: z.record(z.string(), z.unknown()).optional(),
});

export const decisionLogEntrySchema = z
  .strictObject({
    id: z.string(),
    timestamp: z.string().describe('ISO 8601: when the decision was answered'),
    created_at: z.string(),
    query: z.string().describe('Permit’s name of the question: permit/root (a check), permit/bulk, permit/user_permissions'),
    user_key: z.string(),
    user_email: z.null().describe('Not known at check time: always null'),
    user_name: z.null(),
    resource_type: z.string().nullable(),
    resource_key: z.string().nullable().describe('Ours: the instance checked, null for the type as a whole'),
    tenant: z.string().nullable(),
    action: z.string().nullable(),
    decision: z.boolean().nullable().describe('null for a question that is not one yes or no (user permissions)'),
    reason: z.null(),
    org_id: z.string(),
    project_id: z.string(),
    env_id: z.string(),
    pdp_config_id: z.string().nullable().describe('The API key that asked (its id, never its secret)'),
    api_key_id: z.string().nullable().describe('Ours: the same, by its name here'),
    endpoint: z.string().describe('Ours: the path the question came to'),
    position: z.number().int().min(0).describe('Ours: the log position it was decided at; as_of it re-derives the decision'),
    input: z.record(z.string(), z.unknown()).describe('The question, as /allowed (or /user-permissions) takes it'),
    result: z.unknown().describe('The answer as the endpoint gave it'),
    context: auditContextSchema,
  })
  .meta({ id: 'DecisionLogEntry' });

export const decisionLogPageSchema = z
  .strictObject({
    data: z.array(decisionLogEntrySchema),
    total_count: z.number().int().min(0),
    page_count: z.number().int().min(0),
    pagination_count: z.number().int().min(0).describe('Permit’s; the same as page_count'),
  })
  .meta({ id: 'DecisionLogPage' });

/** An entry in Permit's AuditLogModel shape, with ours beside it. */
export function presentDecision(e: DecisionEntry): z.infer<typeof decisionLogEntrySchema> {
  const timestamp = new Date(e.timestamp).toISOString();
  const question = inputOf(e);
  const input = question as { user?: { attributes?: Record<string, unknown> }; resource?: { attributes?: Record<string, unknown> } };
  const context = (question as { context?: Record<string, unknown> }).context;
  return {
    id: e.id,
    timestamp,
    created_at: timestamp,
    query: PERMIT_QUERY[e.endpoint] ?? (e.queryType === 'check' ? 'permit/root' : 'permit/user_permissions'),
    user_key: e.user,
    user_email: null,
    user_name: null,
    resource_type: e.resourceType,
    resource_key: e.resourceKey,
    tenant: e.tenant,
    action: e.action,
    decision: e.decision,
    reason: null,
    org_id: e.organizationId,
    project_id: e.projectId,
    env_id: e.environmentId,
    pdp_config_id: e.apiKeyId,
    api_key_id: e.apiKeyId,
    endpoint: e.endpoint,
    position: e.position,
    input: question,
    result: resultOf(e),
    context: {
      user: { id: e.user, key: e.user, ...(input.user?.attributes ? { attributes: input.user.attributes } : {}) },
      resource:
        e.resourceType === null
          ? null
          : {
              type: e.resourceType,
              id: e.resourceKey ?? '',
              ...(input.resource?.attributes ? { attributes: input.resource.attributes } : {}),
            },
      tenant: e.tenant,
      action: e.action,
      ...(context ? { context } : {}),
    },
  };
}
