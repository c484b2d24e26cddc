import type { AttributeDef } from '../../events';

/**
 * What an environment's objects are beyond what the decider validates
 * against: names, descriptions, attributes, action definitions, user
 * profiles. The environment fold keeps them only in a state that asks for
 * them (`details` set, see initialDetailedEnvState): the copy compares whole
 * definitions when it merges one environment into another, while the command
 * state, which may hold millions of objects, stays without them.
 *
 * Each map is keyed as the state's map of the same kind (resource key,
 * roleKey, relationKey, tenant key, user key, instance ref) and holds an entry
 * exactly when that map does.
 */
export interface ActionDetails {
  id: string;
  key: string;
  name: string;
  description: string | null;
}
export interface ActionGroupDetails {
  id: string;
  key: string;
  name: string;
  description: string | null;
  actions: string[];
}
export interface ResourceDetails {
  name: string;
  description: string | null;
  urn: string | null;
  actions: ActionDetails[];
  attributes: AttributeDef[];
  actionGroups: ActionGroupDetails[];
}
export interface RoleDetails {
  name: string;
  description: string | null;
  attributes: Record<string, unknown>;
}
export interface RelationDetails {
  name: string;
  description: string | null;
}
export interface TenantDetails {
  name: string;
  description: string | null;
  attributes: Record<string, unknown>;
}
export interface UserDetails {
  email: string | null;
  firstName: string | null;
  lastName: string | null;
  attributes: Record<string, unknown>;
}
export interface InstanceDetails {
  attributes: Record<string, unknown>;
}

export interface ConditionSetDetails {
  name: string;
  description: string;
  conditions: Record<string, unknown>;
}

export interface EnvDetails {
  resources: Map<string, ResourceDetails>;
  roles: Map<string, RoleDetails>;
  relations: Map<string, RelationDetails>;
  tenants: Map<string, TenantDetails>;
  users: Map<string, UserDetails>;
  instances: Map<string, InstanceDetails>;
  conditionSets: Map<string, ConditionSetDetails>;
}

export function emptyEnvDetails(): EnvDetails {
  return {
    resources: new Map(),
    roles: new Map(),
    relations: new Map(),
    tenants: new Map(),
    users: new Map(),
    instances: new Map(),
    conditionSets: new Map(),
  };
}
