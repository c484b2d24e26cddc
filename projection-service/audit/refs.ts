import type { EnvEvent, EventHandlers, OrgEvent, TaskEvent } from '../../shared/events';
import type { DerivationRule } from '../../shared/events';
import type { AuditDimension } from '../../shared/read-models/audit-log';

/**
 * What an event names, by the audit filter that finds it: the values of
 * `user`, `resource_instance` (`type:key`: an instance created or deleted, a
 * tuple's subject and object, an assignment's instance), `resource` (a type),
 * `role`, `relation` and `tenant`. One exhaustive map per stream kind, so a new
 * event type fails to compile until it says what it names.
 */
export type AuditRefs = Partial<
  Record<Exclude<AuditDimension, 'type' | 'actor_type' | 'actor_id' | 'request_id' | 'correlation_id'>, string[]>
>;

const none = (): AuditRefs => ({});

const typeOf = (ref: string): string => {
  const colon = ref.indexOf(':');
  return colon < 0 ? ref : ref.slice(0, colon);
};

/** A role event: the role, its resource type (none for a top-level role), and what its derivation rules name. */
const roleRefs = (data: { key: string; resource: string | null }, rules: DerivationRule[] = []): AuditRefs => ({
  role: [data.key, ...rules.map((r) => r.role)],
  resource: [...(data.resource === null ? [] : [data.resource]), ...rules.map((r) => r.onResource)],
  relation: rules.map((r) => r.relation),
});

/** A user invite names its role (and the role's resource type), tenant and instance. */
const inviteRefs = (d: { role: string; roleResource: string | null; tenant: string; resourceInstance: string | null }): AuditRefs => ({
  role: [d.role],
  tenant: [d.tenant],
  resource: d.roleResource === null ? [] : [d.roleResource],
  resource_instance: d.resourceInstance === null ? [] : [d.resourceInstance],
});

type AssignmentEvent = EnvEvent & { type: 'RoleAssigned' | 'RoleUnassigned' | 'RoleAssignmentExpirySet' | 'RoleAssignmentExpired' };
type TupleEvent = EnvEvent & {
  type: 'RelationshipTupleCreated' | 'RelationshipTupleDeleted' | 'RelationshipTupleExpirySet' | 'RelationshipTupleExpired';
};

const assignmentRefs = (d: AssignmentEvent): AuditRefs => ({
  user: [d.data.user],
  role: [d.data.role],
  tenant: [d.data.tenant],
  resource: d.data.resource === null ? [] : [d.data.resource],
  resource_instance: d.data.resourceInstance === null ? [] : [d.data.resourceInstance],
});

const tupleRefs = (d: TupleEvent): AuditRefs => ({
  resource_instance: [d.data.subject, d.data.object],
  resource: [typeOf(d.data.subject), typeOf(d.data.object)],
  relation: [d.data.relation],
  tenant: [d.data.tenant],
});

const instanceRefs = (
  d: EnvEvent & { type: 'ResourceInstanceCreated' | 'ResourceInstanceUpdated' | 'ResourceInstanceDeleted' },
): AuditRefs => ({
  resource_instance: [`${d.data.resource}:${d.data.key}`],
  resource: [d.data.resource],
  tenant: [d.data.tenant],
});

/** A set rule names its permission's resource type, and the role it grants to when its user set is one. */
const setRuleRefs = (d: { userSet: string; userSetIsRole: boolean; permission: string }): AuditRefs => ({
  resource: [typeOf(d.permission)],
  role: d.userSetIsRole ? [d.userSet] : [],
});

