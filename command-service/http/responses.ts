import { z } from 'zod';
import { attributeTypes } from '../../shared/events';
import { keySchema } from './validation';
import { PERMIT_ERROR_CODES, PERMIT_FINER_CODES } from './error-codes';

/**
 * What the API answers, as zod schemas: each route declares its success body
 * with one of these (`route(..., { response })`), `/openapi.json` renders them
 * (each `id` becomes a `components/schemas` entry referenced with `$ref`), and
 * the tests validate real answers against them. Objects are strict: a field
 * the server sends must be declared here, so an internal field that leaks
 * (read models keep theirs prefixed `_`) fails the tests and the fuzzer.
 *
 * Shapes follow Permit's v2 read models (`*-read.d.ts` in the `permitio` package).
 */

const id = z.uuid();
const timestamp = z.iso.datetime();
/** When an assignment or a tuple ends (docs/expiring-access.md); null: never. */
const expiresAt = timestamp.nullable().describe('When the access ends (UTC); null: never');
/** A free-form JSON object as it was stored (attributes, settings, jwks). */
const json = z.record(z.string(), z.unknown());
const count = z.number().int().min(0);

const envScoped = {
  id,
  organization_id: id,
  project_id: id,
  environment_id: id,
  created_at: timestamp,
  updated_at: timestamp,
};

/** The error object of every refused request but a 422, and of a failed task. */
export const errorSchema = z
  .strictObject({
    id: z.string().describe('Names this occurrence (the task id for a failed task); quoted in the server log for a 5xx'),
    error_code: z
      .enum([...PERMIT_ERROR_CODES] as [string, ...string[]])
      .describe("A member of Permit's ErrorCode enum (its SDKs parse it against that enum)"),
    reason: z
      .enum(PERMIT_FINER_CODES)
      .optional()
      .describe('Our finer code where Permit has none (the status says as much): sent with INVALID_INPUT or UNEXPECTED_ERROR'),
    title: z.string(),
    message: z.string().describe('What went wrong, naming the object or field'),
    support_link: z.string(),
    additional_info: json.optional(),
  })
  .meta({ id: 'Error', description: "The error object (Permit's): every refused request but a 422 answers with it" });

/** Permit's 422: what is wrong with the body or query, field by field. */
export const validationErrorSchema = z
  .strictObject({
    detail: z.array(
      z.strictObject({
        loc: z.array(z.union([z.string(), z.number().int()])).describe("Where: ['body' | 'query', …path to the field]"),
        msg: z.string(),
        type: z.string(),
      }),
    ),
  })
  .meta({ id: 'ValidationError', description: 'An invalid body or query: one entry per problem' });

