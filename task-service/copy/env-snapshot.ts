import type { DerivationRule, EnvEvent } from '../../shared/events';
import { assignmentKey, instanceRef, relationKey, roleKey, tupleKey } from '../../shared/domain/env/state';

/**
 * An environment's objects with their full definitions (names, descriptions,
 * actions, attributes), folded from its events. The decider's state keeps only
 * what validation needs; merging one environment into another needs to compare
 * whole definitions, hence this fold. Used for copies into an existing
 * environment, which are planned in memory.
 */
export interface ResourceDef {
  id: string;
  key: string;
  name: string;
  description: string;
  actions: Array<{ id: string; key: string; name: string; description: string }>;
  attributes: Record<string, unknown>;
}
export interface RoleDef {
  id: string;
  key: string;
  resource: string | null;
  name: string;
  description: string;
  permissions: string[];
  attributes: Record<string, unknown>;
  rules: DerivationRule[];
}
export interface RelationDef {
  id: string;
  key: string;
  name: string;
  description: string;
  objectResource: string;
  subjectResource: string;
}
export interface TenantDef {
  id: string;
  key: string;
  name: string;
  description: string;
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
export interface AssignmentDef {
  id: string;
  user: string;
  role: string;
  resource: string | null;
  tenant: string;
  resourceInstance: string | null;
}
export interface TupleDef {
  id: string;
  subject: string;
  relation: string;
  object: string;
  tenant: string;
}

export interface EnvSnapshot {
  resources: Map<string, ResourceDef>;
  /** roleKey(resource, key) */
  roles: Map<string, RoleDef>;
  /** relationKey(objectResource, key) */
  relations: Map<string, RelationDef>;
  tenants: Map<string, TenantDef>;
  users: Map<string, UserDef>;
  /** `type:key` */
  instances: Map<string, InstanceDef>;
  /** assignmentKey(...) */
  assignments: Map<string, AssignmentDef>;
  /** tupleKey(...) */
  tuples: Map<string, TupleDef>;
}

export function emptySnapshot(): EnvSnapshot {
  return {
    resources: new Map(),
    roles: new Map(),
    relations: new Map(),
    tenants: new Map(),
    users: new Map(),
    instances: new Map(),
    assignments: new Map(),
    tuples: new Map(),
  };
}

const sameRule = (a: DerivationRule, b: DerivationRule) => a.onResource === b.onResource && a.role === b.role && a.relation === b.relation;

/** Folds one event into the snapshot, in place. Deletions arrive as explicit events (cascades included), so nothing is inferred. */
export function applyToSnapshot(s: EnvSnapshot, event: EnvEvent): void {
  switch (event.type) {
    case 'ResourceCreated': {
      const d = event.data;
      s.resources.set(d.key, {
        id: d.id,
        key: d.key,
        name: d.name,
        description: d.description,
        actions: d.actions.map((a) => ({ ...a })),
        attributes: d.attributes,
      });
      break;
    }
    case 'ResourceDeleted':
      s.resources.delete(event.data.key);
      break;
    case 'RoleCreated': {
      const d = event.data;
      s.roles.set(roleKey(d.resource, d.key), {
        id: d.id,
        key: d.key,
        resource: d.resource,
        name: d.name,
        description: d.description,
        permissions: [...d.permissions],
        attributes: d.attributes,
        rules: [],
      });
      break;
    }
    case 'RoleUpdated': {
      const role = s.roles.get(roleKey(event.data.resource, event.data.key));
      if (!role) break;
      if (event.data.name !== null) role.name = event.data.name;
      if (event.data.description !== null) role.description = event.data.description;
      role.permissions = [...event.data.permissions];
      break;
    }
    case 'RoleDerivationsReplaced': {
      const role = s.roles.get(roleKey(event.data.resource, event.data.key));
      if (role) role.rules = event.data.rules.map((r) => ({ ...r }));
      break;
    }
    case 'ImplicitGrantAdded': {
      const role = s.roles.get(roleKey(event.data.resource, event.data.key));
      if (role && !role.rules.some((r) => sameRule(r, event.data.rule))) role.rules.push({ ...event.data.rule });
      break;
    }
    case 'ImplicitGrantRemoved': {
      const role = s.roles.get(roleKey(event.data.resource, event.data.key));
      if (role) role.rules = role.rules.filter((r) => !sameRule(r, event.data.rule));
      break;
    }
    case 'RoleDeleted':
      s.roles.delete(roleKey(event.data.resource, event.data.key));
      break;
    case 'RelationCreated': {
      const d = event.data;
      s.relations.set(relationKey(d.objectResource, d.key), { ...d });
      break;
    }
    case 'RelationDeleted':
      s.relations.delete(relationKey(event.data.objectResource, event.data.key));
      break;
    case 'TenantCreated':
      s.tenants.set(event.data.key, { ...event.data });
      break;
    case 'TenantDeleted':
      s.tenants.delete(event.data.key);
      break;
    case 'UserCreated':
      s.users.set(event.data.key, { ...event.data });
      break;
    case 'ResourceInstanceCreated':
      s.instances.set(instanceRef(event.data.resource, event.data.key), { ...event.data });
      break;
    case 'ResourceInstanceDeleted':
      s.instances.delete(instanceRef(event.data.resource, event.data.key));
      break;
    case 'RoleAssigned':
      s.assignments.set(assignmentKey(event.data), { ...event.data });
      break;
    case 'RoleUnassigned':
      s.assignments.delete(assignmentKey(event.data));
      break;
    case 'RelationshipTupleCreated':
      s.tuples.set(tupleKey(event.data), { ...event.data });
      break;
    case 'RelationshipTupleDeleted':
      s.tuples.delete(tupleKey(event.data));
      break;
  }
}
