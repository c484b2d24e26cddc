import type { DomainEvent, EnvEvent, EventHandlers, OrgEvent, RecordedOf, TaskEvent } from '../../shared/events';
import { dispatch, isEventOf } from '../../shared/events';
import type { DerivationRule, EnvEventOf } from '../../shared/events';
import { attributeDefsOf } from '../../shared/domain/env/attributes';
import { presentAssertion } from '../assertions/api-shape';
import type { CopyAsOf, CopyTarget } from '../../shared/events/task-events';

/**
 * An event's `data` as the audit log shows it: in the API's own vocabulary
 * (snake_case fields, objects named by key, references as `type:key`), never
 * as stored. Each field is chosen, none copied wholesale, so nothing the log
 * keeps for the service alone (an API key's secret hash) can leak, and a new
 * field shows only once it is added here. `id` is the object's own id, as the
 * API returns it beside the key; ids of other objects are named `<what>_id`.
 *
 * One exhaustive map per stream kind: a new event type fails to compile until
 * it says what the log shows of it.
 */
export type PresentedData = Record<string, unknown>;

/** Without the fields an update leaves unchanged (undefined). */
const changed = (data: Record<string, unknown>): PresentedData =>
  Object.fromEntries(Object.entries(data).filter(([, value]) => value !== undefined));

const rule = (r: DerivationRule) => ({ role: r.role, on_resource: r.onResource, linked_by_relation: r.relation });

/** Condition sets and set rules in Permit's field names. */
const conditionSet = (d: EnvEventOf<'ConditionSetCreated' | 'ConditionSetUpdated'>['data']) => ({
  id: d.id,
  key: d.key,
  type: d.type,
  resource: d.resource,
  name: d.name,
  description: d.description,
  parent: d.parent,
  conditions: d.conditions,
});
/** A user invite's definition: its role by key (with its resource type, null for a top-level role), tenant and instance by key. */
const userInvite = (d: EnvEventOf<'UserInviteCreated' | 'UserInviteUpdated'>['data']) => ({
  id: d.id,
  key: d.key,
  email: d.email,
  first_name: d.firstName,
  last_name: d.lastName,
  role: d.role,
  resource: d.roleResource,
  tenant: d.tenant,
  resource_instance: d.resourceInstance,
});
const setRule = (d: EnvEventOf<'SetRuleCreated'>['data']) => ({
  id: d.id,
  key: d.key,
  user_set: d.userSet,
  is_role: d.userSetIsRole,
  permission: d.permission,
  resource_set: d.resourceSet,
  is_resource: d.resourceSetIsResource,
});

/** A proxy config without its secret: the log tells that one was set, never what it is. */
const proxyConfig = (d: EnvEventOf<'ProxyConfigCreated' | 'ProxyConfigUpdated'>['data']) => ({
  id: d.id,
  key: d.key,
  name: d.name,
  auth_mechanism: d.authMechanism,
  mapping_rules: d.mappingRules.map((r) => ({
    url: r.url,
    url_type: r.urlType,
    http_method: r.httpMethod,
    resource: r.resource,
    headers: r.headers,
    action: r.action,
    priority: r.priority,
  })),
});

