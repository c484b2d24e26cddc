import { inheritedPermissions } from '../../shared/domain/env/role-hierarchy';
import type { AssignmentDoc } from '../../shared/read-models/read-models';
import { typeOf, type GrantDoc } from '../../shared/read-models/grants/model';
import { byteOrder } from '../../shared/docstore/value-order';
import { decodeCursor, encodeCursor } from './cursor';
import { setRuleUsers } from './set-rule-lists';
import type { AbacInputs } from './set-rules';
import { mergedGroupPage } from './pages';
import { DEFAULT_TENANT, unique, type QueryDeps, type ResourceRef } from './types';
import { GrantsAsOf } from './grants-as-of';

export interface AuthorizedUsersRequest {
  action: string;
  resource: ResourceRef;
  cursor?: string;
  limit: number;
  /** The resource's attributes and the context sent, for set rules. */
  abac?: AbacInputs;
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
  // Users set rules allow, merged in user order and cut at the limit; their entries name the rule's user set as `role`.
  const bySetRules = await setRuleUsers(
    deps,
    environmentId,
    { action: request.action, type, key, tenant: request.resource.tenant, abac: request.abac },
    after,
    request.limit,
  );
  const merged = [...new Set([...page.keys, ...bySetRules.users.keys()])].sort(byteOrder);
  const keys = merged.slice(0, request.limit);
  const more = page.more || bySetRules.more || merged.length > request.limit;
  const users: AuthorizedUsersPage['users'] = {};
  for (const user of keys) users[user] = [];
  // Permit names the assignments behind a grant: each one's own instance and `<type>#<role>` (a
  // document's reader through a folder assignment is listed with the folder's). Every one that
  // leads to a role permitting the action, derived from the read models, so as_of answers alike.
  const grantHolders = unique(page.a.map((g) => g.user));
  const behind =
    grantHolders.length > 0
      ? await new GrantsAsOf(deps.rm).assignmentsBehind(environmentId, ref, grantHolders, resourceRoles)
      : new Map<string, AssignmentDoc[]>();
  for (const g of page.a) {
    const entries = users[g.user];
    if (!entries) continue;
    const sources = behind.get(g.user) ?? [];
    // A grant whose assignments the walk cannot name (a read between two writes) is listed as held.
    const named =
      sources.length > 0
        ? sources.map((a: AssignmentDoc) => ({ resource: a.resource_instance!, role: `${typeOf(a.resource_instance!)}#${a.role}` }))
        : [{ resource: g.instance, role: `${g.resource}#${g.role}` }];
    for (const source of named) {
      if (!entries.some((e) => e.resource === source.resource && e.role === source.role))
        entries.push({ user: g.user, tenant: g.tenant, ...source });
    }
  }
  for (const a of page.b) users[a.user]?.push({ user: a.user, tenant: a.tenant, resource: `__tenant:${a.tenant}`, role: a.role });
  for (const [user, sets] of bySetRules.users) for (const set of sets) users[user]?.push({ user, tenant, resource: ref, role: set });
  const last = keys.at(-1);
  return {
    resource: ref,
    tenant,
    users,
    next_cursor: more && last !== undefined ? encodeCursor(last, ['authorized-users', question]) : null,
  };
}
