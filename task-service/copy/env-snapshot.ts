import type { AttributeDef, DerivationRule, EnvEvent } from '../../shared/events';
import { evolveEnv } from '../../shared/domain/env/fold';
import { initialDetailedEnvState, type DetailedEnvState } from '../../shared/domain/env/state';
import type { AssignmentState, RoleState, TupleState } from '../../shared/domain/env/state';
import type { ActionDetails, ActionGroupDetails, RoleDetails } from '../../shared/domain/env/details';

/**
 * An environment as a copy into an existing one compares and merges it: the
 * state the one environment fold builds (shared/domain/env/fold.ts), with its
 * objects' details kept. The decider decides against it as against any
 * command state, and the plan's events are folded into it by the same fold.
 */
export type EnvSnapshot = DetailedEnvState;

export const emptySnapshot = (): EnvSnapshot => initialDetailedEnvState();

/** Folds one event into the snapshot, in place. */
export function applyToSnapshot(snapshot: EnvSnapshot, event: EnvEvent): void {
  evolveEnv(snapshot, event);
}

/** Objects with their whole definitions: what two environments' objects are compared on. */
export interface ResourceDef {
  id: string;
  key: string;
  name: string;
  description: string | null;
  urn: string | null;
  actions: ActionDetails[];
  attributes: AttributeDef[];
  actionGroups: ActionGroupDetails[];
}
export interface RoleDef {
  id: string;
  key: string;
  resource: string | null;
  name: string;
  description: string | null;
  permissions: string[];
  attributes: Record<string, unknown>;
  rules: DerivationRule[];
  extends: string[];
  noDirectRolesOnObject: boolean;
}
export interface RelationDef {
  id: string;
  key: string;
  name: string;
  description: string | null;
  objectResource: string;
  subjectResource: string;
}
export interface TenantDef {
  id: string;
  key: string;
  name: string;
  description: string | null;
  attributes: Record<string, unknown>;
}
export interface UserDef {
  id: string;
  key: string;
  email: string | null;
  firstName: string | null;
  lastName: string | null;
  attributes: Record<string, unknown>;
}
export interface InstanceDef {
  id: string;
  key: string;
  resource: string;
  tenant: string;
  attributes: Record<string, unknown>;
}

/** A snapshot's objects as whole definitions, keyed as the state keys them. */
export interface EnvDefinitions {
  resources: ReadonlyMap<string, ResourceDef>;
  /** roleKey(resource, key) */
  roles: ReadonlyMap<string, RoleDef>;
  /** relationKey(objectResource, key) */
  relations: ReadonlyMap<string, RelationDef>;
  tenants: ReadonlyMap<string, TenantDef>;
  users: ReadonlyMap<string, UserDef>;
  /** `type:key` */
  instances: ReadonlyMap<string, InstanceDef>;
  /** assignmentKey(...): an assignment is its own definition. */
  assignments: ReadonlyMap<string, AssignmentState>;
  /** tupleKey(...): so is a tuple. */
  tuples: ReadonlyMap<string, TupleState>;
}

/** The snapshot's objects as they are now, with their details joined in. */
export function definitionsOf(s: EnvSnapshot): EnvDefinitions {
  const joined = <S, D, T>(objects: ReadonlyMap<string, S>, details: ReadonlyMap<string, D>, join: (object: S, details: D) => T) => {
    const result = new Map<string, T>();
    for (const [key, object] of objects) result.set(key, join(object, detailsOf(details, key)));
    return result;
  };
  const { details } = s;
  return {
    resources: joined(s.resources, details.resources, ({ id, key }, d) => ({ id, key, ...d })),
    roles: joined(s.roles, details.roles, (role, d) => roleDefOf(role, d)),
    relations: joined(s.relations, details.relations, (relation, d) => ({ ...relation, ...d })),
    tenants: joined(s.tenants, details.tenants, (tenant, d) => ({ ...tenant, ...d })),
    users: joined(s.users, details.users, (user, d) => ({ ...user, ...d })),
    instances: joined(s.instances, details.instances, (instance, d) => ({ ...instance, ...d })),
    assignments: s.assignments,
    tuples: s.tuples,
  };
}

/** One role's whole definition as it is now (the snapshot may be changing under a plan), or undefined. */
export function roleDef(s: EnvSnapshot, key: string): RoleDef | undefined {
  const role = s.roles.get(key);
  return role && roleDefOf(role, detailsOf(s.details.roles, key));
}

function roleDefOf(role: RoleState, d: RoleDetails): RoleDef {
  return {
    id: role.id,
    key: role.key,
    resource: role.resource,
    permissions: role.permissions,
    rules: role.rules,
    extends: role.extends ?? [],
    noDirectRolesOnObject: role.noDirectRolesOnObject ?? false,
    ...d,
  };
}

function detailsOf<D>(details: ReadonlyMap<string, D>, key: string): D {
  const found = details.get(key);
  // The fold writes an object and its details together; a miss means the snapshot was not built by it.
  if (found === undefined) throw new Error(`No details kept for '${key}': the snapshot was not folded with details`);
  return found;
}
