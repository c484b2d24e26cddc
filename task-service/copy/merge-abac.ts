import type { ConditionSetState } from '../../shared/domain/env/abac-state';
import { setRuleKey } from '../../shared/domain/env/abac-state';
import type { EnvCommand } from '../../shared/domain/env/commands';
import type { EnvSnapshot } from './env-snapshot';

/**
 * Condition sets and set rules in a copy into an existing environment (the
 * policy part of merge-plan.ts): a set with the same key and another
 * definition is a conflict; `overwrite` replaces it (in place, or deleted and
 * created again when its type or resource type differs); missing sets are
 * created parents first, then missing set rules.
 */

const sameJson = (a: unknown, b: unknown): boolean => canonical(a) === canonical(b);
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(record[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

const sameSet = (a: ConditionSetState, b: ConditionSetState) =>
  a.type === b.type &&
  a.resource === b.resource &&
  a.name === b.name &&
  a.description === b.description &&
  a.parent === b.parent &&
  sameJson(a.conditions, b.conditions);

/** Keys of the condition sets on both sides whose definitions differ. */
export function conditionSetConflicts(source: EnvSnapshot, target: EnvSnapshot): string[] {
  const out: string[] = [];
  for (const [key, set] of source.abac.conditionSets) {
    const other = target.abac.conditionSets.get(key);
    if (other && !sameSet(set, other)) out.push(key);
  }
  return out;
}

/** The source's sets, each after its parent. */
function parentsFirst(sets: ReadonlyMap<string, ConditionSetState>): ConditionSetState[] {
  const out: ConditionSetState[] = [];
  const placed = new Set<string>();
  const place = (set: ConditionSetState, depth: number) => {
    if (placed.has(set.key) || depth > sets.size) return;
    const parent = set.parent === null ? undefined : sets.get(set.parent);
    if (parent) place(parent, depth + 1);
    placed.add(set.key);
    out.push(set);
  };
  for (const set of sets.values()) place(set, 0);
  return out;
}

/** Runs the commands that make the target hold the source's condition sets and set rules. */
export function mergeConditionSets(
  source: EnvSnapshot,
  target: EnvSnapshot,
  run: (command: EnvCommand) => void,
  newId: (sourceId: string) => string,
  overwrite: ReadonlySet<string>,
): void {
  for (const set of parentsFirst(source.abac.conditionSets)) {
    const existing = target.abac.conditionSets.get(set.key);
    if (existing && overwrite.has(set.key) && (existing.type !== set.type || existing.resource !== set.resource)) {
      run({ type: 'DeleteConditionSet', set: set.key });
    }
    const now = target.abac.conditionSets.get(set.key);
    if (!now) {
      run({
        type: 'CreateConditionSet',
        id: newId(set.id),
        key: set.key,
        setType: set.type,
        resource: set.resource,
        name: set.name,
        description: set.description,
        parent: set.parent,
        conditions: set.conditions,
      });
    } else if (overwrite.has(set.key) && !sameSet(now, set)) {
      run({
        type: 'UpdateConditionSet',
        set: set.key,
        name: set.name,
        description: set.description,
        parent: set.parent,
        conditions: set.conditions,
      });
    }
  }
  for (const rule of source.abac.setRules.values()) {
    if (target.abac.setRules.has(setRuleKey(rule))) continue;
    run({
      type: 'CreateSetRule',
      id: newId(rule.id),
      userSet: rule.userSet,
      permission: rule.permission,
      resourceSet: rule.resourceSet,
      isRole: rule.userSetIsRole,
      isResource: rule.resourceSetIsResource,
    });
  }
}