export const envEventPresenters: EventHandlers<EnvEvent, void, PresentedData> = {
  ResourceCreated: (_, { data: d }) => ({
    id: d.id,
    key: d.key,
    name: d.name,
    description: d.description,
    urn: d.urn ?? null,
    actions: Object.fromEntries(d.actions.map((a) => [a.key, { name: a.name, description: a.description }])),
    attributes: Object.fromEntries(attributeDefsOf(d.id, d.attributes).map((a) => [a.key, { type: a.type, description: a.description }])),
  }),
  ResourceDeleted: (_, { data: d }) => ({ id: d.id, key: d.key }),
  // Updates show the fields they change only.
  ResourceUpdated: (_, { data: d }) => changed({ id: d.id, key: d.key, name: d.name, description: d.description, urn: d.urn }),
  ActionCreated: (_, { data: d }) => ({ id: d.id, key: d.key, resource: d.resource, name: d.name, description: d.description }),
  ActionUpdated: (_, { data: d }) => changed({ id: d.id, key: d.key, resource: d.resource, name: d.name, description: d.description }),
  ActionDeleted: (_, { data: d }) => ({ id: d.id, key: d.key, resource: d.resource }),
  AttributeCreated: (_, { data: d }) => ({ id: d.id, key: d.key, resource: d.resource, type: d.type, description: d.description }),
  AttributeUpdated: (_, { data: d }) => changed({ id: d.id, key: d.key, resource: d.resource, type: d.type, description: d.description }),
  AttributeDeleted: (_, { data: d }) => ({ id: d.id, key: d.key, resource: d.resource }),
  ActionGroupCreated: (_, { data: d }) => ({
    id: d.id,
    key: d.key,
    resource: d.resource,
    name: d.name,
    description: d.description,
    actions: d.actions,
  }),
  ActionGroupUpdated: (_, { data: d }) =>
    changed({ id: d.id, key: d.key, resource: d.resource, name: d.name, description: d.description, actions: d.actions }),
  ActionGroupDeleted: (_, { data: d }) => ({ id: d.id, key: d.key, resource: d.resource }),
  RoleCreated: (_, { data: d }) => ({
    id: d.id,
    key: d.key,
    resource: d.resource,
    name: d.name,
    description: d.description,
    permissions: d.permissions,
    attributes: d.attributes,
  }),
  RoleUpdated: (_, { data: d }) => ({
    id: d.id,
    key: d.key,
    resource: d.resource,
    name: d.name,
    description: d.description,
    permissions: d.permissions,
  }),
  RoleDerivationsReplaced: (_, { data: d }) => ({
    id: d.id,
    key: d.key,
    resource: d.resource,
    granted_to: { users_with_role: d.rules.map(rule) },
  }),
  ImplicitGrantAdded: (_, { data: d }) => ({ id: d.id, key: d.key, resource: d.resource, implicit_grant: rule(d.rule) }),
  ImplicitGrantRemoved: (_, { data: d }) => ({ id: d.id, key: d.key, resource: d.resource, implicit_grant: rule(d.rule) }),
  RoleExtendsReplaced: (_, { data: d }) => ({ id: d.id, key: d.key, resource: d.resource, extends: d.extends }),
  RoleDerivationConditionsSet: (_, { data: d }) => ({
    id: d.id,
    key: d.key,
    resource: d.resource,
    granted_to: { when: { no_direct_roles_on_object: d.noDirectRolesOnObject } },
  }),
  RoleDeleted: (_, { data: d }) => ({ id: d.id, key: d.key, resource: d.resource }),
  RelationCreated: (_, { data: d }) => ({
    id: d.id,
    key: d.key,
    name: d.name,
    description: d.description,
    object_resource: d.objectResource,
    subject_resource: d.subjectResource,
  }),
  RelationDeleted: (_, { data: d }) => ({
    id: d.id,
    key: d.key,
    object_resource: d.objectResource,
    subject_resource: d.subjectResource,
  }),
  TenantCreated: (_, { data: d }) => ({ id: d.id, key: d.key, name: d.name, description: d.description, attributes: d.attributes }),
  /** Only the fields the update changed. */
  TenantUpdated: (_, { data: d }) => ({ id: d.id, key: d.key, name: d.name, description: d.description, attributes: d.attributes }),
  TenantDeleted: (_, { data: d }) => ({ id: d.id, key: d.key }),
  UserCreated: (_, { data: d }) => ({
    id: d.id,
    key: d.key,
    email: d.email,
    first_name: d.firstName,
    last_name: d.lastName,
    attributes: d.attributes,
  }),
  /** Only the fields the update changed. */
  UserUpdated: (_, { data: d }) => ({
    id: d.id,
    key: d.key,
    email: d.email,
    first_name: d.firstName,
    last_name: d.lastName,
    attributes: d.attributes,
  }),
  UserDeleted: (_, { data: d }) => ({ id: d.id, key: d.key }),
  ResourceInstanceUpdated: (_, { data: d }) => ({ id: d.id, key: d.key, resource: d.resource, tenant: d.tenant, attributes: d.attributes }),
  ResourceInstanceCreated: (_, { data: d }) => ({ id: d.id, key: d.key, resource: d.resource, tenant: d.tenant, attributes: d.attributes }),
  ResourceInstanceDeleted: (_, { data: d }) => ({ id: d.id, key: d.key, resource: d.resource, tenant: d.tenant }),
  RoleAssigned: (_, { data: d }) => ({ ...assignment(d), expires_at: d.expiresAt ?? null }),
  RoleUnassigned: (_, { data: d }) => assignment(d),
  RoleAssignmentExpirySet: (_, { data: d }) => ({ ...assignment(d), expires_at: d.expiresAt }),
  RoleAssignmentExpired: (_, { data: d }) => ({ ...assignment(d), expires_at: d.expiresAt }),
  RelationshipTupleCreated: (_, { data: d }) => ({ ...tuple(d), expires_at: d.expiresAt ?? null }),
  RelationshipTupleDeleted: (_, { data: d }) => tuple(d),
  RelationshipTupleExpirySet: (_, { data: d }) => ({ ...tuple(d), expires_at: d.expiresAt }),
  RelationshipTupleExpired: (_, { data: d }) => ({ ...tuple(d), expires_at: d.expiresAt }),
  ConditionSetCreated: (_, { data: d }) => conditionSet(d),
  ConditionSetUpdated: (_, { data: d }) => conditionSet(d),
  ConditionSetDeleted: (_, { data: d }) => ({ id: d.id, key: d.key, type: d.type, resource: d.resource }),
  SetRuleCreated: (_, { data: d }) => setRule(d),
  SetRuleDeleted: (_, { data: d }) => setRule(d),
  ProxyConfigCreated: (_, { data: d }) => proxyConfig(d),
  ProxyConfigUpdated: (_, { data: d }) => proxyConfig(d),
  ProxyConfigDeleted: (_, { data: d }) => ({ id: d.id, key: d.key }),
  UserInviteCreated: (_, { data: d }) => userInvite(d),
  UserInviteUpdated: (_, { data: d }) => userInvite(d),
  /** `user`: the key of the user the approval made or updated. */
  UserInviteApproved: (_, { data: d }) => ({ id: d.id, key: d.key, user: d.user }),
  UserInviteDeleted: (_, { data: d }) => ({ id: d.id, key: d.key }),
  AssertionSaved: (_, { data: d }) => presentAssertion(d),
  AssertionDeleted: (_, { data: d }) => ({ id: d.id }),
};

