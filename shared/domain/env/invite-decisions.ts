import { canonicalId } from '../../ids';
import { DuplicateEntityError, InvalidRequestError, NotFoundError, TenantMismatchError } from '../../errors';
import type { EnvEvent } from '../../events';
import type { EnvCommand } from './commands';
import type { UserInviteState } from './invite-state';
import type { EnvState, InstanceState, RoleState } from './state';
import { assignmentKey, instanceRef, keyOfId, roleKey } from './state';

/**
 * User invites (Permit's Elements user invites; docs/permit-compat.md, "User invites"): an
 * invitation of an e-mail address to a role in a tenant (on one instance for a resource role),
 * pending until approved. Approving makes the user (or updates it) and gives it the role, in the
 * same decision, so the log holds the whole of it or none.
 */

type Cmd<T extends EnvCommand['type']> = Extract<EnvCommand, { type: T }>;

/** The object a ref names: by key first (a key may look like an id), then by id in either spelling. */
function byRef<T>(ref: string, byKey: ReadonlyMap<string, T>, keyOfId: ReadonlyMap<string, string>): T | undefined {
  return byKey.get(ref) ?? byKey.get(keyOfId.get(canonicalId(ref)) ?? '');
}

export function findUserInvite(s: EnvState, ref: string): UserInviteState {
  const invite = byRef(ref, s.invites.byKey, s.invites.keyOfId);
  if (!invite) throw new NotFoundError(`User invite '${ref}' not found`, { user_invite: ref });
  return invite;
}

/** An invite's role: any role by id, or a top-level role by key. */
function inviteRole(s: EnvState, ref: string): RoleState {
  const role = s.roles.get(roleKey(null, ref)) ?? s.roles.get(keyOfId(s, ref) ?? '');
  if (!role) throw new NotFoundError(`Role '${ref}' not found (a role id, or a top-level role's key)`, { role: ref });
  return role;
}

function inviteTenant(s: EnvState, ref: string): { id: string; key: string } {
  const tenant = byRef(ref, s.tenants, s.ids);
  if (!tenant) throw new NotFoundError(`Tenant '${ref}' not found`, { tenant: ref });
  return tenant;
}

function inviteInstance(s: EnvState, ref: string): InstanceState {
  const instance = byRef(ref, s.instances, s.ids);
  if (!instance) throw new NotFoundError(`Resource instance '${ref}' not found`, { resource_instance: ref });
  return instance;
}

/**
 * What an invite names, checked and as keys: the role exists; the instance, when given, is in the
 * tenant; a resource role needs an instance of its own resource type (the role is given there).
 */
function inviteTarget(s: EnvState, c: { role: string; tenant: string; resourceInstance: string | null }) {
  const role = inviteRole(s, c.role);
  const tenant = inviteTenant(s, c.tenant);
  const instance = c.resourceInstance === null ? null : inviteInstance(s, c.resourceInstance);
  const ref = instance ? instanceRef(instance.resource, instance.key) : null;
  if (instance && instance.tenant !== tenant.key) {
    throw new TenantMismatchError(`Resource instance '${ref}' is in tenant '${instance.tenant}', not in tenant '${tenant.key}'`);
  }
  if (role.resource !== null && instance === null) {
    throw new InvalidRequestError(
      `Role '${role.key}' is a role of resource type '${role.resource}': the invite needs a resource_instance_id`,
    );
  }
  if (role.resource !== null && instance !== null && instance.resource !== role.resource) {
    throw new InvalidRequestError(`Role '${role.key}' is a role of resource type '${role.resource}', and '${ref}' is not of that type`);
  }
  return { role: role.key, roleResource: role.resource, tenant: tenant.key, resourceInstance: ref };
}

function refuseApprovedStatus(status: 'pending' | 'approved' | undefined, what: string): void {
  if (status === 'approved') {
    throw new InvalidRequestError(`${what} cannot set status 'approved': an invite is approved by POST …/user_invites/{id}/approve`);
  }
}

