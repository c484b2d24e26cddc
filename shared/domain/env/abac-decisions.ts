import { DuplicateEntityError, InvalidRequestError, NotFoundError, ValidationError } from '../../errors';
import type { EnvEvent } from '../../events';
import { checkTypes, parseConditions, pathsOf, type AttributePath } from '../abac';
import type { ConditionSetState } from './abac-state';
import { setRuleKey } from './abac-state';
import { Cascade } from './cascade';
import type { EnvCommand } from './commands';
import { findResource, findRole } from './lookup';
import { keyOfId, type EnvState } from './state';

type Cmd<T extends EnvCommand['type']> = Extract<EnvCommand, { type: T }>;

/** Permit keeps user and tenant attribute schemas as the resource types `__user` and `__tenant`. */
const attributeOwner = { user: '__user', tenant: '__tenant' } as const;

export function findConditionSet(s: EnvState, ref: string): ConditionSetState {
  const set = s.abac.conditionSets.get(ref) ?? s.abac.conditionSets.get(keyOfId(s, ref) ?? '');
  if (!set) throw new NotFoundError(`Condition set '${ref}' not found`, { condition_set: ref });
  return set;
}

/** The resource type whose attribute schema declares `path` in a set of `resource` (null: none, so unchecked). */
const ownerOf = (path: AttributePath, resource: string | null): string | null =>
  path.subject === 'context' ? null : path.subject === 'resource' ? resource : attributeOwner[path.subject];

/** Parses and type-checks a set's conditions against the attribute schemas; 422 naming every problem. */
function checkConditions(
  s: EnvState,
  resource: string | null,
  conditions: Record<string, unknown>,
  override?: { owner: string; key: string; type: string },
): void {
  const parsed = parseConditions(conditions);
  const typeOf = (path: AttributePath): string | undefined => {
    const owner = ownerOf(path, resource);
    if (owner === null) return undefined;
    if (override && owner === override.owner && path.name === override.key) return override.type;
    return s.abac.attributeTypes.get(owner)?.get(path.name);
  };
  const problems = parsed.ok ? checkTypes(parsed.condition, typeOf) : parsed.problems;
  if (problems.length > 0) {
    throw new ValidationError(problems.map((p) => ({ loc: ['body', p.at], msg: p.message, type: 'value_error' })));
  }
}

/** A parent must be a set of the same type (and resource type), and not the set itself or one of its descendants. */
function checkParent(s: EnvState, set: { key: string; type: string; resource: string | null }, ref: string | null): string | null {
  if (ref === null) return null;
  const parent = findConditionSet(s, ref);
  if (parent.type !== set.type || parent.resource !== set.resource) {
    throw new InvalidRequestError(
      `Condition set '${parent.key}' cannot be the parent of '${set.key}': a parent is a set of the same type and resource`,
    );
  }
  for (let at: ConditionSetState | undefined = parent; at; at = at.parent === null ? undefined : s.abac.conditionSets.get(at.parent)) {
    if (at.key === set.key)
      throw new InvalidRequestError(`Condition set '${parent.key}' descends from '${set.key}': a set cannot be its own ancestor`);
  }
  return parent.key;
}

/**
 * An attribute that conditions compare cannot be deleted, nor given a type
 * they cannot compare (they would silently match nothing): the change is
 * refused naming the condition sets, which are changed or deleted first.
 */
export function checkAttributeChange(s: EnvState, owner: string, key: string, newType: string | null): void {
  const using: string[] = [];
  for (const set of s.abac.conditionSets.values()) {
    const parsed = parseConditions(set.conditions);
    if (!parsed.ok) continue;
    if (!pathsOf(parsed.condition).some((p) => p.name === key && ownerOf(p, set.resource) === owner)) continue;
    if (newType === null) using.push(set.key);
    else {
      try {
        checkConditions(s, set.resource, set.conditions, { owner, key, type: newType });
      } catch {
        using.push(set.key);
      }
    }
  }
  if (using.length > 0) {
    const what = newType === null ? 'deleted' : `given type '${newType}'`;
    throw new InvalidRequestError(
      `Attribute '${key}' of '${owner}' cannot be ${what}: condition set(s) ${using.map((k) => `'${k}'`).join(', ')} compare it`,
    );
  }
}

