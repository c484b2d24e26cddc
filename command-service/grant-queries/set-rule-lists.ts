import type { Filter } from '../../shared/docstore/port';
import type { AttributeBag } from '../../shared/domain/abac';
import type { InstanceDoc, TenantDoc } from '../../shared/read-models/read-models';
import { byteOrder } from '../../shared/docstore/value-order';
import { resourceAttributes, ruleGrants, tenantAttributes, userAttributes, type AbacInputs, type AbacPolicy } from './set-rules';
import { DEFAULT_TENANT, unique, type QueryDeps } from './types';

/**
 * Set rules (ABAC) in the list endpoints. Their resource sets are conditions,
 * not stored grants, so the candidates are enumerated and evaluated: the
 * instances of the types some rule grants on (for /user-permissions), the
 * users of the environment (for /authorized_users). The cost grows with those
 * counts; an environment without set rules pays one cached map lookup.
 */

/** A user's attributes and tenant roles (per tenant), read once for many instances. */
async function userFacts(deps: QueryDeps, environmentId: string, user: string) {
  const [doc, assignments] = await Promise.all([
    deps.rm.users.findOne({ environment_id: environmentId, key: user }),
    deps.rm.assignments.find({ environment_id: environmentId, user, resource_instance: null }, { fields: ['role', 'tenant'] }),
  ]);
  const rolesIn = new Map<string, Set<string>>();
  for (const a of assignments) rolesIn.set(a.tenant, (rolesIn.get(a.tenant) ?? new Set()).add(a.role));
  return { doc, rolesIn };
}

/** The tenants' documents by key, read once each. */
function tenantReader(deps: QueryDeps, environmentId: string) {
  const read = new Map<string, Promise<TenantDoc | null>>();
  return (key: string) => {
    let found = read.get(key);
    if (!found) read.set(key, (found = deps.rm.tenants.findOne({ environment_id: environmentId, key })));
    return found;
  };
}

/** The actions of `type` that set rules grant `user` on one resource. */
function grantedActions(policy: AbacPolicy, type: string, bag: AttributeBag, tenantRoles: ReadonlySet<string>, only?: string): string[] {
  const actions: string[] = [];
  for (const [permission, rules] of policy.rules) {
    if (!permission.startsWith(`${type}:`)) continue;
    const action = permission.slice(type.length + 1);
    if (only !== undefined && action !== only) continue;
    if (rules.some((rule) => Object.values(ruleGrants(policy, rule, { bag, tenantRoles }, [])).every(Boolean))) actions.push(action);
  }
  return actions;
}

export interface SetRuleInstancesRequest {
  user: string;
  tenants?: string[];
  resources?: string[];
  resource_types?: string[];
  abac?: AbacInputs;
}

/**
 * The instances, in instance order after `after`, on which set rules give the
 * user some permission: at most `limit` of them (`more` when there may be
 * others), each with the actions granted. Every instance up to the last one
 * returned was evaluated, so a caller merging these with another ordered page
 * and cutting at `limit` has the set-rule actions of every instance it keeps.
 */
export async function setRuleInstances(
  deps: QueryDeps,
  environmentId: string,
  request: SetRuleInstancesRequest,
  after: string | null,
  limit: number,
): Promise<{ granted: Map<string, { instance: InstanceDoc; actions: string[] }>; more: boolean }> {
  const granted = new Map<string, { instance: InstanceDoc; actions: string[] }>();
  const policy = await deps.abac.of(environmentId);
  let types = unique([...policy.rules.keys()].map((p) => p.slice(0, p.indexOf(':'))));
  if (request.resource_types) types = types.filter((t) => request.resource_types!.includes(t));
  if (request.resources) types = types.filter((t) => request.resources!.some((r) => r.startsWith(`${t}:`)));
  if (types.length === 0) return { granted, more: false };

  const filter: Filter = { environment_id: environmentId, resource: { $in: types } };
  if (request.tenants) filter.tenant = { $in: request.tenants };
  const ref = (i: InstanceDoc) => `${i.resource}:${i.key}`;
  const candidates = (await deps.rm.instances.find(filter))
    .filter((i) => (!request.resources || request.resources.includes(ref(i))) && (after === null || byteOrder(ref(i), after) > 0))
    .sort((a, b) => byteOrder(ref(a), ref(b)));
  const user = await userFacts(deps, environmentId, request.user);
  const tenantOf = tenantReader(deps, environmentId);
  const userBag = userAttributes(request.user, user.doc, request.abac?.user);
  for (const instance of candidates) {
    if (granted.size === limit) return { granted, more: true };
    const bag: AttributeBag = {
      user: userBag,
      resource: resourceAttributes(instance.resource, instance.key, instance.tenant, instance.attributes),
      tenant: tenantAttributes(instance.tenant, await tenantOf(instance.tenant)),
      context: request.abac?.context ?? {},
    };
    const actions = grantedActions(policy, instance.resource, bag, user.rolesIn.get(instance.tenant) ?? new Set());
    if (actions.length > 0) granted.set(ref(instance), { instance, actions });
  }
  return { granted, more: false };
}

/**
 * The users, in key order after `after`, whom set rules allow `action` on a
 * resource: at most `limit` (`more` when there may be others), each with the
 * user sets of the rules that allow them.
 */
export async function setRuleUsers(
  deps: QueryDeps,
  environmentId: string,
  request: { action: string; type: string; key: string | null; tenant: string | null; abac?: AbacInputs },
  after: string | null,
  limit: number,
): Promise<{ users: Map<string, string[]>; more: boolean }> {
  const users = new Map<string, string[]>();
  const policy = await deps.abac.of(environmentId);
  const rules = policy.rules.get(`${request.type}:${request.action}`) ?? [];
  if (rules.length === 0) return { users, more: false };
  const instance =
    request.key === null
      ? null
      : await deps.rm.instances.findOne({ environment_id: environmentId, resource: request.type, key: request.key });
  const tenant = instance?.tenant ?? request.tenant ?? DEFAULT_TENANT;
  const tenantBag = tenantAttributes(tenant, await deps.rm.tenants.findOne({ environment_id: environmentId, key: tenant }));
  const resourceBag = resourceAttributes(request.type, request.key, tenant, instance?.attributes, request.abac?.resource);
  // The holders of the roles used as user sets, in the resource's tenant, read once.
  const roles = unique(rules.filter((r) => r._user_set_is_role).map((r) => r.user_set));
  const rolesOf = new Map<string, Set<string>>();
  if (roles.length > 0) {
    const held = await deps.rm.assignments.find(
      { environment_id: environmentId, tenant, resource_instance: null, role: { $in: roles } },
      { fields: ['user', 'role'] },
    );
    for (const a of held) rolesOf.set(a.user, (rolesOf.get(a.user) ?? new Set()).add(a.role));
  }
  const candidates = (await deps.rm.users.find({ environment_id: environmentId }))
    .filter((u) => after === null || byteOrder(u.key, after) > 0)
    .sort((a, b) => byteOrder(a.key, b.key));
  for (const doc of candidates) {
    if (users.size === limit) return { users, more: true };
    const bag: AttributeBag = {
      user: userAttributes(doc.key, doc),
      resource: resourceBag,
      tenant: tenantBag,
      context: request.abac?.context ?? {},
    };
    const tenantRoles = rolesOf.get(doc.key) ?? new Set<string>();
    const sets = rules
      .filter((rule) => Object.values(ruleGrants(policy, rule, { bag, tenantRoles }, [])).every(Boolean))
      .map((r) => r.user_set);
    if (sets.length > 0) users.set(doc.key, unique(sets));
  }
  return { users, more: false };
}