export function createUserInvite(c: Cmd<'CreateUserInvite'>, s: EnvState): EnvEvent[] {
  if (s.invites.byKey.has(c.key)) throw new DuplicateEntityError(`User invite '${c.key}' already exists`);
  refuseApprovedStatus(c.status, 'A new invite');
  const target = inviteTarget(s, c);
  const data = { id: c.id, key: c.key, email: c.email, firstName: c.firstName, lastName: c.lastName, ...target };
  return [{ type: 'UserInviteCreated', data }];
}

/** PATCH: the fields given change; the whole definition is checked again. An approved invite is a record: it does not change. */
export function updateUserInvite(c: Cmd<'UpdateUserInvite'>, s: EnvState): EnvEvent[] {
  const invite = findUserInvite(s, c.invite);
  if (c.key !== undefined && c.key !== invite.key) {
    throw new InvalidRequestError(`An invite's key does not change: this invite's is '${invite.key}', not '${c.key}'`);
  }
  if (invite.status === 'approved') throw new InvalidRequestError(`User invite '${invite.key}' was approved: it no longer changes`);
  refuseApprovedStatus(c.status, 'An update');
  const target = inviteTarget(s, {
    role: c.role ?? (invite.roleResource === null ? invite.role : roleIdOf(s, invite)),
    tenant: c.tenant ?? invite.tenant,
    resourceInstance: c.resourceInstance !== undefined ? c.resourceInstance : invite.resourceInstance,
  });
  const data = {
    id: invite.id,
    key: invite.key,
    email: c.email ?? invite.email,
    firstName: c.firstName !== undefined ? c.firstName : invite.firstName,
    lastName: c.lastName !== undefined ? c.lastName : invite.lastName,
    ...target,
  };
  return [{ type: 'UserInviteUpdated', data }];
}

/** A resource role is named by id (its key alone does not say its resource type). */
function roleIdOf(s: EnvState, invite: UserInviteState): string {
  return s.roles.get(roleKey(invite.roleResource, invite.role))?.id ?? invite.role;
}

/**
 * Approves a pending invite for user `c.user` (its key in the application, which may differ from
 * the invite's), whose e-mail must be the one invited: the user is created, or an existing one
 * updated (e-mail, the invite's names, the approval's attributes), and given the invite's role,
 * unless it holds it already.
 */
export function approveUserInvite(c: Cmd<'ApproveUserInvite'>, s: EnvState): EnvEvent[] {
  const invite = findUserInvite(s, c.invite);
  if (invite.status === 'approved') throw new InvalidRequestError(`User invite '${invite.key}' was approved already`);
  if (c.email.toLowerCase() !== invite.email.toLowerCase()) {
    throw new InvalidRequestError(`User invite '${invite.key}' invites '${invite.email}', not '${c.email}'`);
  }
  const profile = { email: c.email, firstName: invite.firstName, lastName: invite.lastName, attributes: c.attributes };
  const existing = s.users.get(c.user);
  const events: EnvEvent[] = [
    existing
      ? { type: 'UserUpdated', data: { id: existing.id, key: existing.key, ...profile } }
      : { type: 'UserCreated', data: { id: c.newUserId, key: c.user, ...profile } },
  ];
  // The instance of a resource role's invite is in the invite's tenant (checked when it was named; an instance keeps its tenant).
  const assignment = {
    id: c.assignmentId,
    user: c.user,
    role: invite.role,
    resource: invite.roleResource,
    tenant: invite.tenant,
    resourceInstance: invite.roleResource === null ? null : invite.resourceInstance,
  };
  if (!s.assignments.has(assignmentKey(assignment))) events.push({ type: 'RoleAssigned', data: assignment });
  events.push({ type: 'UserInviteApproved', data: { id: invite.id, key: invite.key, user: c.user } });
  return events;
}

export function deleteUserInvite(c: Cmd<'DeleteUserInvite'>, s: EnvState): EnvEvent[] {
  const invite = findUserInvite(s, c.invite);
  return [{ type: 'UserInviteDeleted', data: { id: invite.id, key: invite.key } }];
}
