import type { EnvEvent } from '../../shared/events';
import type { DerivationRule } from '../../shared/events/env-events';

/**
 * What a copy takes from the source. The policy (resource types, actions,
 * roles, relations, derivations) always, as Permit does; the directory data
 * (tenants, users, instances, assignments, tuples) with `scope.facts`.
 * Facts events only ever reference policy objects, never the reverse, so
 * dropping every facts event from a valid stream leaves a valid stream.
 */

/** Which part of an environment each event type belongs to; keyed by every type, so a new one must be placed. */
export const copyPartOf: { readonly [T in EnvEvent['type']]: 'policy' | 'facts' } = {
  ResourceCreated: 'policy',
  ResourceDeleted: 'policy',
  ResourceUpdated: 'policy',
  ActionCreated: 'policy',
  ActionUpdated: 'policy',
  ActionDeleted: 'policy',
  AttributeCreated: 'policy',
  AttributeUpdated: 'policy',
  AttributeDeleted: 'policy',
  ActionGroupCreated: 'policy',
  ActionGroupUpdated: 'policy',
  ActionGroupDeleted: 'policy',
  RoleCreated: 'policy',
  RoleUpdated: 'policy',
  RoleDerivationsReplaced: 'policy',
  ImplicitGrantAdded: 'policy',
  ImplicitGrantRemoved: 'policy',
  RoleExtendsReplaced: 'policy',
  RoleDerivationConditionsSet: 'policy',
  RoleDeleted: 'policy',
  RelationCreated: 'policy',
  RelationDeleted: 'policy',
  TenantCreated: 'facts',
  TenantUpdated: 'facts',
  TenantDeleted: 'facts',
  UserCreated: 'facts',
  UserUpdated: 'facts',
  UserDeleted: 'facts',
  ResourceInstanceCreated: 'facts',
  ResourceInstanceUpdated: 'facts',
  ResourceInstanceDeleted: 'facts',
  RoleAssigned: 'facts',
  RoleUnassigned: 'facts',
  RoleAssignmentExpirySet: 'facts',
  RoleAssignmentExpired: 'facts',
  RelationshipTupleCreated: 'facts',
  RelationshipTupleDeleted: 'facts',
  RelationshipTupleExpirySet: 'facts',
  RelationshipTupleExpired: 'facts',
  // Permit copies user sets and resource sets with the policy; set rules reference only policy objects.
  ConditionSetCreated: 'policy',
  ConditionSetUpdated: 'policy',
  ConditionSetDeleted: 'policy',
  SetRuleCreated: 'policy',
  SetRuleDeleted: 'policy',
  // Proxy configs reference nothing by id; Permit keeps them with the environment's configuration.
  ProxyConfigCreated: 'policy',
  ProxyConfigUpdated: 'policy',
  ProxyConfigDeleted: 'policy',
  // User invites name tenants and instances: facts (their approval's user and assignment are).
  UserInviteCreated: 'facts',
  UserInviteUpdated: 'facts',
  UserInviteApproved: 'facts',
  UserInviteDeleted: 'facts',
  // Tests of the policy: copied with it (docs/assertions.md).
  AssertionSaved: 'policy',
  AssertionDeleted: 'policy',
};

/** By any type string (events of other kinds have no part), for the copy's filter. */
const partOfType: ReadonlyMap<string, 'policy' | 'facts'> = new Map(Object.entries(copyPartOf));

/** Permit's EnvironmentCopyScopeFilters: keys to take (`*` matches any run of characters) and keys to leave. */
export interface CopyFilter {
  include?: string[];
  exclude?: string[];
}

export interface CopyScope {
  facts: boolean;
  /** Resource types by key. Absent: all. */
  resources?: CopyFilter;
  /** Roles (tenant roles and resource roles) by key. Absent: all. */
  roles?: CopyFilter;
  /** User sets and resource sets (condition sets) by key. Absent: all. */
  userSets?: CopyFilter;
  resourceSets?: CopyFilter;
}

export function inScope(type: string, scope: CopyScope): boolean {
  const part = partOfType.get(type);
  return part === 'policy' || (scope.facts && part === 'facts');
}

export const isFactsEvent = (type: string): boolean => partOfType.get(type) === 'facts';

const patternOf = (glob: string) => new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);

/**
 * Whether a key passes a filter: it matches an `include` pattern (an absent or
 * empty `include` takes every key, as a copy without a scope does) and no
 * `exclude` pattern.
 */
export function passes(filter: CopyFilter | undefined, key: string): boolean {
  if (!filter) return true;
  const matches = (globs: string[]) => globs.some((glob) => patternOf(glob).test(key));
  if (filter.include && filter.include.length > 0 && !matches(filter.include)) return false;
  return !(filter.exclude && matches(filter.exclude));
}

type Data<T extends EnvEvent['type']> = Extract<EnvEvent, { type: T }>['data'];
type Narrowing = { readonly [T in EnvEvent['type']]: (data: Data<T>, keep: Keep) => Data<T> | null };