export function createConditionSet(c: Cmd<'CreateConditionSet'>, s: EnvState): EnvEvent[] {
  if (s.abac.conditionSets.has(c.key)) throw new DuplicateEntityError(`Condition set '${c.key}' already exists`);
  if (c.setType === 'resourceset' && c.resource === null)
    throw new InvalidRequestError('A resource set names its resource type (resource_id)');
  if (c.setType === 'userset' && c.resource !== null)
    throw new InvalidRequestError('A user set has no resource type (resource_id is for resource sets)');
  const resource = c.resource === null ? null : findResource(s, c.resource).key;
  const parent = checkParent(s, { key: c.key, type: c.setType, resource }, c.parent);
  checkConditions(s, resource, c.conditions);
  const data = {
    id: c.id,
    key: c.key,
    type: c.setType,
    resource,
    name: c.name,
    description: c.description,
    parent,
    conditions: c.conditions,
  };
  return [{ type: 'ConditionSetCreated', data }];
}

export function updateConditionSet(c: Cmd<'UpdateConditionSet'>, s: EnvState): EnvEvent[] {
  const set = findConditionSet(s, c.set);
  const parent = c.parent === undefined ? set.parent : checkParent(s, set, c.parent);
  const conditions = c.conditions ?? set.conditions;
  if (c.conditions !== undefined) checkConditions(s, set.resource, conditions);
  const { id, key, type, resource } = set;
  const data = { id, key, type, resource, name: c.name ?? set.name, description: c.description ?? set.description, parent, conditions };
  return [{ type: 'ConditionSetUpdated', data }];
}

export function deleteConditionSet(c: Cmd<'DeleteConditionSet'>, s: EnvState): EnvEvent[] {
  // Its set rules and its descendant sets (with theirs) go with it.
  return new Cascade(s).conditionSet(findConditionSet(s, c.set)).events();
}

/** The rule a command names, resolved to keys and checked: sets of the right types, the permission's resource matching the resource set's. */
function resolveRule(c: Cmd<'CreateSetRule'> | Cmd<'DeleteSetRule'>, s: EnvState) {
  const userSet = c.isRole ? findRole(s, null, c.userSet).key : findConditionSet(s, c.userSet);
  if (typeof userSet !== 'string' && userSet.type !== 'userset')
    throw new InvalidRequestError(`Condition set '${userSet.key}' is not a user set`);
  const [type, actionKey, extra] = c.permission.split(':');
  if (!type || !actionKey || extra !== undefined)
    throw new InvalidRequestError(`Permission '${c.permission}' must have the form 'resource:action'`);
  const resource = findResource(s, type);
  if (!resource.actions.has(actionKey)) {
    throw new NotFoundError(`Action '${actionKey}' is not defined on resource '${resource.key}'`, {
      action: actionKey,
      resource: resource.key,
    });
  }
  let resourceSet: string;
  if (c.isResource) resourceSet = findResource(s, c.resourceSet).key;
  else {
    const set = findConditionSet(s, c.resourceSet);
    if (set.type !== 'resourceset') throw new InvalidRequestError(`Condition set '${set.key}' is not a resource set`);
    resourceSet = set.key;
    if (set.resource !== resource.key) {
      throw new InvalidRequestError(
        `Resource set '${set.key}' is a set of '${set.resource}', not of '${resource.key}' (permission '${c.permission}')`,
      );
    }
  }
  if (c.isResource && resourceSet !== resource.key) {
    throw new InvalidRequestError(`Permission '${c.permission}' is not an action of resource '${resourceSet}'`);
  }
  return {
    userSet: typeof userSet === 'string' ? userSet : userSet.key,
    userSetIsRole: c.isRole,
    permission: `${resource.key}:${actionKey}`,
    resourceSet,
    resourceSetIsResource: c.isResource,
  };
}

export function createSetRule(c: Cmd<'CreateSetRule'>, s: EnvState): EnvEvent[] {
  const rule = resolveRule(c, s);
  // Granting what is already granted changes nothing (Permit answers with the rule as it is).
  if (s.abac.setRules.has(setRuleKey(rule))) return [];
  const key = `${rule.userSet}_${rule.permission.replace(':', '_')}_${rule.resourceSet}`;
  return [{ type: 'SetRuleCreated', data: { id: c.id, key, ...rule } }];
}

export function deleteSetRule(c: Cmd<'DeleteSetRule'>, s: EnvState): EnvEvent[] {
  const existing = s.abac.setRules.get(setRuleKey(resolveRule(c, s)));
  if (!existing) throw new NotFoundError(`No set rule grants '${c.permission}' to '${c.userSet}' on '${c.resourceSet}'`);
  return [{ type: 'SetRuleDeleted', data: { ...existing } }];
}
