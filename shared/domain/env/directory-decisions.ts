import { DuplicateEntityError, NotFoundError } from '../../errors';
import type { EnvEvent } from '../../events';
import { Cascade } from './cascade';
import type { EnvCommand, InlineAssignment } from './commands';
import { assignRole } from './facts-decisions';
import { evolveEnv } from './fold';
import { findInstance, findTenant, findUser } from './lookup';
import { scratchOf } from './scratch';
import type { EnvState } from './state';
import { assignmentKey, keyOfId } from './state';

/**
 * Users and tenants beyond their creation: profile updates and replaces, a
 * user's inline role assignments, deleting a user, removing a user from a
 * tenant. Each decides all its events at once, so a request is all or nothing.
 */

type Cmd<T extends EnvCommand['type']> = Extract<EnvCommand, { type: T }>;

/** Decides `first` then each assignment against the state the ones before leave (a scratch copy; `s` is untouched). */
function withAssignments(s: EnvState, first: EnvEvent[], user: string, assignments: InlineAssignment[], onlyNew: boolean): EnvEvent[] {
  if (assignments.length === 0) return first;
  const scratch = scratchOf(s);
  const out: EnvEvent[] = [];
  const apply = (events: EnvEvent[]) => {
    for (const event of events) {
      evolveEnv(scratch, event);
      out.push(event);
    }
  };
  apply(first);
  for (const a of assignments) {
    if (onlyNew && holds(scratch, user, a)) continue;
    apply(assignRole({ type: 'AssignRole', id: a.id, newUserId: '', newInstanceId: a.newInstanceId, user, ...roleOf(a) }, scratch));
  }
  return out;
}

const roleOf = (a: InlineAssignment) => ({ role: a.role, tenant: a.tenant, resourceInstance: a.resourceInstance });

/** Whether the user already holds the assignment (a replace assigns only what is missing). */
function holds(s: EnvState, user: string, a: InlineAssignment): boolean {
  if (a.resourceInstance !== null) {
    const instance = s.instances.get(a.resourceInstance) ?? s.instances.get(keyOfId(s, a.resourceInstance) ?? '');
    if (!instance) return false;
    const ref = [instance.resource, instance.key].join(':');
    return s.assignments.has(
      assignmentKey({ user, role: a.role, resource: instance.resource, tenant: instance.tenant, resourceInstance: ref }),
    );
  }
  if (a.tenant === null) return false;
  const tenant = s.tenants.get(a.tenant) ?? s.tenants.get(keyOfId(s, a.tenant) ?? '');
  return (
    tenant !== undefined &&
    s.assignments.has(assignmentKey({ user, role: a.role, resource: null, tenant: tenant.key, resourceInstance: null }))
  );
}

export function createUser(c: Cmd<'CreateUser'>, s: EnvState): EnvEvent[] {
  if (s.users.has(c.key)) throw new DuplicateEntityError(`User '${c.key}' already exists`);
  const { type: _type, roleAssignments = [], ...data } = c;
  return withAssignments(s, [{ type: 'UserCreated', data }], c.key, roleAssignments, false);
}

/**
 * PUT (sync): a new user is created; an existing one has its whole profile
 * replaced (a field left out becomes null, attributes `{}`), as Permit's
 * replace does. Role assignments are added, never removed: the ones it holds
 * already are left as they are.
 */
export function replaceUser(c: Cmd<'ReplaceUser'>, s: EnvState): EnvEvent[] {
  const { type: _type, roleAssignments, ...data } = c;
  // The path names the user by key or by id; a new user takes it as its key.
  const existing = s.users.get(c.key) ?? s.users.get(keyOfId(s, c.key) ?? '');
  const first: EnvEvent = existing
    ? { type: 'UserUpdated', data: { ...data, id: existing.id, key: existing.key } }
    : { type: 'UserCreated', data };
  return withAssignments(s, [first], existing?.key ?? c.key, roleAssignments, true);
}

/** PATCH: only the fields given change. */
export function updateUser(c: Cmd<'UpdateUser'>, s: EnvState): EnvEvent[] {
  const user = findUser(s, c.user);
  const { type: _type, user: _ref, ...changes } = c;
  return [{ type: 'UserUpdated', data: { id: user.id, key: user.key, ...changes } }];
}

export function deleteUser(c: Cmd<'DeleteUser'>, s: EnvState): EnvEvent[] {
  return new Cascade(s).user(findUser(s, c.user)).events();
}

export function updateTenant(c: Cmd<'UpdateTenant'>, s: EnvState): EnvEvent[] {
  const tenant = findTenant(s, c.tenant);
  const { type: _type, tenant: _ref, ...changes } = c;
  return [{ type: 'TenantUpdated', data: { id: tenant.id, key: tenant.key, ...changes } }];
}

/** Every role the user holds in the tenant: tenant roles and roles on the tenant's instances. */
export function removeTenantUser(c: Cmd<'RemoveTenantUser'>, s: EnvState): EnvEvent[] {
  const tenant = findTenant(s, c.tenant);
  const user = findUser(s, c.user);
  const events: EnvEvent[] = [];
  for (const a of s.assignments.ofUser(user.key)) if (a.tenant === tenant.key) events.push({ type: 'RoleUnassigned', data: { ...a } });
  if (events.length === 0)
    throw new NotFoundError(`User '${user.key}' has no role in tenant '${tenant.key}'`, { user: c.user, tenant: c.tenant });
  return events;
}

/** PATCH of an instance's attributes (the only field it has to change); without attributes nothing changes. */
export function updateInstance(c: Cmd<'UpdateInstance'>, s: EnvState): EnvEvent[] {
  const i = findInstance(s, c.instance);
  if (c.attributes === undefined) return [];
  return [
    { type: 'ResourceInstanceUpdated', data: { id: i.id, key: i.key, resource: i.resource, tenant: i.tenant, attributes: c.attributes } },
  ];
}
