/**
 * What the environment decider knows of ABAC objects (docs/abac.md): condition
 * sets and set rules by key, and the declared attribute types of each resource
 * type (its attribute definitions; user attributes are those of `__user`),
 * against which conditions are checked when written.
 */
export interface ConditionSetState {
  id: string;
  key: string;
  type: 'userset' | 'resourceset';
  /** The resource type of a resource set; null for a user set. */
  resource: string | null;
  parent: string | null;
  name: string;
  description: string;
  conditions: Record<string, unknown>;
}

export interface SetRuleState {
  id: string;
  key: string;
  userSet: string;
  userSetIsRole: boolean;
  permission: string;
  resourceSet: string;
  resourceSetIsResource: boolean;
}

export interface AbacState {
  conditionSets: Map<string, ConditionSetState>;
  /** By setRuleKey(...). */
  setRules: Map<string, SetRuleState>;
  /** resource type → attribute → declared type. */
  attributeTypes: Map<string, Map<string, string>>;
}

export const emptyAbacState = (): AbacState => ({ conditionSets: new Map(), setRules: new Map(), attributeTypes: new Map() });

/** A set rule's identity: its three parts (with what kind of object each names). */
export const setRuleKey = (r: Omit<SetRuleState, 'id' | 'key'>): string =>
  [r.userSetIsRole ? 'role' : 'set', r.userSet, r.permission, r.resourceSetIsResource ? 'resource' : 'set', r.resourceSet].join('|');
