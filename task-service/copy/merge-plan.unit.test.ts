import type { EnvEvent } from '../../shared/events';
import { applyToSnapshot, definitionsOf, emptySnapshot } from './env-snapshot';
import { planMerge, sameJson, type MergeInput } from './merge-plan';

const action = (key: string) => ({ id: `${key}-id`, key, name: key, description: '' });
const resource = (key: string, actions: string[], id = `${key}-id`): EnvEvent => ({
  type: 'ResourceCreated',
  data: { id, key, name: key, description: '', attributes: {}, actions: actions.map(action) },
});
const role = (res: string, key: string, permissions: string[], name = key): EnvEvent => ({
  type: 'RoleCreated',
  data: { id: `${res}-${key}-id`, key, resource: res, name, description: '', permissions, attributes: {} },
});
const policy: EnvEvent[] = [
  resource('folder', ['read', 'write']),
  resource('file', ['read']),
  role('folder', 'editor', ['read', 'write']),
  role('file', 'viewer', ['read']),
  {
    type: 'RelationCreated',
    data: { id: 'parent-id', key: 'parent', name: 'Parent', description: '', objectResource: 'file', subjectResource: 'folder' },
  },
  {
    type: 'ImplicitGrantAdded',
    data: { id: 'file-viewer-id', key: 'viewer', resource: 'file', rule: { onResource: 'folder', role: 'editor', relation: 'parent' } },
  },
];
const facts: EnvEvent[] = [
  { type: 'TenantCreated', data: { id: 'acme-id', key: 'acme', name: 'Acme', description: '', attributes: {} } },
  { type: 'ResourceInstanceCreated', data: { id: 'docs-id', key: 'docs', resource: 'folder', tenant: 'acme', attributes: {} } },
  { type: 'ResourceInstanceCreated', data: { id: 'readme-id', key: 'readme', resource: 'file', tenant: 'acme', attributes: {} } },
  { type: 'UserCreated', data: { id: 'alice-id', key: 'alice', email: null, firstName: null, lastName: null, attributes: {} } },
  {
    type: 'RoleAssigned',
    data: { id: 'as-id', user: 'alice', role: 'editor', resource: 'folder', tenant: 'acme', resourceInstance: 'folder:docs' },
  },
  {
    type: 'RelationshipTupleCreated',
    data: { id: 'tu-id', subject: 'folder:docs', relation: 'parent', object: 'file:readme', tenant: 'acme' },
  },
];

function input(source: EnvEvent[], target: EnvEvent[], overrides: Partial<MergeInput> = {}): MergeInput {
  const s = emptySnapshot();
  source.forEach((e) => applyToSnapshot(s, e));
  const t = emptySnapshot();
  target.forEach((e) => applyToSnapshot(t, e));
  return {
    source: s,
    target: t,
    scope: { facts: true },
    strategy: 'fail',
    targetEnvironmentId: 'target-env',
    ...overrides,
  };
}

/** Folds events into a snapshot and returns it without ids, for comparing what two environments hold. */
function contents(events: EnvEvent[]) {
  const s = emptySnapshot();
  events.forEach((e) => applyToSnapshot(s, e));
  const strip = (m: Map<string, object>) =>
    [...m.entries()].map(([k, v]) => [k, JSON.parse(JSON.stringify(v, (key, val) => (key === 'id' ? undefined : val)))]).sort();
  return Object.fromEntries(Object.entries(definitionsOf(s)).map(([kind, map]) => [kind, strip(map as Map<string, object>)]));
}

describe('planning a copy into an existing environment', () => {
  it('changes nothing when the target already holds the same objects', () => {
    const plan = planMerge(input([...policy, ...facts], [...policy, ...facts]));
    expect(plan).toEqual({ ok: true, events: [], conflicts: [] });
  });

  it('creates what is missing, in an order the decider accepts, with ids derived from the target', () => {
    const plan = planMerge(input([...policy, ...facts], []));
    if (!plan.ok) throw new Error('expected a plan');
    expect(plan.events.map((e) => e.type)).toEqual([
      'ResourceCreated',
      'ResourceCreated',
      'RelationCreated',
      'RoleCreated',
      'RoleCreated',
      'RoleDerivationsReplaced',
      'TenantCreated',
      'UserCreated',
      'ResourceInstanceCreated',
      'ResourceInstanceCreated',
      'RoleAssigned',
      'RelationshipTupleCreated',
    ]);
    expect(contents(plan.events)).toEqual(contents([...policy, ...facts]));
    expect(plan.events[0]!.data.id).not.toBe('folder-id');
  });

  it('leaves the facts out of the comparison and the plan without scope.facts', () => {
    const otherTenant: EnvEvent = {
      type: 'TenantCreated',
      data: { id: 'x', key: 'acme', name: 'Other name', description: '', attributes: {} },
    };
    const plan = planMerge(input([...policy, ...facts], [otherTenant], { scope: { facts: false } }));
    if (!plan.ok) throw new Error('expected a plan');
    expect(plan.conflicts).toEqual([]);
    expect(plan.events.every((e) => !['TenantCreated', 'RoleAssigned', 'RelationshipTupleCreated'].includes(e.type))).toBe(true);
  });

  it('with fail, reports every differing object and plans nothing', () => {
    const target = [
      resource('folder', ['read']),
      role('folder', 'editor', ['read'], 'Other editor'),
      { type: 'TenantCreated', data: { id: 'x', key: 'acme', name: 'Other', description: '', attributes: {} } } as EnvEvent,
    ];
    expect(planMerge(input([...policy, ...facts], target))).toEqual({
      ok: false,
      conflicts: [
        { kind: 'resource', key: 'folder' },
        { kind: 'role', key: 'folder#editor' },
        { kind: 'tenant', key: 'acme' },
      ],
    });
  });

  it('with overwrite, updates a differing role in place and keeps target-only objects', () => {
    const target = [...policy.slice(0, 2), role('folder', 'editor', ['read'], 'Other editor'), role('folder', 'auditor', ['read'])];
    const plan = planMerge(input(policy, target, { strategy: 'overwrite', scope: { facts: false } }));
    if (!plan.ok) throw new Error('expected a plan');
    expect(plan.conflicts).toEqual([{ kind: 'role', key: 'folder#editor' }]);
    expect(plan.events.find((e) => e.type === 'RoleUpdated')).toMatchObject({
      data: { key: 'editor', name: 'editor', permissions: ['read', 'write'] },
    });
    expect(plan.events.some((e) => e.type === 'RoleDeleted')).toBe(false);
    const after = contents([...target, ...plan.events]);
    expect(after.roles).toEqual(
      [...(contents(policy).roles ?? []), ['folder#auditor', expect.objectContaining({ key: 'auditor' })]].sort(),
    );
  });

  it('with overwrite, replaces a differing resource type with what depends on it, as a delete would', () => {
    const target = [resource('folder', ['read', 'share']), role('folder', 'owner', ['share'])];
    const plan = planMerge(input(policy, target, { strategy: 'overwrite', scope: { facts: false } }));
    if (!plan.ok) throw new Error('expected a plan');
    expect(plan.events.slice(0, 2).map((e) => e.type)).toEqual(['RoleDeleted', 'ResourceDeleted']);
    expect(contents([...target, ...plan.events])).toEqual(contents(policy));
  });
});

