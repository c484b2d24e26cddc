import type { EnvState } from '../../../shared/domain/env/state';
import type { GrantDoc } from '../../../shared/read-models/grants/model';
import { typeOf } from '../../../shared/read-models/grants/model';

/**
 * The grants recomputed from scratch, naively, from the decider's state: start
 * from the direct resource-role assignments and apply every rule along every
 * tuple until nothing changes. Independent of the projection's code on purpose.
 * Returns `user|instance|role` strings, sorted.
 */
export function recomputeGrants(state: EnvState): string[] {
  const held = new Set<string>();
  const key = (user: string, instance: string, role: string) => `${user}|${instance}|${role}`;
  // no_direct_roles_on_object: a guarded role is never derived for a user on an instance where the user holds a direct role.
  const direct = directPairs(state);
  for (const a of state.assignments.values()) if (a.resourceInstance !== null) held.add(key(a.user, a.resourceInstance, a.role));
  for (let changed = true; changed;) {
    changed = false;
    for (const entry of [...held]) {
      const [user = '', instance = '', role = ''] = entry.split('|');
      for (const tuple of state.tuples.values()) {
        if (tuple.subject !== instance) continue;
        const objectType = typeOf(tuple.object);
        for (const target of state.roles.values()) {
          if (target.resource !== objectType) continue;
          const derives = target.rules.some((r) => r.onResource === typeOf(instance) && r.role === role && r.relation === tuple.relation);
          const suppressed = target.noDirectRolesOnObject === true && direct.has(`${user}|${tuple.object}`);
          if (derives && !suppressed && !held.has(key(user, tuple.object, target.key))) {
            held.add(key(user, tuple.object, target.key));
            changed = true;
          }
        }
      }
    }
  }
  return [...held].sort();
}

/** `user|instance` of every direct resource-role assignment. */
function directPairs(state: EnvState): Set<string> {
  const pairs = new Set<string>();
  for (const a of state.assignments.values()) if (a.resourceInstance !== null) pairs.add(`${a.user}|${a.resourceInstance}`);
  return pairs;
}

/**
 * A role's permissions with those of every role it extends, transitively
 * (naively: a fixpoint over `extends` in the decider's state, same scope).
 */
export function effectivePermissions(state: EnvState, resource: string | null, role: string): Set<string> {
  const seen = new Set<string>();
  const permissions = new Set<string>();
  const visit = (key: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    const r = state.roles.get(`${resource ?? ''}#${key}`);
    if (!r) return;
    for (const p of r.permissions) permissions.add(p);
    for (const parent of r.extends ?? []) visit(parent);
  };
  visit(role);
  return permissions;
}

/** Whether `user` may do `action` on `instance` by the reference grants and inherited permissions (resource roles only). */
export function referenceAllows(state: EnvState, grants: string[], user: string, instance: string, action: string): boolean {
  return grants.some((g) => {
    const [u, i, role = ''] = g.split('|');
    return u === user && i === instance && effectivePermissions(state, typeOf(instance), role).has(action);
  });
}

export const grantKeys = (grants: GrantDoc[]): string[] => grants.map((g) => `${g.user}|${g.instance}|${g.role}`).sort();

/**
 * Checks that every stored reason is a real support in `state` and that
 * following reasons from any grant ends at an assignment (no cycle, no dangling
 * link). Returns the problems found (empty when sound).
 */
export function unsoundReasons(grants: GrantDoc[], state: EnvState): string[] {
  const byId = new Map(grants.map((g) => [g.id, g]));
  const problems: string[] = [];
  const assignmentIds = new Map([...state.assignments.values()].map((a) => [a.id, a]));
  const tupleIds = new Map([...state.tuples.values()].map((t) => [t.id, t]));
  for (const g of grants) {
    const r = g.reason;
    if (r.kind === 'assignment') {
      const a = assignmentIds.get(r.assignment_id);
      if (!a || a.user !== g.user || a.resourceInstance !== g.instance || a.role !== g.role)
        problems.push(`${g.user}|${g.instance}|${g.role}: assignment ${r.assignment_id} does not support it`);
    } else {
      const parent = byId.get(r.from_grant);
      const t = tupleIds.get(r.tuple.id);
      const role = [...state.roles.values()].find((x) => x.resource === g.resource && x.key === g.role);
      const ruleOk = role?.rules.some(
        (x) => x.onResource === r.rule.onResource && x.role === r.rule.role && x.relation === r.rule.relation,
      );
      if (
        !parent ||
        !t ||
        !ruleOk ||
        parent.user !== g.user ||
        parent.instance !== t.subject ||
        t.object !== g.instance ||
        parent.role !== r.rule.role ||
        typeOf(parent.instance) !== r.rule.onResource ||
        t.relation !== r.rule.relation ||
        g.from_grant !== r.from_grant
      ) {
        problems.push(`${g.user}|${g.instance}|${g.role}: derivation reason is not a valid support`);
      }
      if (role?.noDirectRolesOnObject && directPairs(state).has(`${g.user}|${g.instance}`))
        problems.push(`${g.user}|${g.instance}|${g.role}: derived although no_direct_roles_on_object and a direct role there`);
    }
    const seen = new Set<string>();
    let current: GrantDoc | undefined = g;
    while (current && current.reason.kind === 'derivation') {
      if (seen.has(current.id)) {
        problems.push(`${g.user}|${g.instance}|${g.role}: reason chain has a cycle`);
        break;
      }
      seen.add(current.id);
      current = byId.get(current.reason.from_grant);
    }
    if (!current) problems.push(`${g.user}|${g.instance}|${g.role}: reason chain is broken`);
  }
  return problems;
}
