import { NotFoundError } from '../../errors';
import type { EnvState, InstanceState, RelationState, ResourceState, RoleState } from './state';
import { instanceRef, keyOfId, relationKey, roleKey } from './state';

/** Finds objects by key or id, throwing NotFoundError that names what is missing. */

export function findResource(state: EnvState, ref: string): ResourceState {
  const resource = state.resources.get(ref) ?? state.resources.get(keyOfId(state, ref) ?? '');
  if (!resource) throw new NotFoundError(`Resource '${ref}' not found`, { resource: ref });
  return resource;
}

export function findRole(state: EnvState, resource: string | null, ref: string): RoleState {
  const role = state.roles.get(roleKey(resource, ref)) ?? state.roles.get(keyOfId(state, ref) ?? '');
  if (!role || role.resource !== resource) {
    const where = resource === null ? 'as a top-level role' : `on resource '${resource}'`;
    throw new NotFoundError(`Role '${ref}' not found ${where}`, { role: ref, resource });
  }
  return role;
}

export function findRelation(state: EnvState, objectResource: string, ref: string): RelationState {
  const relation = state.relations.get(relationKey(objectResource, ref)) ?? state.relations.get(keyOfId(state, ref) ?? '');
  if (!relation || relation.objectResource !== objectResource) {
    throw new NotFoundError(`Relation '${ref}' not found on resource '${objectResource}'`, { relation: ref, resource: objectResource });
  }
  return relation;
}

export function findTenant(state: EnvState, ref: string): { id: string; key: string } {
  const tenant = state.tenants.get(ref) ?? state.tenants.get(keyOfId(state, ref) ?? '');
  if (!tenant) throw new NotFoundError(`Tenant '${ref}' not found`, { tenant: ref });
  return tenant;
}

/** `type:key`, or an instance id. */
export function findInstance(state: EnvState, ref: string): InstanceState {
  const instance = state.instances.get(ref) ?? state.instances.get(keyOfId(state, ref) ?? '');
  if (!instance) throw new NotFoundError(`Resource instance '${ref}' not found`, { resource_instance: ref });
  return instance;
}

export { instanceRef };

export function findUser(state: EnvState, ref: string): { id: string; key: string } {
  const user = state.users.get(ref) ?? state.users.get(keyOfId(state, ref) ?? '');
  if (!user) throw new NotFoundError(`User '${ref}' not found`, { user: ref });
  return user;
}
