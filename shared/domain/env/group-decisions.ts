import { DuplicateEntityError, InvalidRequestError, NotFoundError, TenantMismatchError } from '../../errors';
import type { EnvEvent } from '../../events';
import type { EnvCommand } from './commands';
import { deleteInstance, deleteTuple, assignRole, unassignRole } from './facts-decisions';
import { findInstance, findResource, findRole, findTenant, findUser } from './lookup';
import { instanceRef, relationKey, roleKey, ruleEquals, tupleKey, type EnvState, type InstanceState } from './state';

type Cmd<T extends EnvCommand['type']> = Extract<EnvCommand, { type: T }>;

/**
 * Permit's groups (docs/permit-compat.md, "Groups"), on the objects that
 * already exist: a group is an instance of the built-in resource type
 * `__group` (created with the first group, with its one role `member`); a
 * member holds `member` on it; a role R of type T assigned to a group on T:x
 * is a tuple `__group:<group> —__group_<R>→ T:x` and the derivation "members
 * of a group linked by `__group_<R>` get R" on R (relation and derivation made
 * with the first such assignment). So checks, listings, copies and the log
 * treat them as the facts they are, and the grants engine derives R for every
 * member.
 */
export const GROUP_TYPE = '__group';
export const GROUP_MEMBER_ROLE = 'member';
export const groupRelationKey = (role: string) => `${GROUP_TYPE}_${role}`;
export const groupRef = (key: string) => instanceRef(GROUP_TYPE, key);

/** The group `ref` names: its key, `__group:<key>`, or its instance id. */
export function findGroup(s: EnvState, ref: string): InstanceState {
  const instance = s.instances.get(groupRef(ref)) ?? s.instances.get(ref) ?? s.instances.get(s.ids.get(ref) ?? '');
  if (!instance || instance.resource !== GROUP_TYPE) throw new NotFoundError(`Group '${ref}' not found`, { group: ref });
  return instance;
}

export function createGroup(c: Cmd<'CreateGroup'>, s: EnvState): EnvEvent[] {
  const tenant = findTenant(s, c.tenant).key;
  if (s.instances.has(groupRef(c.key))) throw new DuplicateEntityError(`Group '${c.key}' already exists`);
  const events: EnvEvent[] = [];
  if (!s.resources.has(GROUP_TYPE)) {
    events.push({
      type: 'ResourceCreated',
      data: { id: c.typeId, key: GROUP_TYPE, name: 'Group', description: 'Groups (built in)', urn: null, actions: [], attributes: {} },
    });
  }
  if (!s.roles.has(roleKey(GROUP_TYPE, GROUP_MEMBER_ROLE))) {
    events.push({
      type: 'RoleCreated',
      data: {
        id: c.memberRoleId,
        key: GROUP_MEMBER_ROLE,
        resource: GROUP_TYPE,
        name: 'Member',
        description: "A group's members get the roles assigned to the group",
        permissions: [],
        attributes: {},
      },
    });
  }
  events.push({ type: 'ResourceInstanceCreated', data: { id: c.id, key: c.key, resource: GROUP_TYPE, tenant, attributes: {} } });
  return events;
}

export function deleteGroup(c: Cmd<'DeleteGroup'>, s: EnvState): EnvEvent[] {
  const group = findGroup(s, c.group);
  // Its memberships and role tuples go with the instance (the instance cascade).
  return deleteInstance({ type: 'DeleteInstance', instance: groupRef(group.key) }, s);
}

/** The tenant a membership names must be the group's: a membership never crosses tenants. */
function groupTenant(s: EnvState, group: InstanceState, tenant: string | null): string {
  if (tenant === null) return group.tenant;
  const key = findTenant(s, tenant).key;
  if (key !== group.tenant) throw new TenantMismatchError(`Group '${group.key}' is in tenant '${group.tenant}', not '${key}'`);
  return key;
}