export const envAuditRefs: EventHandlers<EnvEvent, void, AuditRefs> = {
  ResourceCreated: (_, { data }) => ({ resource: [data.key] }),
  ResourceDeleted: (_, { data }) => ({ resource: [data.key] }),
  ResourceUpdated: (_, { data }) => ({ resource: [data.key] }),
  ActionCreated: (_, { data }) => ({ resource: [data.resource] }),
  ActionUpdated: (_, { data }) => ({ resource: [data.resource] }),
  ActionDeleted: (_, { data }) => ({ resource: [data.resource] }),
  AttributeCreated: (_, { data }) => ({ resource: [data.resource] }),
  AttributeUpdated: (_, { data }) => ({ resource: [data.resource] }),
  AttributeDeleted: (_, { data }) => ({ resource: [data.resource] }),
  ActionGroupCreated: (_, { data }) => ({ resource: [data.resource] }),
  ActionGroupUpdated: (_, { data }) => ({ resource: [data.resource] }),
  ActionGroupDeleted: (_, { data }) => ({ resource: [data.resource] }),
  RoleCreated: (_, { data }) => roleRefs(data),
  RoleUpdated: (_, { data }) => roleRefs(data),
  RoleDerivationsReplaced: (_, { data }) => roleRefs(data, data.rules),
  ImplicitGrantAdded: (_, { data }) => roleRefs(data, [data.rule]),
  ImplicitGrantRemoved: (_, { data }) => roleRefs(data, [data.rule]),
  RoleExtendsReplaced: (_, { data }) => ({ ...roleRefs(data), role: [data.key, ...data.extends] }),
  RoleDerivationConditionsSet: (_, { data }) => roleRefs(data),
  RoleDeleted: (_, { data }) => roleRefs(data),
  RelationCreated: (_, { data }) => ({ relation: [data.key], resource: [data.objectResource, data.subjectResource] }),
  RelationDeleted: (_, { data }) => ({ relation: [data.key], resource: [data.objectResource, data.subjectResource] }),
  TenantCreated: (_, { data }) => ({ tenant: [data.key] }),
  TenantUpdated: (_, { data }) => ({ tenant: [data.key] }),
  TenantDeleted: (_, { data }) => ({ tenant: [data.key] }),
  UserCreated: (_, { data }) => ({ user: [data.key] }),
  UserUpdated: (_, { data }) => ({ user: [data.key] }),
  UserDeleted: (_, { data }) => ({ user: [data.key] }),
  ResourceInstanceCreated: (_, event) => instanceRefs(event),
  ResourceInstanceUpdated: (_, event) => instanceRefs(event),
  ResourceInstanceDeleted: (_, event) => instanceRefs(event),
  RoleAssigned: (_, event) => assignmentRefs(event),
  RoleUnassigned: (_, event) => assignmentRefs(event),
  RoleAssignmentExpirySet: (_, event) => assignmentRefs(event),
  RoleAssignmentExpired: (_, event) => assignmentRefs(event),
  RelationshipTupleCreated: (_, event) => tupleRefs(event),
  RelationshipTupleDeleted: (_, event) => tupleRefs(event),
  RelationshipTupleExpirySet: (_, event) => tupleRefs(event),
  RelationshipTupleExpired: (_, event) => tupleRefs(event),
  ConditionSetCreated: (_, { data }) => ({ resource: data.resource === null ? [] : [data.resource] }),
  ConditionSetUpdated: (_, { data }) => ({ resource: data.resource === null ? [] : [data.resource] }),
  ConditionSetDeleted: (_, { data }) => ({ resource: data.resource === null ? [] : [data.resource] }),
  SetRuleCreated: (_, { data }) => setRuleRefs(data),
  SetRuleDeleted: (_, { data }) => setRuleRefs(data),
  // The resource types its mapping rules name (found by `resource`); a deletion names none.
  ProxyConfigCreated: (_, { data }) => ({ resource: [...new Set(data.mappingRules.map((r) => r.resource))] }),
  ProxyConfigUpdated: (_, { data }) => ({ resource: [...new Set(data.mappingRules.map((r) => r.resource))] }),
  ProxyConfigDeleted: () => ({}),
  UserInviteCreated: (_, { data }) => inviteRefs(data),
  UserInviteUpdated: (_, { data }) => inviteRefs(data),
  UserInviteApproved: (_, { data }) => ({ user: [data.user] }),
  UserInviteDeleted: none,
  // Tests of the policy: found by type (and actor, request…), not as changes of the user or resource they name.
  AssertionSaved: none,
  AssertionDeleted: none,
};

/** Organisation and task events are found by type, actor, request and audit metadata only. */
export const orgAuditRefs: EventHandlers<OrgEvent, void, AuditRefs> = {
  OrganizationCreated: none,
  ProjectCreated: none,
  EnvironmentCreated: none,
  ApiKeyCreated: none,
  ApiKeyDeleted: none,
  ApiKeySecretRotated: none,
  ProjectUpdated: none,
  ProjectDeleted: none,
  EnvironmentUpdated: none,
  EnvironmentDeleted: none,
};

export const taskAuditRefs: EventHandlers<TaskEvent, void, AuditRefs> = {
  EnvironmentCopyRequested: none,
  TaskStarted: none,
  TaskProgressed: none,
  TaskSucceeded: none,
  TaskFailed: none,
};
