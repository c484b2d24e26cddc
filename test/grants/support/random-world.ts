import type { EnvCommand } from '../../../shared/domain/env/commands';
import type { EnvState } from '../../../shared/domain/env/state';
import { cmd, type GrantsHarness } from './harness';
import type { Random } from './random';

/**
 * A small random world for property tests: accounts → folders (→ folders,
 * cycles allowed) → files, three users, two tenants, a pool of derivation
 * rules, and a generator of commands of every kind, chosen from the current
 * state so that most are valid (the rest are refused by the decider).
 */

const TYPES = ['account', 'folder', 'file'] as const;
const ROLES: Record<string, string[]> = { account: ['admin', 'member'], folder: ['editor', 'viewer'], file: ['editor', 'viewer'] };
/** [object type, relation, subject type] */
const RELATIONS: Array<[string, string, string]> = [
  ['folder', 'account', 'account'],
  ['folder', 'parent', 'folder'],
  ['file', 'parent', 'folder'],
];
/** [target type, target role, source type, source role, relation] */
const RULES: Array<[string, string, string, string, string]> = [
  ['folder', 'editor', 'account', 'admin', 'account'],
  ['folder', 'viewer', 'account', 'member', 'account'],
  ['folder', 'editor', 'folder', 'editor', 'parent'],
  ['folder', 'viewer', 'folder', 'viewer', 'parent'],
  ['folder', 'viewer', 'folder', 'editor', 'parent'],
  ['file', 'editor', 'folder', 'editor', 'parent'],
  ['file', 'viewer', 'folder', 'viewer', 'parent'],
  ['file', 'viewer', 'folder', 'editor', 'parent'],
];
const KEYS: Record<string, string[]> = { account: ['a0', 'a1'], folder: ['f0', 'f1', 'f2', 'f3', 'f4'], file: ['d0', 'd1', 'd2', 'd3'] };
const USERS = ['u0', 'u1', 'u2'];
const TENANTS = ['t1', 't2'];
const ACTIONS: Record<string, string[]> = { account: ['read', 'manage'], folder: ['read', 'write'], file: ['read', 'write'] };

export async function createWorldSchema(h: GrantsHarness): Promise<void> {
  for (const type of TYPES) await h.must(cmd.resource(type, ACTIONS[type]!));
  for (const type of TYPES) for (const role of ROLES[type]!) await h.must(cmd.role(type, role, ['read']));
  for (const [object, key, subject] of RELATIONS) await h.must(cmd.relation(object, key, subject));
  for (const tenant of TENANTS) await h.must(cmd.tenant(tenant));
  for (const [type, role, on, source, relation] of RULES) await h.must(cmd.derive(type, role, on, source, relation));
}

