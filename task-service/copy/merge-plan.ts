import type { EnvCommand } from '../../shared/domain/env/commands';
import { envDecider } from '../../shared/domain/env/decider';
import type { DerivationRule, EnvEvent } from '../../shared/events';
import { copiedId } from '../../shared/ids';
import { assignmentEndKey, tupleEndKey } from '../../shared/domain/env/state';
import { applyToSnapshot, definitionsOf, roleDef, type EnvDefinitions, type EnvSnapshot, type RoleDef } from './env-snapshot';
import { conditionSetConflicts, mergeConditionSets } from './merge-abac';
import { mergeProxyConfigs, proxyConfigConflicts } from './merge-proxy-configs';
import type { CopyScope } from './scope';

/**
 * Plans a copy into an existing environment: which target objects conflict
 * with the source (same identity, different definition), and the events that
 * make the target hold everything the source holds.
 *
 * - Objects only in the target stay. Identical objects are left alone (so
 *   copying twice changes nothing the second time).
 * - `fail`: any conflict refuses the whole copy; nothing changes.
 * - `overwrite`: a conflicting role is updated in place (deleted and created
 *   again if its attributes differ); a differing tenant or user, and an
 *   instance that differs only in its attributes, are updated in place too,
 *   keeping their id and what depends on them; any other conflicting object
 *   (a resource type, a relation, an instance in another tenant) is deleted
 *   with what depends on it, as a DELETE request would, and created again as
 *   the source defines it.
 *
 * Every step is a command run through the environment decider against the
 * target's state, so the result obeys the same rules as API writes; a refused
 * command refuses the whole plan.
 */

export type ConflictKind = 'resource' | 'role' | 'relation' | 'tenant' | 'user' | 'instance' | 'condition_set' | 'proxy_config';
export interface Conflict {
  kind: ConflictKind;
  key: string;
}

export interface MergeInput {
  source: EnvSnapshot;
  /** The target: the plan's commands are decided against it, and their events folded into it, in place. */
  target: EnvSnapshot;
  scope: CopyScope;
  strategy: 'fail' | 'overwrite';
  targetEnvironmentId: string;
}

export type MergePlan = { ok: true; events: EnvEvent[]; conflicts: Conflict[] } | { ok: false; conflicts: Conflict[] };