interface Keep {
  resource(key: string): boolean;
  role(key: string, resource: string | null): boolean;
  /** A `type:key` instance reference (or a `type:action` permission): kept when its type is. */
  typed(ref: string): boolean;
  rule(rule: DerivationRule): boolean;
  /** A condition set by key and type (`resource` null for a user set): kept when its filter and its resource type's pass, and no ancestor was left out. */
  set(key: string, resource: string | null): boolean;
  /** Remembers a set left out (its descendants go with it); null, for the narrowing to return. */
  dropSet(key: string): null;
  /** A user invite by key: kept unless an event of it was left out. */
  invite(key: string): boolean;
  /** Remembers an invite left out (its later events go with it); null, for the narrowing to return. */
  dropInvite(key: string): null;
}

/**
 * The condition sets a scoped copy left out so far, per scope (one per copy
 * request): sets arrive parents first, so a descendant is always decided after
 * its parent. A copy that resumes reads its source from the start again.
 */
const droppedSets = new WeakMap<CopyScope, Set<string>>();
/** As droppedSets, for user invites. */
const droppedInvites = new WeakMap<CopyScope, Set<string>>();

/**
 * What of each event a scoped copy keeps, so that what is copied stays
 * consistent: a resource type left out takes its actions, roles, relations,
 * instances, tuples and the assignments on them with it, and the tenant roles'
 * permissions on it; a role left out takes its assignments and the
 * derivations naming it. Keyed by every type, so a new one must be placed.
 */
const narrowing: Narrowing = {
  ResourceCreated: (d, keep) => (keep.resource(d.key) ? d : null),
  ResourceDeleted: (d, keep) => (keep.resource(d.key) ? d : null),
  ResourceUpdated: (d, keep) => (keep.resource(d.key) ? d : null),
  // Actions, attributes and action groups belong to their resource type: kept with it.
  ActionCreated: (d, keep) => (keep.resource(d.resource) ? d : null),
  ActionUpdated: (d, keep) => (keep.resource(d.resource) ? d : null),
  ActionDeleted: (d, keep) => (keep.resource(d.resource) ? d : null),
  AttributeCreated: (d, keep) => (keep.resource(d.resource) ? d : null),
  AttributeUpdated: (d, keep) => (keep.resource(d.resource) ? d : null),
  AttributeDeleted: (d, keep) => (keep.resource(d.resource) ? d : null),
  ActionGroupCreated: (d, keep) => (keep.resource(d.resource) ? d : null),
  ActionGroupUpdated: (d, keep) => (keep.resource(d.resource) ? d : null),
  ActionGroupDeleted: (d, keep) => (keep.resource(d.resource) ? d : null),
  RoleCreated: (d, keep) => (keep.role(d.key, d.resource) ? { ...d, permissions: permissionsKept(d, keep) } : null),
  RoleUpdated: (d, keep) => (keep.role(d.key, d.resource) ? { ...d, permissions: permissionsKept(d, keep) } : null),
  RoleDerivationsReplaced: (d, keep) => (keep.role(d.key, d.resource) ? { ...d, rules: d.rules.filter((r) => keep.rule(r)) } : null),
  ImplicitGrantAdded: (d, keep) => (keep.role(d.key, d.resource) && keep.rule(d.rule) ? d : null),
  ImplicitGrantRemoved: (d, keep) => (keep.role(d.key, d.resource) && keep.rule(d.rule) ? d : null),
  // A role left out leaves the `extends` of the roles kept.
  RoleExtendsReplaced: (d, keep) =>
    keep.role(d.key, d.resource) ? { ...d, extends: d.extends.filter((parent) => keep.role(parent, d.resource)) } : null,
  RoleDerivationConditionsSet: (d, keep) => (keep.role(d.key, d.resource) ? d : null),
  RoleDeleted: (d, keep) => (keep.role(d.key, d.resource) ? d : null),
  RelationCreated: (d, keep) => (keep.resource(d.objectResource) && keep.resource(d.subjectResource) ? d : null),
  RelationDeleted: (d, keep) => (keep.resource(d.objectResource) && keep.resource(d.subjectResource) ? d : null),
  TenantCreated: (d) => d,
  TenantDeleted: (d) => d,
  TenantUpdated: (d) => d,
  UserCreated: (d) => d,
  UserUpdated: (d) => d,
  UserDeleted: (d) => d,
  ResourceInstanceCreated: (d, keep) => (keep.resource(d.resource) ? d : null),
  ResourceInstanceUpdated: (d, keep) => (keep.resource(d.resource) ? d : null),
  ResourceInstanceDeleted: (d, keep) => (keep.resource(d.resource) ? d : null),
  RoleAssigned: (d, keep) => (keep.role(d.role, d.resource) ? d : null),
  RoleUnassigned: (d, keep) => (keep.role(d.role, d.resource) ? d : null),
  RoleAssignmentExpirySet: (d, keep) => (keep.role(d.role, d.resource) ? d : null),
  RoleAssignmentExpired: (d, keep) => (keep.role(d.role, d.resource) ? d : null),
  RelationshipTupleCreated: (d, keep) => (keep.typed(d.subject) && keep.typed(d.object) ? d : null),
  RelationshipTupleDeleted: (d, keep) => (keep.typed(d.subject) && keep.typed(d.object) ? d : null),
  RelationshipTupleExpirySet: (d, keep) => (keep.typed(d.subject) && keep.typed(d.object) ? d : null),
  RelationshipTupleExpired: (d, keep) => (keep.typed(d.subject) && keep.typed(d.object) ? d : null),
  // A resource set goes with its resource type; a set rule with its permission's type (that of its resource set) or its role.
  // A set left out takes its descendants: one whose parent was left out is left out too.
  ConditionSetCreated: (d, keep) =>
    keep.set(d.key, d.resource) && (d.parent === null || keep.set(d.parent, d.resource)) ? d : keep.dropSet(d.key),
  ConditionSetUpdated: (d, keep) =>
    keep.set(d.key, d.resource) && (d.parent === null || keep.set(d.parent, d.resource)) ? d : keep.dropSet(d.key),
  ConditionSetDeleted: (d, keep) => (keep.set(d.key, d.resource) ? d : null),
  SetRuleCreated: (d, keep) => (setRuleKept(d, keep) ? d : null),
  SetRuleDeleted: (d, keep) => (setRuleKept(d, keep) ? d : null),
  // Taken whole: a mapping rule names its resource type by key as text matched against requests, not as a reference.
  ProxyConfigCreated: (d) => d,
  ProxyConfigUpdated: (d) => d,
  ProxyConfigDeleted: (d) => d,
  // An invite goes with its role (and its instance's type), and its later events with it. An update to a role
  // the copy leaves out leaves the invite out from there on: the target keeps it as it was before that update.
  UserInviteCreated: (d, keep) => (inviteKept(d, keep) ? d : keep.dropInvite(d.key)),
  UserInviteUpdated: (d, keep) => (inviteKept(d, keep) ? d : keep.dropInvite(d.key)),
  UserInviteApproved: (d, keep) => (keep.invite(d.key) ? d : null),
  UserInviteDeleted: (d, keep) => (keep.invite(d.key) ? d : null),
  AssertionSaved: (d) => d,
  AssertionDeleted: (d) => d,
};