export const projectSchema = z
  .strictObject({
    id,
    key: keySchema,
    organization_id: id,
    name: z.string(),
    description: z.string().nullable(),
    urn_namespace: z.string().nullable(),
    settings: json,
    active_policy_repo_id: z.string().nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Project' });

export const environmentSchema = z
  .strictObject({
    id,
    key: keySchema,
    organization_id: id,
    project_id: id,
    name: z.string(),
    description: z.string().nullable(),
    custom_branch_name: z.string().nullable(),
    jwks: json,
    settings: json,
    avp_policy_store_id: z.string().nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Environment' });

export const environmentStatsSchema = environmentSchema
  .extend({
    pdp_configs: z.array(json).describe('Always empty: no PDP configurations exist here'),
    stats: z.strictObject({
      roles: count,
      users: count,
      policies: count,
      resources: count,
      tenants: count,
      has_decision_logs: z.boolean(),
      members: z.array(json).describe('Always empty: members are not served'),
      mau: count.describe('Monthly active users: not measured here, always 0'),
    }),
  })
  .meta({ id: 'EnvironmentStats' });

const apiKeyFields = {
  id,
  organization_id: id,
  project_id: id.nullable(),
  environment_id: id.nullable(),
  object_type: z.enum(['org', 'project', 'env']).describe('The scope: the organisation, one project, or one environment'),
  access_level: z.enum(['admin', 'write', 'read']),
  owner_type: z.enum(['pdp_config', 'member', 'elements']),
  name: z.string(),
  created_at: timestamp,
};
export const apiKeySchema = z.strictObject(apiKeyFields).meta({ id: 'ApiKey', description: 'An API key (never its secret)' });
export const apiKeyCreatedSchema = z
  .strictObject({ ...apiKeyFields, secret: z.string().describe('The key itself, for `Authorization: Bearer`; shown only here') })
  .meta({ id: 'ApiKeyCreated' });
export const apiKeyPageSchema = z
  .strictObject({ data: z.array(apiKeySchema), total_count: count, page_count: count })
  .meta({ id: 'ApiKeyPage', description: 'A page of API keys: they are always listed with their count' });
export const apiKeyScopeSchema = z
  .strictObject({ organization_id: id, project_id: id.optional(), environment_id: id.optional() })
  .meta({ id: 'ApiKeyScope', description: "The calling key's scope: a project and environment only for keys bound to them" });

/** null when none was given (objects created before descriptions could be null may hold ''). */
const description = z.string().nullable();
const attributeType = z.enum(attributeTypes);
const action = z.strictObject({ id, key: keySchema, name: z.string(), description });
const attributeBlock = z.strictObject({ id, key: z.string(), type: attributeType, description });
export const resourceSchema = z
  .strictObject({
    ...envScoped,
    key: keySchema,
    name: z.string(),
    description,
    urn: z.string().nullable(),
    actions: z.record(z.string(), action),
    attributes: z.record(z.string(), attributeBlock),
    /** The resource's roles by key (ResourceRoleRead), as Permit's ResourceRead has them. */
    get roles() {
      return z.record(z.string(), resourceRoleSchema);
    },
    relations: z.record(z.string(), z.strictObject({ resource_id: id, resource: keySchema })),
    action_groups: z.record(z.string(), z.array(z.string())),
  })
  .meta({ id: 'Resource', description: 'A resource type with its actions, attributes, roles and relations' });

const resourcePart = { ...envScoped, resource_id: id };
export const resourceActionSchema = z
  .strictObject({ ...resourcePart, key: keySchema, name: z.string(), description, permission_name: z.string() })
  .meta({ id: 'ResourceAction', description: 'An action of a resource type; `permission_name` is `resource:action`' });
export const resourceAttributeSchema = z
  .strictObject({ ...resourcePart, key: z.string(), type: attributeType, description, resource_key: keySchema, built_in: z.boolean() })
  .meta({ id: 'ResourceAttribute', description: 'An attribute of a resource type (or of users)' });
export const resourceActionGroupSchema = z
  .strictObject({ ...resourcePart, key: keySchema, name: z.string(), description, actions: z.array(z.string()) })
  .meta({ id: 'ResourceActionGroup', description: 'A named group of actions of a resource type' });

export const derivedRoleRuleSchema = z
  .strictObject({
    role_id: id,
    resource_id: id,
    relation_id: id,
    role: keySchema,
    on_resource: keySchema,
    linked_by_relation: keySchema,
  })
  .meta({
    id: 'DerivedRoleRule',
    description: 'A role derivation: holders of `role` on `on_resource` get this role through `linked_by_relation`',
  });

const roleFields = {
  ...envScoped,
  key: keySchema,
  name: z.string(),
  description,
  permissions: z.array(z.string()),
  attributes: json,
  extends: z.array(z.string()),
  granted_to: z.strictObject({ id, users_with_role: z.array(derivedRoleRuleSchema), when: json }),
};
export const roleSchema = z
  .strictObject(roleFields)
  .meta({ id: 'Role', description: 'A top-level (tenant) role; its permissions are `resource:action`' });
export const resourceRoleSchema = z
  .strictObject({ ...roleFields, resource: keySchema, resource_id: id })
  .meta({ id: 'ResourceRole', description: "A role of a resource type; its permissions are that type's actions" });

export const relationSchema = z
  .strictObject({
    ...envScoped,
    key: keySchema,
    name: z.string(),
    description,
    subject_resource: keySchema,
    subject_resource_id: id,
    object_resource: keySchema,
    object_resource_id: id,
  })
  .meta({ id: 'Relation' });

export const tenantSchema = z
  .strictObject({
    ...envScoped,
    key: keySchema,
    name: z.string(),
    description,
    attributes: json,
    last_action_at: timestamp,
  })
  .meta({ id: 'Tenant' });

export const userSchema = z
  .strictObject({
    ...envScoped,
    key: z.string(),
    email: z.string().nullable(),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    attributes: json,
    roles: z.array(z.strictObject({ role: keySchema, tenant: keySchema })).describe('Top-level roles, per tenant'),
    associated_tenants: z
      .array(z.strictObject({ tenant: keySchema, roles: z.array(keySchema), status: z.literal('active') }))
      .optional()
      .describe('The top-level roles grouped by tenant, as Permit answers them (absent on users last written before it was kept)'),
  })
  .meta({ id: 'User' });

export const instanceSchema = z
  .strictObject({
    ...envScoped,
    key: keySchema,
    resource: keySchema,
    resource_id: id,
    tenant: keySchema,
    tenant_id: id,
    attributes: json,
  })
  .meta({ id: 'ResourceInstance' });

export const assignmentSchema = z
  .strictObject({
    id,
    user: z.string(),
    role: keySchema,
    tenant: keySchema,
    resource_instance: z.string().nullable().describe('`type:key`; null for a top-level role in the tenant'),
    resource_instance_id: id.nullable(),
    user_id: id,
    role_id: id,
    tenant_id: id,
    organization_id: id,
    project_id: id,
    environment_id: id,
    created_at: timestamp,
    expires_at: expiresAt,
  })
  .meta({ id: 'RoleAssignment' });

export const tupleSchema = z
  .strictObject({
    ...envScoped,
    subject: z.string().describe('`type:key`'),
    relation: keySchema,
    object: z.string().describe('`type:key`'),
    subject_id: id,
    relation_id: id,
    object_id: id,
    tenant: keySchema,
    tenant_id: id,
    expires_at: expiresAt,
  })
  .meta({ id: 'RelationshipTuple' });

export const taskSchema = z
  .strictObject({
    task_id: id,
    status: z.enum(['processing', 'success', 'failure']),
    result: environmentSchema.nullable().describe('On success: the environment copied into'),
    error: errorSchema.nullable().describe('On failure: why'),
    progress: z.strictObject({ source_events_total: count, source_events_read: count, events_copied: count }),
  })
  .meta({ id: 'Task', description: 'A background task (environment copy)' });

/**
 * A list: a bare array by default, `{data, total_count, page_count}` with
 * `include_total_count=true`.
 */
function listOf(item: z.ZodType, name: string) {
  return z.union([z.array(item), z.strictObject({ data: z.array(item), total_count: count, page_count: count })]).meta({
    id: `${name}List`,
    description: `A page of ${name} objects: an array, or {data, total_count, page_count} with include_total_count=true`,
  });
}
export const projectListSchema = listOf(projectSchema, 'Project');
export const environmentListSchema = listOf(environmentSchema, 'Environment');
export const resourceListSchema = listOf(resourceSchema, 'Resource');
export const roleListSchema = listOf(roleSchema, 'Role');
export const resourceActionListSchema = listOf(resourceActionSchema, 'ResourceAction');
export const resourceAttributeListSchema = listOf(resourceAttributeSchema, 'ResourceAttribute');
export const resourceActionGroupListSchema = listOf(resourceActionGroupSchema, 'ResourceActionGroup');
export const resourceRoleListSchema = listOf(resourceRoleSchema, 'ResourceRole');
export const tenantListSchema = listOf(tenantSchema, 'Tenant');
export const instanceListSchema = listOf(instanceSchema, 'ResourceInstance');
export const assignmentListSchema = listOf(assignmentSchema, 'RoleAssignment');
export const tupleListSchema = listOf(tupleSchema, 'RelationshipTuple');
/** Users are always listed with their count. */
export const userPageSchema = z.strictObject({ data: z.array(userSchema), total_count: count, page_count: count }).meta({ id: 'UserPage' });
/** So are a resource type's relations: Permit answers a page there (`PaginatedResultRelationRead`, which the Python SDK requires). */
export const relationPageSchema = z
  .strictObject({ data: z.array(relationSchema), total_count: count, page_count: count })
  .meta({ id: 'RelationPage' });

/** How many items a bulk write applied (all of them, or it was refused). */
export const bulkCountSchema = (field: string) => z.strictObject({ [field]: count });

const chainStep = z.discriminatedUnion('step', [
  z.strictObject({
    step: z.literal('role_assignment'),
    assignment_id: id,
    user: z.string(),
    role: z.string(),
    resource_instance: z.string(),
    tenant: z.string(),
  }),
  z.strictObject({
    step: z.literal('role_derivation'),
    role: z.string(),
    resource_instance: z.string(),
    from: z.strictObject({ role: z.string(), resource_instance: z.string() }),
    tuple: z.strictObject({ subject: z.string(), relation: z.string(), object: z.string() }),
    rule: z.strictObject({ role: z.string(), on_resource: z.string(), linked_by_relation: z.string() }),
  }),
  z.strictObject({ step: z.literal('missing_support'), grant_id: z.string() }),
]);
const explanationSchema = z
  .strictObject({
    decision: z.enum(['allow', 'deny']),
    summary: z.string(),
    resource: z.strictObject({ type: z.string(), key: z.string().nullable(), tenant: z.string(), instance_found: z.boolean() }),
    granted_by: z.array(
      z.discriminatedUnion('kind', [
        z.strictObject({
          kind: z.literal('resource_role'),
          role: z.string(),
          resource_instance: z.string(),
          permissions: z.array(z.string()),
          chain: z.array(chainStep),
        }),
        z.strictObject({ kind: z.literal('tenant_role'), role: z.string(), tenant: z.string(), permission: z.string(), assignment_id: id }),
        z.strictObject({
          kind: z.literal('set_rule'),
          set_rule: z.string(),
          user_set: z.string(),
          permission: z.string(),
          resource_set: z.string(),
        }),
      ]),
    ),
    roles_held: z.array(
      z.strictObject({ kind: z.enum(['resource_role', 'tenant_role']), role: z.string(), permissions: z.array(z.string()) }),
    ),
    set_rules: z
      .array(
        z.strictObject({
          set_rule: z.string(),
          user_set: z.string(),
          permission: z.string(),
          resource_set: z.string(),
          matched: z.boolean(),
          user_set_matched: z.boolean(),
          resource_set_matched: z.boolean(),
          conditions: z.array(
            z.strictObject({ set: z.string(), condition: z.string(), matched: z.boolean(), reason: z.string().optional() }),
          ),
        }),
      )
      .describe('Every set rule (ABAC) granting the permission, as evaluated: each condition and why it failed'),
  })
  .meta({ id: 'Explanation', description: 'Why a check was allowed or denied (explain=true)' });

export const checkAnswerSchema = z
  .strictObject({ allow: z.boolean(), explanation: explanationSchema.optional() })
  .meta({ id: 'CheckAnswer' });
export const bulkCheckAnswerSchema = z
  .strictObject({ allow: z.array(checkAnswerSchema).describe('One answer per check, in order') })
  .meta({ id: 'BulkCheckAnswer' });

const permissionEntry = z.strictObject({
  permissions: z.array(z.string()).describe('`type:action`'),
  roles: z.array(z.string()),
  resource: z.strictObject({ type: z.string(), key: z.string(), attributes: json }).optional(),
  tenant: z.strictObject({ key: z.string(), attributes: json }).optional(),
});
export const userPermissionsAnswerSchema = z
  .strictObject({
    result: z.strictObject({
      permissions: z.record(z.string(), permissionEntry).describe('Keyed by `type:key` per instance, `__tenant:<key>` per tenant'),
    }),
    next_cursor: z.string().nullable().describe('Send it back as `cursor` for the next page; null on the last page'),
  })
  .meta({ id: 'UserPermissions' });
const tenantDetails = z.strictObject({ key: z.string(), attributes: json });
const allowedTenant = z.strictObject({ allow: z.literal(true), result: z.literal(true), tenant: tenantDetails });
export const allTenantsAnswerSchema = z
  .strictObject({
    allowed_tenants: z.array(allowedTenant).describe("Permit PDP's AllTenantsAuthorizationResult"),
    allowedTenants: z.array(allowedTenant).describe('The same list, under the name Permit’s Node SDK reads'),
  })
  .meta({ id: 'AllTenantsAuthorization' });
export const userTenantsAnswerSchema = z.array(tenantDetails).meta({ id: 'UserTenants' });
export const roleAssignmentsLocalSchema = z
  .array(z.strictObject({ user: z.string(), role: z.string(), tenant: z.string(), resource_instance: z.string().nullable() }))
  .meta({ id: 'LocalRoleAssignments', description: "The PDP's local role assignments" });

/** Permit's AuthorizedUsersResult at the top level, as its PDP answers; `next_cursor` is ours. */
export const authorizedUsersAnswerSchema = z
  .strictObject({
    resource: z.string(),
    tenant: z.string(),
    users: z.record(z.string(), z.array(z.strictObject({ user: z.string(), tenant: z.string(), resource: z.string(), role: z.string() }))),
    next_cursor: z.string().nullable().describe('Send it back as `cursor` for the next page; null on the last page'),
  })
  .meta({ id: 'AuthorizedUsers' });

/** One entry of the audit log (`GET /v2/events/...`): an event in the API's vocabulary, never a secret. */
export const auditEntrySchema = z
  .strictObject({
    position: z.number().int().min(1),
    stream_version: z.number().int().min(0),
    type: z.string(),
    timestamp: z.string(),
    actor: z.strictObject({ type: z.enum(['api_key', 'system', 'task']), id: z.string().nullable(), name: z.string().nullable() }),
    request_id: z.string().nullable(),
    correlation_id: z.string().nullable(),
    causation_id: z.string().nullable(),
    audit_metadata: z.record(z.string(), z.unknown()).nullable(),
    trace_id: z
      .string()
      .regex(/^[0-9a-f]{32}$/)
      .optional()
      .describe('The W3C trace id of the request that wrote the event, when it was traced (docs/tracing.md); absent otherwise'),
    data: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'AuditEntry' });
const grantedBy = explanationSchema.shape.granted_by.element;
const position = z.number().int().min(0).describe('A log position');
/** `POST /allowed/history`: the answer at `since`, then each change until `until` with its cause and the explanation then. */
export const decisionHistoryAnswerSchema = z
  .strictObject({
    user: z.unknown(),
    action: z.string(),
    resource: z.unknown(),
    since: z.strictObject({ position, time: z.string().optional() }),
    until: z.strictObject({ position, time: z.string().optional() }),
    initial: z.strictObject({ position, allow: z.boolean(), explanation: explanationSchema }),
    changes: z.array(
      z.strictObject({
        position,
        time: z.string(),
        allow: z.boolean(),
        decision_changed: z.boolean(),
        roles_gained: z.array(grantedBy),
        roles_lost: z.array(grantedBy),
        event: auditEntrySchema.describe('The event that changed it, as the audit log shows it'),
        cascade_of: z
          .strictObject({ type: z.string(), position, data: z.record(z.string(), z.unknown()) })
          .optional()
          .describe('The delete whose cascade the event was (its data as the audit log shows it)'),
        cause: z.strictObject({
          summary: z.string(),
          links: z.array(
            z.strictObject({
              what: z.enum(['tuple', 'assignment', 'rule', 'permissions', 'role', 'instance']),
              role: z.string(),
              on: z.string(),
              side: z.enum(['gained', 'lost']),
              step: z.number().int().optional(),
              hops_up: z.number().int().optional(),
              from: z
                .strictObject({ role: z.string(), resource_instance: z.string() })
                .optional()
                .describe('In a resource role chain: the role held where the event sits (carried down by a tuple or rule, or assigned)'),
              via: z
                .array(z.strictObject({ relation: z.string(), resource_instance: z.string() }))
                .optional()
                .describe('The tuples from `from` down to the resource: each relation and the instance it leads to'),
            }),
          ),
        }),
        attribute_changes: z
          .array(
            z.strictObject({
              of: z.enum(['user', 'tenant', 'resource']),
              key: z.string().describe('The user or tenant key, or the instance as `type:key`'),
              attribute: z.string().describe('As a condition names it after `user.`, `tenant.` or `resource.`'),
              before: z.unknown().optional().describe('Absent: the attribute was not set before the event'),
              after: z.unknown().optional().describe('Absent: the attribute is not set after the event'),
            }),
          )
          .describe('The attributes the event changed, old → new (set rules read them); empty for other events'),
        explanation: explanationSchema,
      }),
    ),
    evaluated: z.number().int().min(0).describe('How many log positions were evaluated'),
  })
  .meta({ id: 'DecisionHistory' });

export const auditPageSchema = z
  .strictObject({
    data: z.array(auditEntrySchema),
    next_after: z.number().int().nullable().describe('Where the next page starts (`after`); null at the end'),
    head_position: z.number().int().min(0),
  })
  .meta({ id: 'AuditPage' });
/**
 * One server-sent event of an audit stream, as its fields: `id` the position; `data` an AuditEntry as
 * JSON, or `{head_position}` for a `checkpoint` event (an entry has no `event` field).
 */
export const auditStreamMessageSchema = z
  .strictObject({
    id: z.string().regex(/^\d+$/).describe('The position: resume with Last-Event-ID'),
    event: z.enum(['message', 'checkpoint']).optional().describe('`checkpoint`, or none (a message: an entry)'),
    data: z.string().describe('JSON: an AuditEntry, or {head_position} for a checkpoint'),
    retry: z.string().optional(),
  })
  .meta({ id: 'AuditStreamMessage', description: 'text/event-stream: entries, and `checkpoint` events' });

/** Permit's ConditionSetRead (ABAC, docs/abac.md). */
export const conditionSetSchema = z
  .strictObject({
    ...envScoped,
    key: keySchema,
    type: z.enum(['userset', 'resourceset']),
    autogenerated: z.boolean(),
    resource_id: id.nullable(),
    name: z.string(),
    description: z.string(),
    conditions: json,
    parent_id: id.nullable(),
  })
  .meta({ id: 'ConditionSet' });
export const conditionSetListSchema = z.array(conditionSetSchema).meta({ id: 'ConditionSetList' });

/** Permit's MappingRule, as a proxy config's read shows it. */
export const mappingRuleSchema = z
  .strictObject({
    url: z.string(),
    url_type: z.literal('regex').nullable(),
    http_method: z.enum(['get', 'post', 'put', 'patch', 'delete', 'head', 'options']),
    resource: z.string(),
    headers: z.record(z.string(), z.string()),
    action: z.string().nullable(),
    priority: z.number().int().nullable(),
  })
  .meta({ id: 'MappingRule' });

/** Permit's ProxyConfigRead, with `proxied: false`. */
export const proxyConfigSchema = z
  .strictObject({
    ...envScoped,
    key: keySchema,
    name: z.string(),
    auth_mechanism: z.enum(['Bearer', 'Basic', 'Headers']),
    secret: z
      .union([z.string(), z.record(z.string(), z.string())])
      .describe('As it was set, as Permit returns it: a token (Bearer), user:password (Basic), or header values (Headers)'),
    mapping_rules: z.array(mappingRuleSchema),
    proxied: z
      .literal(false)
      .describe('Always false: this service stores proxy configs for Permit-compatible tooling but proxies no request'),
  })
  .meta({ id: 'ProxyConfig' });
export const proxyConfigListSchema = z.array(proxyConfigSchema).meta({ id: 'ProxyConfigList' });

/** Permit's ConditionSetRuleRead: user_set, resource_set are keys; permission is `type:action`. */
export const setRuleSchema = z
  .strictObject({
    ...envScoped,
    key: z.string(),
    user_set: z.string(),
    permission: z.string(),
    resource_set: z.string(),
  })
  .meta({ id: 'SetRule' });
export const setRuleListSchema = z.array(setRuleSchema).meta({ id: 'SetRuleList' });

/** Permit's ElementsUserInviteRead (its key pattern, which allows an e-mail address as a key). */
export const userInviteSchema = z
  .strictObject({
    ...envScoped,
    key: z.string().regex(/^[A-Za-z0-9|@+\-._]+$/),
    status: z.enum(['pending', 'approved']),
    email: z.string(),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    role_id: id,
    tenant_id: id,
    resource_instance_id: id.nullable(),
  })
  .meta({ id: 'UserInvite' });
/** Always a page with its count, as Permit answers (`PaginatedResult_ElementsUserInviteRead_`, which the Python SDK requires). */
export const userInvitePageSchema = z
  .strictObject({ data: z.array(userInviteSchema), total_count: count, page_count: count })
  .meta({ id: 'UserInvitePage' });

// `detailed=true` read shapes (Permit's): the objects a fact names, embedded.
const assignmentDetailedSchema = z
  .strictObject({
    id,
    user: z.strictObject({
      id,
      key: z.string(),
      email: z.string().nullable(),
      first_name: z.string().nullable(),
      last_name: z.string().nullable(),
      attributes: json,
    }),
    role: z.strictObject({ id, key: keySchema, name: z.string(), permissions: z.array(z.string()) }),
    tenant: z.strictObject({ id, key: keySchema, name: z.string(), attributes: json }),
    resource_instance: z.strictObject({ id, key: keySchema, resource: keySchema, attributes: json }).optional(),
    organization_id: id,
    project_id: id,
    environment_id: id,
    created_at: timestamp,
    expires_at: expiresAt,
  })
  .meta({ id: 'RoleAssignmentDetailed' });
export const assignmentDetailedListSchema = listOf(assignmentDetailedSchema, 'RoleAssignmentDetailed');

const instanceBlock = z.strictObject({ key: keySchema, resource: keySchema, tenant: keySchema, attributes: json });
const tupleDetailedSchema = tupleSchema
  .extend({
    subject_details: instanceBlock,
    relation_details: z.strictObject({ key: keySchema, name: z.string(), description: z.string() }),
    object_details: instanceBlock,
    tenant_details: z.strictObject({ key: keySchema, name: z.string(), description: z.string(), attributes: json }),
  })
  .meta({ id: 'RelationshipTupleDetailed' });
export const tupleDetailedListSchema = listOf(tupleDetailedSchema, 'RelationshipTupleDetailed');

const instanceDetailedSchema = instanceSchema
  .extend({ relationships: z.array(tupleSchema).describe('The tuples the instance is the subject or the object of') })
  .meta({ id: 'ResourceInstanceDetailed' });
export const instanceDetailedListSchema = listOf(instanceDetailedSchema, 'ResourceInstanceDetailed');