export function planMerge(input: MergeInput): MergePlan {
  const { target, scope } = input;
  const source = definitionsOf(input.source);
  const conflicts = [
    ...findConflicts(source, definitionsOf(target), scope),
    ...conditionSetConflicts(input.source, target).map((key) => ({ kind: 'condition_set' as const, key })),
    ...proxyConfigConflicts(input.source, target).map((key) => ({ kind: 'proxy_config' as const, key })),
  ];
  if (conflicts.length > 0 && input.strategy === 'fail') return { ok: false, conflicts };

  const events: EnvEvent[] = [];
  const run = (command: EnvCommand) => {
    for (const event of envDecider.decide(command, target)) {
      applyToSnapshot(target, event);
      events.push(event);
    }
  };
  const newId = (sourceId: string) => copiedId(input.targetEnvironmentId, sourceId);

  // 1. Overwrite: take conflicting objects out (a cascade may already have taken some).
  // Tenants (and users) are updated in place in step 3: their instances and assignments stay.
  const order: ConflictKind[] = ['instance', 'relation', 'role', 'resource'];
  for (const kind of order) {
    for (const { key } of conflicts.filter((c) => c.kind === kind)) {
      // An instance that stays in its tenant only has its attributes replaced (step 3), keeping its tuples and assignments.
      const movesTenant = target.instances.get(key)?.tenant !== source.instances.get(key)?.tenant;
      if (kind === 'instance' && target.instances.has(key) && movesTenant) run({ type: 'DeleteInstance', instance: key });
      const relation = target.relations.get(key);
      if (kind === 'relation' && relation) run({ type: 'DeleteRelation', objectResource: relation.objectResource, relation: relation.key });
      const role = roleDef(target, key);
      if (kind === 'role' && role && !sameJson(role.attributes, source.roles.get(key)!.attributes))
        run({ type: 'DeleteRole', resource: role.resource, role: role.key });
      if (kind === 'resource' && target.resources.has(key)) run({ type: 'DeleteResource', resource: key });
    }
  }

  // 2. Policy, in dependency order; derivations last, once every role and relation they name exists.
  for (const [key, r] of source.resources) {
    if (!target.resources.has(key)) {
      run({
        type: 'CreateResource',
        id: newId(r.id),
        key,
        name: r.name,
        description: r.description,
        urn: r.urn,
        attributes: r.attributes.map((a) => ({ ...a, id: newId(a.id) })),
        actions: r.actions.map((a) => ({ ...a, id: newId(a.id) })),
      });
      for (const g of r.actionGroups) {
        run({
          type: 'CreateActionGroup',
          resource: key,
          id: newId(g.id),
          key: g.key,
          name: g.name,
          description: g.description,
          actions: g.actions,
        });
      }
    }
  }
  for (const [key, r] of source.relations) {
    if (!target.relations.has(key)) {
      run({
        type: 'CreateRelation',
        id: newId(r.id),
        objectResource: r.objectResource,
        key: r.key,
        name: r.name,
        description: r.description,
        subjectResource: r.subjectResource,
      });
    }
  }
  for (const [key, r] of source.roles) {
    const existing = roleDef(target, key);
    if (!existing) {
      run({
        type: 'CreateRole',
        id: newId(r.id),
        resource: r.resource,
        key: r.key,
        name: r.name,
        description: r.description,
        permissions: r.permissions,
        attributes: r.attributes,
      });
    } else if (existing.name !== r.name || existing.description !== r.description || !sameSet(existing.permissions, r.permissions)) {
      run({
        type: 'UpdateRole',
        resource: r.resource,
        role: r.key,
        name: r.name,
        description: r.description ?? undefined,
        permissions: r.permissions,
      });
    }
  }
  for (const [key, r] of source.roles) {
    if (!sameRules(target.roles.get(key)!.rules, r.rules))
      run({ type: 'UpdateRole', resource: r.resource, role: r.key, grantedTo: r.rules });
  }
  // After every role exists: inheritance and derivation conditions name other roles.
  for (const [key, r] of source.roles) {
    const t = target.roles.get(key)!;
    if (!sameSet(t.extends ?? [], r.extends)) run({ type: 'UpdateRole', resource: r.resource, role: r.key, extends: r.extends });
    if ((t.noDirectRolesOnObject ?? false) !== r.noDirectRolesOnObject)
      run({ type: 'UpdateRole', resource: r.resource, role: r.key, noDirectRolesOnObject: r.noDirectRolesOnObject });
  }
  // Condition sets and set rules, once the resource types, actions and roles they name exist.
  mergeConditionSets(input.source, target, run, newId, new Set(conflicts.filter((c) => c.kind === 'condition_set').map((c) => c.key)));
  mergeProxyConfigs(input.source, target, run, newId, new Set(conflicts.filter((c) => c.kind === 'proxy_config').map((c) => c.key)));
  if (!scope.facts) return { ok: true, events, conflicts };

  // 3. Directory data.
  const differing = (kind: ConflictKind) => new Set(conflicts.filter((c) => c.kind === kind).map((c) => c.key));
  const differingTenants = differing('tenant');
  for (const [key, t] of source.tenants) {
    if (differingTenants.has(key) && target.tenants.has(key))
      run({ type: 'UpdateTenant', tenant: key, name: t.name, description: t.description, attributes: t.attributes });
    if (!target.tenants.has(key))
      run({ type: 'CreateTenant', id: newId(t.id), key, name: t.name, description: t.description, attributes: t.attributes });
  }
  const differingUsers = differing('user');
  for (const [key, u] of source.users) {
    // Overwrite: a differing profile is replaced in place (the user keeps its id and its assignments).
    if (differingUsers.has(key) && target.users.has(key))
      run({ type: 'UpdateUser', user: key, email: u.email, firstName: u.firstName, lastName: u.lastName, attributes: u.attributes });
    if (!target.users.has(key))
      run({
        type: 'CreateUser',
        id: newId(u.id),
        key,
        email: u.email,
        firstName: u.firstName,
        lastName: u.lastName,
        attributes: u.attributes,
      });
  }
  const differingInstances = differing('instance');
  for (const [key, i] of source.instances) {
    if (differingInstances.has(key) && target.instances.has(key)) run({ type: 'UpdateInstance', instance: key, attributes: i.attributes });
    if (!target.instances.has(key))
      run({ type: 'CreateInstance', id: newId(i.id), key: i.key, resource: i.resource, tenant: i.tenant, attributes: i.attributes });
  }
  // Ends go with their facts (docs/expiring-access.md): a fact the target holds with another end takes the source's.
  const endOf = (snapshot: EnvSnapshot, key: string) => snapshot.ends.get(key) ?? null;
  for (const [key, a] of source.assignments) {
    const end = endOf(input.source, assignmentEndKey(a));
    if (target.assignments.has(key) && endOf(target, assignmentEndKey(a)) === end) continue;
    run({
      type: 'AssignRole',
      id: newId(a.id),
      newUserId: newId(`user:${a.user}`),
      user: a.user,
      role: a.role,
      tenant: a.resourceInstance === null ? a.tenant : null,
      resourceInstance: a.resourceInstance,
      ...(end === null && !target.assignments.has(key) ? {} : { expiresAt: end }),
    });
  }
  for (const [key, t] of source.tuples) {
    const end = endOf(input.source, tupleEndKey(t));
    if (target.tuples.has(key) && endOf(target, tupleEndKey(t)) === end) continue;
    run({
      type: 'CreateTuple',
      id: newId(t.id),
      subject: t.subject,
      relation: t.relation,
      object: t.object,
      tenant: null,
      ...(end === null && !target.tuples.has(key) ? {} : { expiresAt: end }),
    });
  }
  return { ok: true, events, conflicts };
}

