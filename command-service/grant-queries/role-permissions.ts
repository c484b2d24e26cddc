import { inheritedPermissions } from '../../shared/domain/env/role-hierarchy';
import type { ReadModels, RoleDoc } from '../../shared/read-models/read-models';
import { ReadCache } from '../../shared/read-cache';

/** Role key → the permissions it gives. Resource roles give actions of their resource; top-level roles give `type:action`. */
export type PermissionsByRole = ReadonlyMap<string, ReadonlySet<string>>;

/** The permissions of an environment's roles, as checks need them. */
export interface RolePermissions {
  /** The roles of one resource type. */
  ofResource(environmentId: string, resource: string): Promise<PermissionsByRole>;
  /** The top-level (tenant) roles. */
  topLevel(environmentId: string): Promise<PermissionsByRole>;
}

/** One scope's roles (a resource type's, or the top-level ones), each with the permissions of the roles it extends too. */
export const byRole = (roles: RoleDoc[]): PermissionsByRole =>
  new Map(inheritedPermissions(roles).map((r) => [r.key, new Set(r.permissions)]));

/** Read from the store on every call. */
export function storedRolePermissions(rm: ReadModels): RolePermissions {
  return {
    ofResource: async (environmentId, resource) => byRole(await rm.resourceRoles.find({ environment_id: environmentId, resource })),
    topLevel: async (environmentId) => byRole(await rm.roles.find({ environment_id: environmentId })),
  };
}

/** Most (environment, resource type) role sets kept; an environment has a handful of types. */
const CACHED_ROLE_SETS = 10_000;

/**
 * Role definitions change rarely and every check needs them: kept per read-model
 * position (ReadCache), so a role's new permissions apply from the next check
 * after its event is projected.
 */
export function cachedRolePermissions(stored: RolePermissions, position: () => number): RolePermissions {
  const cache = new ReadCache<PermissionsByRole>(position, CACHED_ROLE_SETS);
  return {
    ofResource: (environmentId, resource) =>
      cache.through(JSON.stringify([environmentId, resource]), () => stored.ofResource(environmentId, resource)),
    topLevel: (environmentId) => cache.through(JSON.stringify([environmentId]), () => stored.topLevel(environmentId)),
  };
}