/** One random command, chosen from the current state so most of them are valid. */
export function randomCommand(r: Random, s: EnvState): EnvCommand {
  const instances = [...s.instances.values()].map((i) => `${i.resource}:${i.key}`);
  // Whole resource types and tenants come and go too (rarely); they are created again first.
  const missingResource = TYPES.find((type) => !s.resources.has(type));
  if (missingResource) return cmd.resource(missingResource, ACTIONS[missingResource]!);
  const missingTenant = TENANTS.find((tenant) => !s.tenants.has(tenant));
  if (missingTenant && r.chance(0.5)) return cmd.tenant(missingTenant);
  const missingRole = TYPES.flatMap((type) =>
    ROLES[type]!.filter((role) => !s.roles.has(`${type}#${role}`)).map((role) => [type, role] as const),
  );
  if (missingRole.length > 0 && r.chance(0.3)) {
    const [type, role] = r.pick(missingRole);
    return cmd.role(type, role, ['read']);
  }
  const missingRelation = RELATIONS.filter(([object, relation]) => !s.relations.has(`${object}#${relation}`));
  if (missingRelation.length > 0 && r.chance(0.3)) {
    const [object, relation, subject] = r.pick(missingRelation);
    return cmd.relation(object, relation, subject);
  }
  // Role hierarchy, permissions and derivation conditions (no_direct_roles_on_object), now and then.
  if (r.chance(0.1)) return roleCommand(r, s);
  const roll = r.int(100);
  if (roll === 98 && s.tenants.has('t2') && r.chance(0.5)) return { type: 'DeleteTenant', tenant: 't2' };
  if (roll === 99 && r.chance(0.3)) return { type: 'DeleteResource', resource: r.pick(TYPES) };
  if (roll < 8 || instances.length < 6) {
    const type = r.pick(TYPES);
    const missing = KEYS[type]!.filter((k) => !s.instances.has(`${type}:${k}`));
    return cmd.instance(type, r.pick(missing.length > 0 ? missing : KEYS[type]!), r.chance(0.85) ? 't1' : 't2');
  }
  if (roll < 10) return { type: 'DeleteInstance', instance: r.pick(instances) };
  if (roll < 28) {
    const instance = r.pick(instances);
    const type = instance.split(':')[0]!;
    return cmd.assign(r.pick(USERS), r.pick(ROLES[type]!), instance);
  }
  if (roll < 33 && s.assignments.size > 0) {
    const a = r.pick([...s.assignments.values()]);
    return cmd.unassign(a.user, a.role, a.resourceInstance, a.tenant);
  }
  if (roll < 60 || roll >= 98) {
    const [object, relation, subject] = r.pick(RELATIONS);
    // Mostly existing instances of one tenant; sometimes anything (refused: unknown instance, or across tenants).
    const tenant = r.chance(0.9) ? 't1' : 't2';
    const existing = (type: string) =>
      [...s.instances.values()]
        .filter((i) => i.resource === type && (i.tenant === tenant || r.chance(0.05)))
        .map((i) => `${type}:${i.key}`);
    const pickOf = (type: string) => {
      const candidates = existing(type);
      return r.pick(candidates.length > 0 && r.chance(0.9) ? candidates : KEYS[type]!.map((k) => `${type}:${k}`));
    };
    return cmd.tuple(pickOf(subject), relation, pickOf(object));
  }
  if (roll < 65 && s.tuples.size > 0) {
    const t = r.pick([...s.tuples.values()]);
    return cmd.untuple(t.subject, t.relation, t.object);
  }
  if (roll < 82) {
    const [type, role, on, source, relation] = r.pick(RULES);
    return cmd.derive(type, role, on, source, relation);
  }
  if (roll < 86) {
    const [type, role, on, source, relation] = r.pick(RULES);
    return cmd.underive(type, role, on, source, relation);
  }
  if (roll < 89) {
    // PATCH granted_to: replace a role's rules with a random subset of the pool.
    const [type, role] = r.pick(RULES);
    const rules = RULES.filter((x) => x[0] === type && x[1] === role && r.chance(0.5)).map(([, , onResource, sourceRole, relation]) => ({
      onResource,
      role: sourceRole,
      relation,
    }));
    return { type: 'UpdateRole', resource: type, role, grantedTo: rules };
  }
  if (roll < 94) {
    const type = r.pick(TYPES);
    const role = r.pick(ROLES[type]!);
    if (!s.roles.has(`${type}#${role}`)) return cmd.role(type, role, ['read']);
    if (r.chance(0.3)) return { type: 'DeleteRole', resource: type, role };
  }
  if (roll < 98) {
    const [object, relation, subject] = r.pick(RELATIONS);
    if (!s.relations.has(`${object}#${relation}`)) return cmd.relation(object, relation, subject);
    if (r.chance(0.3)) return { type: 'DeleteRelation', objectResource: object, relation };
  }
  const instance = r.pick(instances);
  return cmd.assign(r.pick(USERS), r.pick(ROLES[instance.split(':')[0]!]!), instance);
}

/** `extends` (cycles and other scopes included: refused), role permissions added or removed, the derivation condition set or lifted. */
function roleCommand(r: Random, s: EnvState): EnvCommand {
  const type = r.pick(TYPES);
  const role = r.pick(ROLES[type]!);
  const roll = r.int(10);
  if (roll < 3) {
    const others = ROLES[type]!.filter((x) => x !== role || r.chance(0.1));
    return { type: 'UpdateRole', resource: type, role, extends: others.filter(() => r.chance(0.5)) };
  }
  // Every role keeps 'read' (tests count readers as holders); the other action comes and goes, by a role's own or inherited.
  const other = ACTIONS[type]!.filter((a) => a !== 'read');
  if (roll < 5) return { type: 'AssignRolePermissions', resource: type, role, permissions: other };
  if (roll < 7) return { type: 'RemoveRolePermissions', resource: type, role, permissions: other };
  const current = s.roles.get(`${type}#${role}`)?.noDirectRolesOnObject ?? false;
  return { type: 'SetDerivationConditions', resource: type, role, noDirectRolesOnObject: r.chance(0.7) ? !current : current };
}

/** The world's vocabulary, for tests that ask about every user, instance and action in it. */
export const WORLD = { TYPES, KEYS, USERS, TENANTS, ACTIONS } as const;
