import type { EnvEvent } from '../../shared/events';
import { applyToSnapshot, emptySnapshot } from './env-snapshot';
import { planMerge, type MergeInput } from './merge-plan';

const doc: EnvEvent = {
  type: 'ResourceCreated',
  data: {
    id: 'doc-id',
    key: 'doc',
    name: 'Doc',
    description: '',
    attributes: {},
    actions: [{ id: 'read-id', key: 'read', name: 'read', description: '' }],
  },
};
const set = (
  key: string,
  conditions: Record<string, unknown>,
  extra: Partial<{ type: 'userset' | 'resourceset'; resource: string | null; parent: string | null }> = {},
): EnvEvent => ({
  type: 'ConditionSetCreated',
  data: { id: `${key}-id`, key, type: 'userset', resource: null, name: key, description: '', parent: null, conditions, ...extra },
});
const adults = set('adults', { 'user.age': { 'greater-than-equals': 18 } });
const euAdults = set('eu-adults', { 'user.region': { equals: 'eu' } }, { parent: 'adults' });
const publicDocs = set('public', { 'resource.open': { equals: true } }, { type: 'resourceset', resource: 'doc' });
const rule: EnvEvent = {
  type: 'SetRuleCreated',
  data: {
    id: 'rule-id',
    key: 'r',
    userSet: 'eu-adults',
    userSetIsRole: false,
    permission: 'doc:read',
    resourceSet: 'public',
    resourceSetIsResource: false,
  },
};

function input(source: EnvEvent[], target: EnvEvent[], strategy: 'fail' | 'overwrite' = 'fail'): MergeInput {
  const s = emptySnapshot();
  source.forEach((e) => applyToSnapshot(s, e));
  const t = emptySnapshot();
  target.forEach((e) => applyToSnapshot(t, e));
  return { source: s, target: t, scope: { facts: false }, strategy, targetEnvironmentId: 'target-env' };
}

describe('a copy into an existing environment: condition sets and set rules', () => {
  // The source holds eu-adults before its parent: the plan creates the parent first.
  it('creates the missing sets (parents first) and rules', () => {
    const plan = planMerge(input([doc, euAdults, adults, publicDocs, rule], [doc]));
    expect(plan.ok).toBe(true);
    if (!plan.ok) return;
    expect(plan.events.map((e) => `${e.type} ${(e.data as { key: string }).key}`)).toEqual([
      'ConditionSetCreated adults',
      'ConditionSetCreated eu-adults',
      'ConditionSetCreated public',
      'SetRuleCreated eu-adults_doc_read_public',
    ]);
  });

  it('copying twice changes nothing the second time', () => {
    const first = input([doc, adults, euAdults, publicDocs, rule], [doc]);
    const plan = planMerge(first);
    if (!plan.ok) throw new Error('refused');
    const again = planMerge({ ...first, target: first.target });
    expect(again).toEqual({ ok: true, events: [], conflicts: [] });
  });

  it('a set of the same key with other conditions is a conflict: fail refuses, overwrite replaces it in place', () => {
    const other = set('adults', { 'user.age': { 'greater-than-equals': 21 } });
    expect(planMerge(input([doc, adults], [doc, other]))).toEqual({ ok: false, conflicts: [{ kind: 'condition_set', key: 'adults' }] });
    const plan = planMerge(input([doc, adults], [doc, other], 'overwrite'));
    expect(plan.ok && plan.events.map((e) => e.type)).toEqual(['ConditionSetUpdated']);
    expect(plan.ok && (plan.events[0]!.data as { conditions: unknown }).conditions).toEqual({ 'user.age': { 'greater-than-equals': 18 } });
  });
});