export function addGroupUser(c: Cmd<'AddGroupUser'>, s: EnvState): EnvEvent[] {
  const group = findGroup(s, c.group);
  const user = findUser(s, c.user).key;
  const tenant = groupTenant(s, group, c.tenant);
  return assignRole(
    {
      type: 'AssignRole',
      id: c.id,
      newUserId: c.id,
      userMustExist: true,
      user,
      role: GROUP_MEMBER_ROLE,
      tenant,
      resourceInstance: groupRef(group.key),
    },
    s,
  );
}

export function removeGroupUser(c: Cmd<'RemoveGroupUser'>, s: EnvState): EnvEvent[] {
  const group = findGroup(s, c.group);
  const user = findUser(s, c.user).key;
  const tenant = groupTenant(s, group, c.tenant);
  return unassignRole({ type: 'UnassignRole', user, role: GROUP_MEMBER_ROLE, tenant, resourceInstance: groupRef(group.key) }, s);
}

/** The group, role and instance a group role command names, checked: the instance is of the role's type, in the group's tenant. */
function groupRoleTarget(s: EnvState, c: Cmd<'AssignGroupRole'> | Cmd<'RemoveGroupRole'>) {
  const group = findGroup(s, c.group);
  const resource = findResource(s, c.resource);
  if (resource.key === GROUP_TYPE)
    throw new InvalidRequestError(`Roles on '${GROUP_TYPE}' are not assigned to groups (group in group is not served)`);
  const role = findRole(s, resource.key, c.role);
  const ref = c.resourceInstance.includes(':') ? c.resourceInstance : instanceRef(resource.key, c.resourceInstance);
  const instance = s.instances.get(ref) ?? findInstance(s, c.resourceInstance);
  if (instance.resource !== resource.key) {
    throw new InvalidRequestError(`Resource instance '${c.resourceInstance}' is of type '${instance.resource}', not '${resource.key}'`);
  }
  const tenant = groupTenant(s, group, c.tenant);
  if (instance.tenant !== tenant) {
    throw new TenantMismatchError(`Resource instance '${instance.key}' is in tenant '${instance.tenant}', not in the group's '${tenant}'`);
  }
  const subject = groupRef(group.key);
  const object = instanceRef(instance.resource, instance.key);
  return { group, resource, role, tenant, subject, object, relation: groupRelationKey(role.key) };
}

export function assignGroupRole(c: Cmd<'AssignGroupRole'>, s: EnvState): EnvEvent[] {
  const t = groupRoleTarget(s, c);
  if (s.tuples.has(tupleKey({ subject: t.subject, relation: t.relation, object: t.object }))) {
    throw new DuplicateEntityError(`Group '${t.group.key}' already has role '${t.role.key}' on '${t.object}'`);
  }
  const events: EnvEvent[] = [];
  if (!s.relations.has(relationKey(t.resource.key, t.relation))) {
    events.push({
      type: 'RelationCreated',
      data: {
        id: c.relationId,
        key: t.relation,
        name: `Group with ${t.role.key}`,
        description: `Groups whose members get '${t.role.key}' (built in)`,
        objectResource: t.resource.key,
        subjectResource: GROUP_TYPE,
      },
    });
  }
  const rule = { onResource: GROUP_TYPE, role: GROUP_MEMBER_ROLE, relation: t.relation };
  if (!t.role.rules.some((r) => ruleEquals(r, rule))) {
    events.push({ type: 'ImplicitGrantAdded', data: { id: t.role.id, key: t.role.key, resource: t.resource.key, rule } });
  }
  events.push({
    type: 'RelationshipTupleCreated',
    data: { id: c.id, subject: t.subject, relation: t.relation, object: t.object, tenant: t.tenant },
  });
  return events;
}

export function removeGroupRole(c: Cmd<'RemoveGroupRole'>, s: EnvState): EnvEvent[] {
  const t = groupRoleTarget(s, c);
  if (!s.tuples.has(tupleKey({ subject: t.subject, relation: t.relation, object: t.object }))) {
    throw new NotFoundError(`Group '${t.group.key}' has no role '${t.role.key}' on '${t.object}'`);
  }
  // The relation and the derivation stay: without the tuple they give nothing.
  return deleteTuple({ type: 'DeleteTuple', subject: t.subject, relation: t.relation, object: t.object }, s);
}