function inviteKept(d: Data<'UserInviteCreated'>, keep: Keep): boolean {
  return keep.invite(d.key) && keep.role(d.role, d.roleResource) && (d.resourceInstance === null || keep.typed(d.resourceInstance));
}

/** A set rule is kept with its permission's type, its user set (or role) and its resource set. */
function setRuleKept(d: Data<'SetRuleCreated'>, keep: Keep): boolean {
  const type = d.permission.slice(0, d.permission.indexOf(':'));
  const userSet = d.userSetIsRole ? keep.role(d.userSet, null) : keep.set(d.userSet, null);
  const resourceSet = d.resourceSetIsResource ? keep.resource(d.resourceSet) : keep.set(d.resourceSet, type);
  return keep.typed(d.permission) && userSet && resourceSet;
}

/** A resource role's permissions are its own type's actions; a tenant role's are `type:action`, kept with their type. */
function permissionsKept(d: { resource: string | null; permissions: string[] }, keep: Keep): string[] {
  return d.resource === null ? d.permissions.filter((p) => keep.typed(p)) : d.permissions;
}

/** Whether the scope filters by key (scopedEvent may then narrow an event's data): without filters every event in scope is taken whole. */
export const narrowsEvents = (scope: CopyScope): boolean => Boolean(scope.resources || scope.roles || scope.userSets || scope.resourceSets);

/**
 * The event as a copy with this scope takes it (the data narrowed as above),
 * or null when it takes none of it. Without resource or role filters, the
 * event as it is.
 */
export function scopedEvent<E extends EnvEvent>(event: E, scope: CopyScope): E | null {
  if (!narrowsEvents(scope)) return event;
  const resource = (key: string) => passes(scope.resources, key);
  const dropped = () => {
    let found = droppedSets.get(scope);
    if (!found) droppedSets.set(scope, (found = new Set()));
    return found;
  };
  const keep: Keep = {
    resource,
    role: (key, onResource) => passes(scope.roles, key) && (onResource === null || resource(onResource)),
    typed: (ref) => {
      const colon = ref.indexOf(':');
      return colon < 0 || resource(ref.slice(0, colon));
    },
    rule: (rule) => resource(rule.onResource) && passes(scope.roles, rule.role),
    set: (key, onResource) =>
      !dropped().has(key) && (onResource === null ? passes(scope.userSets, key) : passes(scope.resourceSets, key) && resource(onResource)),
    dropSet: (key) => {
      dropped().add(key);
      return null;
    },
    invite: (key) => !droppedInvites.get(scope)?.has(key),
    dropInvite: (key) => {
      let found = droppedInvites.get(scope);
      if (!found) droppedInvites.set(scope, (found = new Set()));
      found.add(key);
      return null;
    },
  };
  const narrow = narrowing[event.type] as (data: E['data'], keep: Keep) => E['data'] | null;
  const data = narrow(event.data, keep);
  return data === null ? null : { ...event, data };
}