/** Objects present on both sides whose definitions differ. */
export function findConflicts(source: EnvDefinitions, target: EnvDefinitions, scope: CopyScope): Conflict[] {
  const conflicts: Conflict[] = [];
  const check = <T>(kind: ConflictKind, from: ReadonlyMap<string, T>, to: ReadonlyMap<string, T>, same: (a: T, b: T) => boolean) => {
    for (const [key, s] of from) {
      const t = to.get(key);
      if (t !== undefined && !same(s, t)) conflicts.push({ kind, key });
    }
  };
  check(
    'resource',
    source.resources,
    target.resources,
    (a, b) =>
      a.name === b.name &&
      a.description === b.description &&
      a.urn === b.urn &&
      sameJson(withoutIds(a.attributes), withoutIds(b.attributes)) &&
      sameJson(withoutIds(a.actionGroups), withoutIds(b.actionGroups)) &&
      sameJson(
        sortBy(
          a.actions.map(({ key, name, description }) => ({ key, name, description })),
          'key',
        ),
        sortBy(
          b.actions.map(({ key, name, description }) => ({ key, name, description })),
          'key',
        ),
      ),
  );
  check(
    'relation',
    source.relations,
    target.relations,
    (a, b) => a.name === b.name && a.description === b.description && a.subjectResource === b.subjectResource,
  );
  check('role', source.roles, target.roles, sameRole);
  if (scope.facts) {
    check(
      'tenant',
      source.tenants,
      target.tenants,
      (a, b) => a.name === b.name && a.description === b.description && sameJson(a.attributes, b.attributes),
    );
    check(
      'user',
      source.users,
      target.users,
      (a, b) => a.email === b.email && a.firstName === b.firstName && a.lastName === b.lastName && sameJson(a.attributes, b.attributes),
    );
    check('instance', source.instances, target.instances, (a, b) => a.tenant === b.tenant && sameJson(a.attributes, b.attributes));
  }
  return conflicts;
}

const sameRole = (a: RoleDef, b: RoleDef) =>
  a.name === b.name &&
  a.description === b.description &&
  sameSet(a.permissions, b.permissions) &&
  sameJson(a.attributes, b.attributes) &&
  sameRules(a.rules, b.rules) &&
  sameSet(a.extends, b.extends) &&
  a.noDirectRolesOnObject === b.noDirectRolesOnObject;

const ruleId = (r: DerivationRule) => `${r.onResource}#${r.role}@${r.relation}`;
const sameRules = (a: DerivationRule[], b: DerivationRule[]) => sameSet(a.map(ruleId), b.map(ruleId));
const sameSet = (a: string[], b: string[]) => {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((x) => right.has(x));
};
/** Parts compared by key and definition: their ids differ between environments. */
const withoutIds = <T extends { id: string; key: string }>(parts: T[]) =>
  Object.fromEntries(parts.map(({ id: _id, key, ...rest }) => [key, rest]));
const sortBy = <T extends Record<K, string>, K extends string>(items: T[], key: K) =>
  [...items].sort((x, y) => x[key].localeCompare(y[key]));

/** Structural equality of JSON values, ignoring object key order. */
export function sameJson(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}