const objectTypes = { organization: 'org', project: 'project', environment: 'env' } as const;

export const orgEventPresenters: EventHandlers<OrgEvent, void, PresentedData> = {
  OrganizationCreated: (_, { data: d }) => ({ id: d.id, key: d.key, name: d.name }),
  ProjectCreated: (_, { data: d }) => ({ id: d.id, key: d.key, name: d.name, description: d.description }),
  EnvironmentCreated: (_, { data: d }) => ({
    id: d.id,
    key: d.key,
    project_id: d.projectId,
    name: d.name,
    description: d.description,
    custom_branch_name: d.customBranchName,
    jwks: d.jwks,
    settings: d.settings,
    copied_from_task_id: d.copiedFromTaskId ?? null,
  }),
  // The secret's hash stays out: only what GET /v2/api-key would show.
  ApiKeyCreated: (_, { data: d }) => ({
    id: d.id,
    name: d.name,
    object_type: objectTypes[d.scope.level],
    project_id: d.scope.projectId,
    environment_id: d.scope.environmentId,
    access_level: d.accessLevel ?? 'admin',
  }),
  // Never the secret's hash: which key changed is what the log tells.
  ApiKeyDeleted: (_, { data: d }) => ({ id: d.id }),
  ApiKeySecretRotated: (_, { data: d }) => ({ id: d.id }),
  ProjectUpdated: (_, { data: d }) => ({ ...d }),
  ProjectDeleted: (_, { data: d }) => ({ id: d.id }),
  EnvironmentUpdated: (_, { data: { customBranchName, ...d } }) => ({
    ...d,
    ...(customBranchName !== undefined ? { custom_branch_name: customBranchName } : {}),
  }),
  EnvironmentDeleted: (_, { data: d }) => ({ id: d.id }),
};

const target = (t: CopyTarget) =>
  t.kind === 'new'
    ? {
        new: {
          key: t.key,
          name: t.name,
          description: t.description,
          custom_branch_name: t.customBranchName,
          jwks: t.jwks,
          settings: t.settings,
        },
        environment_id: t.environmentId,
      }
    : { existing: t.ref, environment_id: t.environmentId, conflict_strategy: t.conflictStrategy };

const asOf = (a: CopyAsOf) => (a === null ? null : 'position' in a ? a.position : a.time);

export const taskEventPresenters: EventHandlers<TaskEvent, void, PresentedData> = {
  EnvironmentCopyRequested: (_, { data: d }) => ({
    task_id: d.taskId,
    project_id: d.projectId,
    source_env: { ref: d.source.ref, environment_id: d.source.environmentId },
    target_env: target(d.target),
    scope: d.scope,
    as_of: asOf(d.asOf),
    source_events_total: d.sourceEventsTotal,
  }),
  TaskStarted: (_, { data: d }) => ({ task_id: d.taskId, attempt: d.attempt }),
  TaskProgressed: (_, { data: d }) => ({
    task_id: d.taskId,
    attempt: d.attempt,
    source_events_read: d.sourceEventsRead,
    events_copied: d.eventsCopied,
  }),
  TaskSucceeded: (_, { data: d }) => ({
    task_id: d.taskId,
    attempt: d.attempt,
    environment_id: d.environmentId,
    source_events_read: d.sourceEventsRead,
    events_copied: d.eventsCopied,
  }),
  TaskFailed: (_, { data: d }) => ({
    task_id: d.taskId,
    attempt: d.attempt,
    error: { code: d.error.code, title: d.error.title, message: d.error.message, additional_info: d.error.additionalInfo ?? null },
  }),
};

/** The data of any event the catalogue declares; an unknown type shows none. */
export function presentEventData(event: RecordedOf<DomainEvent>): PresentedData {
  if (isEventOf('env', event)) return dispatch(envEventPresenters, event.type, undefined, event) ?? {};
  if (isEventOf('org', event)) return dispatch(orgEventPresenters, event.type, undefined, event) ?? {};
  if (isEventOf('task', event)) return dispatch(taskEventPresenters, event.type, undefined, event) ?? {};
  return {};
}

function assignment(d: { id: string; user: string; role: string; tenant: string; resourceInstance: string | null }) {
  return { id: d.id, user: d.user, role: d.role, tenant: d.tenant, resource_instance: d.resourceInstance };
}

function tuple(d: { id: string; subject: string; relation: string; object: string; tenant: string }) {
  return { id: d.id, subject: d.subject, relation: d.relation, object: d.object, tenant: d.tenant };
}
