import { inheritedPermissions } from '../../shared/domain/env/role-hierarchy';
import type { AssignmentDoc } from '../../shared/read-models/read-models';
import type { GrantDoc } from '../../shared/read-models/grants/model';
import { decodeCursor, encodeCursor } from './cursor';
import { mergedGroupPage } from './pages';
import { DEFAULT_TENANT, type QueryDeps, type ResourceRef } from './types';

export interface AuthorizedUsersRequest {
  action: string;
  resource: ResourceRef;
  cursor?: string;
  limit: number;
}

/** Permit's AuthorizedUsersResult: per user, the assignments (direct or derived) that let them act. */
export interface AuthorizedUsersPage {
  resource: string;
  tenant: string;
  users: Record<string, Array<{ user: string; tenant: string; resource: string; role: string }>>;
  next_cursor: string | null;
}

/**
 * Who may do `action` on a resource: holders of a role on the instance (direct
 * or derived) that permits the action, and holders of a tenant-level role in
 * its tenant that permits `type:action`. In user order, `limit` users a page.
 */
export async function authorizedUsers(
  deps: QueryDeps,
  environmentId: string,
  request: AuthorizedUsersRequest,
): Promise<AuthorizedUsersPage> {
  const { cursor: _cursor, limit: _limit, ...question } = request;
  const after = decodeCursor(request.cursor, ['authorized-users', question]);
  const { type, key } = request.resource;
  const instance = key === null ? null : await deps.rm.instances.findOne({ environment_id: environmentId, resource: type, key });
  const tenant = instance?.tenant ?? request.resource.tenant ?? DEFAULT_TENANT;
  const ref = key === null ? `${type}:*` : `${type}:${key}`;

  const resourceRoles = instance
    ? inheritedPermissions(await deps.rm.resourceRoles.find({ environment_id: environmentId, resource: type }))
        .filter((r) => r.permissions.includes(request.action))
        .map((r) => r.key)
    : [];
  const tenantRoles = inheritedPermissions(await deps.rm.roles.find({ environment_id: environmentId }))
    .filter((r) => r.permissions.includes(`${type}:${request.action}`))
    .map((r) => r.key);

  const page = await mergedGroupPage<GrantDoc, AssignmentDoc>(
    resourceRoles.length > 0
      ? { collection: deps.grants.grants, filter: { environment_id: environmentId, instance: ref, role: { $in: resourceRoles } } }
      : null,
    tenantRoles.length > 0
      ? {
          collection: deps.rm.assignments,
          filter: { environment_id: environmentId, tenant, resource_instance: null, role: { $in: tenantRoles } },
        }
      : null,
    'user',
    after,
    request.limit,
  );
  const users: AuthorizedUsersPage['users'] = {};
  for (const user of page.keys) users[user] = [];
  for (const g of page.a) users[g.user]?.push({ user: g.user, tenant: g.tenant, resource: g.instance, role: g.role });
  for (const a of page.b) users[a.user]?.push({ user: a.user, tenant: a.tenant, resource: `__tenant:${a.tenant}`, role: a.role });
  const last = page.keys.at(-1);
  return {
    resource: ref,
    tenant,
    users,
    next_cursor: page.more && last !== undefined ? encodeCursor(last, ['authorized-users', question]) : null,
  };
}
