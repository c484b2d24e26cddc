import { inheritedPermissions } from '../../shared/domain/env/role-hierarchy';
import type { Filter } from '../../shared/docstore/port';
import type { GrantDoc } from '../../shared/read-models/grants/model';
import { typeOf } from '../../shared/read-models/grants/model';
import { byteOrder } from '../../shared/docstore/value-order';
import { decodeCursor, encodeCursor } from './cursor';
import { groupBy, groupPage, type GroupReads } from './pages';
import { setRuleInstances } from './set-rule-lists';
import type { AbacInputs } from './set-rules';
import { unique, type QueryDeps } from './types';

export interface UserPermissionsRequest {
  user: string;
  tenants?: string[];
  /** `type:key` instances to report on. */
  resources?: string[];
  resource_types?: string[];
  cursor?: string;
  limit: number;
  /** The user's attributes and the context sent, for set rules. */
  abac?: AbacInputs;
}

/** Permit's shape: keyed by `type:key` for instances and `__tenant:<key>` for tenants; permissions are `type:action`. */
export interface PermissionEntry {
  permissions: string[];
  roles: string[];
  resource?: { type: string; key: string; attributes: Record<string, unknown> };
  tenant?: { key: string; attributes: Record<string, unknown> };
}

export interface UserPermissionsPage {
  permissions: Record<string, PermissionEntry>;
  next_cursor: string | null;
}

/**
 * What a user may do where: one entry per instance the user holds a role on
 * (direct or derived), in instance order, `limit` instances per page; the
 * tenant-level roles come first, on the first page, as `__tenant:<key>` entries
 * (their permissions apply to every instance of those types in the tenant).
 */
export async function userPermissions(
  deps: QueryDeps,
  environmentId: string,
  request: UserPermissionsRequest,
): Promise<UserPermissionsPage> {
  const { cursor: _cursor, limit: _limit, ...question } = request;
  const after = decodeCursor(request.cursor, ['user-permissions', question]);
  const entries: Record<string, PermissionEntry> = after === null ? await tenantEntries(deps, environmentId, request) : {};

  const filter: Filter = { environment_id: environmentId, user: request.user };
  if (request.tenants) filter.tenant = { $in: request.tenants };
  if (request.resource_types) filter.resource = { $in: request.resource_types };
  const { groups, ...byRoles } = request.resources
    ? await listedInstances(deps, { ...filter, instance: { $in: request.resources } }, after, request.limit)
    : await groupPage(deps.grants.grants, userGrantReads(filter), 'instance', after, request.limit);
  // Instances set rules grant on, merged in instance order and cut at the limit (see setRuleInstances).
  const bySetRules = await setRuleInstances(deps, environmentId, request, after, request.limit);
  const merged = unique([...groups.keys(), ...bySetRules.granted.keys()]).sort(byteOrder);
  const page = merged.slice(0, request.limit);
  const more = byRoles.more || bySetRules.more || merged.length > request.limit;

  const types = unique(page.map(typeOf));
  const [roles, instances] =
    types.length === 0
      ? [[], []]
      : [
          inheritedPermissions(await deps.rm.resourceRoles.find({ environment_id: environmentId, resource: { $in: types } })),
          await deps.rm.instances.find({
            environment_id: environmentId,
            resource: { $in: types },
            key: { $in: page.map(keyOf) },
          }),
        ];
  for (const instance of page) {
    const type = typeOf(instance);
    const held = unique((groups.get(instance) ?? []).map((g) => g.role)).sort();
    const actions = unique([
      ...held.flatMap((role) => roles.find((r) => r.resource === type && r.key === role)?.permissions ?? []),
      ...(bySetRules.granted.get(instance)?.actions ?? []),
    ]);
    const doc = instances.find((i) => i.resource === type && i.key === keyOf(instance));
    entries[instance] = {
      permissions: actions.sort().map((action) => `${type}:${action}`),
      roles: held,
      resource: { type, key: keyOf(instance), attributes: doc?.attributes ?? {} },
    };
  }
  const last = page.at(-1);
  return { permissions: entries, next_cursor: more && last !== undefined ? encodeCursor(last, ['user-permissions', question]) : null };
}

async function tenantEntries(
  deps: QueryDeps,
  environmentId: string,
  request: UserPermissionsRequest,
): Promise<Record<string, PermissionEntry>> {
  const filter: Filter = { environment_id: environmentId, user: request.user, resource_instance: null };
  if (request.tenants) filter.tenant = { $in: request.tenants };
  const assignments = await deps.rm.assignments.find(filter, { sortBy: 'tenant' });
  if (assignments.length === 0) return {};
  const roles = inheritedPermissions(await deps.rm.roles.find({ environment_id: environmentId }));
  const tenants = await deps.rm.tenants.find({ environment_id: environmentId, key: { $in: unique(assignments.map((a) => a.tenant)) } });
  const entries: Record<string, PermissionEntry> = {};
  for (const [tenant, held] of groupBy(assignments, 'tenant')) {
    const keys = unique(held.map((a) => a.role)).sort();
    const permissions = unique(keys.flatMap((key) => roles.find((r) => r.key === key)?.permissions ?? []))
      .filter((p) => !request.resource_types || request.resource_types.includes(typeOf(p)))
      .sort();
    entries[`__tenant:${tenant}`] = {
      permissions,
      roles: keys,
      tenant: { key: tenant, attributes: tenants.find((t) => t.key === tenant)?.attributes ?? {} },
    };
  }
  return entries;
}

/** A user's grants (`filter` names the environment and user, and may narrow them) in instance order (EffectiveGrants reads them as ranges of the id index). */
function userGrantReads(filter: Filter): GroupReads {
  return {
    after: (after) => (after === null ? filter : { ...filter, instance: { $gt: after } }),
    only: (instance) => ({ ...filter, instance }),
    sortBy: 'instance',
  };
}

/** When the caller lists the instances (bounded by the request size), one read and an in-memory page. */
async function listedInstances(
  deps: QueryDeps,
  filter: Filter,
  after: string | null,
  limit: number,
): Promise<{ groups: Map<string, GrantDoc[]>; more: boolean }> {
  const rows = (await deps.grants.grants.find(filter)).filter((g) => after === null || byteOrder(g.instance, after) > 0);
  const sorted = [...groupBy(rows, 'instance')].sort(([a], [b]) => byteOrder(a, b));
  return { groups: new Map(sorted.slice(0, limit)), more: sorted.length > limit };
}

const keyOf = (instance: string) => instance.slice(typeOf(instance).length + 1);