describe('sameJson', () => {
  it('ignores key order but not values', () => {
    expect(sameJson({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 2 })).toBe(false);
    expect(sameJson([1, 2], [2, 1])).toBe(false);
  });
});

describe('planning a copy: users', () => {
  it('overwrite replaces a differing user profile in place, keeping its id and assignments', () => {
    const renamed: EnvEvent = {
      type: 'UserUpdated',
      data: { id: 'alice-id', key: 'alice', email: 'alice@example.com', firstName: 'Alice', attributes: { level: 2 } },
    };
    const plan = planMerge(input([...policy, ...facts, renamed], [...policy, ...facts], { strategy: 'overwrite' }));
    if (!plan.ok) throw new Error('expected a plan');
    expect(plan.conflicts).toEqual([{ kind: 'user', key: 'alice' }]);
    expect(plan.events).toEqual([
      {
        type: 'UserUpdated',
        data: { id: 'alice-id', key: 'alice', email: 'alice@example.com', firstName: 'Alice', lastName: null, attributes: { level: 2 } },
      },
    ]);
    expect(planMerge(input([...policy, ...facts, renamed], [...policy, ...facts])).ok).toBe(false);
  });
});

describe('planning a copy: tenants and instances', () => {
  it('overwrite updates a differing tenant and an instance’s attributes in place, keeping what they hold', () => {
    const target: EnvEvent[] = [
      ...policy,
      ...facts.map((e) => (e.type === 'TenantCreated' ? { ...e, data: { ...e.data, name: 'Old name' } } : e)),
      {
        type: 'ResourceInstanceUpdated',
        data: { id: 'docs-id', key: 'docs', resource: 'folder', tenant: 'acme', attributes: { stale: true } },
      },
      {
        type: 'RoleAssigned',
        data: { id: 'own', user: 'zoe', role: 'editor', resource: 'folder', tenant: 'acme', resourceInstance: 'folder:docs' },
      },
    ];
    const plan = planMerge(input([...policy, ...facts], target, { strategy: 'overwrite' }));
    if (!plan.ok) throw new Error('expected a plan');
    expect(plan.conflicts).toEqual([
      { kind: 'tenant', key: 'acme' },
      { kind: 'instance', key: 'folder:docs' },
    ]);
    expect(plan.events).toEqual([
      { type: 'TenantUpdated', data: { id: 'acme-id', key: 'acme', name: 'Acme', description: '', attributes: {} } },
      { type: 'ResourceInstanceUpdated', data: { id: 'docs-id', key: 'docs', resource: 'folder', tenant: 'acme', attributes: {} } },
    ]);
  });

  it('overwrite replaces an instance that moved tenant, with what depends on it', () => {
    const globex: EnvEvent = {
      type: 'TenantCreated',
      data: { id: 'globex-id', key: 'globex', name: 'Globex', description: '', attributes: {} },
    };
    const target: EnvEvent[] = [
      ...policy,
      globex,
      { type: 'ResourceInstanceCreated', data: { id: 'docs-id', key: 'docs', resource: 'folder', tenant: 'globex', attributes: {} } },
    ];
    const plan = planMerge(input([...policy, ...facts], target, { strategy: 'overwrite' }));
    if (!plan.ok) throw new Error('expected a plan');
    expect(plan.events[0]).toMatchObject({ type: 'ResourceInstanceDeleted', data: { key: 'docs', tenant: 'globex' } });
    expect(plan.events).toContainEqual(
      expect.objectContaining({ type: 'ResourceInstanceCreated', data: expect.objectContaining({ key: 'docs', tenant: 'acme' }) }),
    );
  });
});
