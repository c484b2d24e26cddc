import type { DerivationRule, EnvEvent } from '../../events';
import {
  AssignmentSet,
  IdSlab,
  TupleSet,
  assignmentKey,
  emptyIdSlab,
  tupleKey,
  type IdSlabData,
  type IdStore,
  type StoredId,
} from './fact-sets';

export { AssignmentSet, IdSlab, TupleSet, assignmentKey, tupleKey };
export type { AssignmentState, TupleState } from './fact-sets';

/**
 * What the environment decider knows: every object's identity and the
 * references it must validate. Keys identify; ids are kept so that any path
 * id may be a key or a UUID.
 */
export interface ResourceState {
  id: string;
  key: string;
  actions: Set<string>;
}
export interface RoleState {
  id: string;
  key: string;
  resource: string | null;
  permissions: string[];
  /** `granted_to.users_with_role` and implicit grants are one list: both are derivation rules. */
  rules: DerivationRule[];
}
export interface RelationState {
  id: string;
  key: string;
  objectResource: string;
  subjectResource: string;
}
export interface InstanceState {
  id: string;
  key: string;
  resource: string;
  tenant: string;
}

export interface EnvState {
  resources: Map<string, ResourceState>;
  /** `${resource ?? ''}#${role}`; top-level roles have an empty resource part. */
  roles: Map<string, RoleState>;
  /** `${objectResource}#${relation}` */
  relations: Map<string, RelationState>;
  tenants: Map<string, { id: string; key: string }>;
  users: Map<string, { id: string; key: string }>;
  /** `${resource}:${key}` */
  instances: Map<string, InstanceState>;
  /** assignmentKey(...) → id (see fact-sets.ts) */
  assignments: AssignmentSet;
  /** `${subject}|${relation}|${object}` → id (see fact-sets.ts) */
  tuples: TupleSet;
  /** id → map key, for schema objects, tenants, users and instances (ids are UUIDs, unique across kinds). */
  ids: Map<string, string>;
}

export const roleKey = (resource: string | null, role: string) => `${resource ?? ''}#${role}`;
export const relationKey = (objectResource: string, relation: string) => `${objectResource}#${relation}`;
/** join(): one flat string, where a template literal keeps a cons-string tree alive (see fact-sets.ts). */
export const instanceRef = (resource: string, key: string) => [resource, key].join(':');
export const ruleEquals = (a: DerivationRule, b: DerivationRule) =>
  a.onResource === b.onResource && a.role === b.role && a.relation === b.relation;

export function initialEnvState(): EnvState {
  return envStateOf({
    resources: new Map(),
    roles: new Map(),
    relations: new Map(),
    tenants: new Map(),
    users: new Map(),
    instances: new Map(),
    assignmentIds: new Map(),
    assignmentIdSlab: emptyIdSlab(),
    tupleIds: new Map(),
    tupleIdSlab: emptyIdSlab(),
    tupleTenants: new Map(),
    ids: new Map(),
  });
}

/**
 * EnvState as plain data (Maps of strings and plain objects), for snapshots:
 * the fact sets are classes holding a function, which v8.serialize cannot keep.
 */
export interface EnvStateData extends Omit<EnvState, 'assignments' | 'tuples'> {
  assignmentIds: Map<string, StoredId>;
  assignmentIdSlab: IdSlabData;
  tupleIds: Map<string, StoredId>;
  tupleIdSlab: IdSlabData;
  tupleTenants: Map<string, string>;
}

function slabData(store: IdStore): IdSlabData {
  if (!(store instanceof IdSlab)) throw new Error('Only a state of its own is snapshotted, never a scratch view of one');
  return store.data;
}

export function envStateData(state: EnvState): EnvStateData {
  const { assignments, tuples, ...rest } = state;
  return {
    ...rest,
    assignmentIds: assignments.ids,
    assignmentIdSlab: slabData(assignments.idStore),
    tupleIds: tuples.ids,
    tupleIdSlab: slabData(tuples.idStore),
    tupleTenants: tuples.tenants,
  };
}

export function envStateOf(data: EnvStateData): EnvState {
  const { assignmentIds, assignmentIdSlab, tupleIds, tupleIdSlab, tupleTenants, ...rest } = data;
  const instances = rest.instances;
  return {
    ...rest,
    assignments: new AssignmentSet(assignmentIds, new IdSlab(assignmentIdSlab)),
    tuples: new TupleSet(tupleIds, new IdSlab(tupleIdSlab), tupleTenants, (ref) => instances.get(ref)?.tenant),
  };
}

export function evolveEnv(state: EnvState, event: EnvEvent): EnvState {
  switch (event.type) {
    case 'ResourceCreated': {
      const d = event.data;
      state.resources.set(d.key, { id: d.id, key: d.key, actions: new Set(d.actions.map((a) => a.key)) });
      state.ids.set(d.id, d.key);
      break;
    }
    case 'ResourceDeleted':
      state.resources.delete(event.data.key);
      state.ids.delete(event.data.id);
      break;
    case 'RoleCreated': {
      const d = event.data;
      state.roles.set(roleKey(d.resource, d.key), { id: d.id, key: d.key, resource: d.resource, permissions: d.permissions, rules: [] });
      state.ids.set(d.id, roleKey(d.resource, d.key));
      break;
    }
    case 'RoleUpdated': {
      const role = state.roles.get(roleKey(event.data.resource, event.data.key));
      if (role) role.permissions = event.data.permissions;
      break;
    }
    case 'RoleDerivationsReplaced': {
      const role = state.roles.get(roleKey(event.data.resource, event.data.key));
      if (role) role.rules = [...event.data.rules];
      break;
    }
    case 'ImplicitGrantAdded': {
      const role = state.roles.get(roleKey(event.data.resource, event.data.key));
      if (role && !role.rules.some((r) => ruleEquals(r, event.data.rule))) role.rules.push(event.data.rule);
      break;
    }
    case 'ImplicitGrantRemoved': {
      const role = state.roles.get(roleKey(event.data.resource, event.data.key));
      if (role) role.rules = role.rules.filter((r) => !ruleEquals(r, event.data.rule));
      break;
    }
    case 'RoleDeleted':
      state.roles.delete(roleKey(event.data.resource, event.data.key));
      state.ids.delete(event.data.id);
      break;
    case 'RelationCreated': {
      const d = event.data;
      state.relations.set(relationKey(d.objectResource, d.key), {
        id: d.id,
        key: d.key,
        objectResource: d.objectResource,
        subjectResource: d.subjectResource,
      });
      state.ids.set(d.id, relationKey(d.objectResource, d.key));
      break;
    }
    case 'RelationDeleted':
      state.relations.delete(relationKey(event.data.objectResource, event.data.key));
      state.ids.delete(event.data.id);
      break;
    case 'TenantCreated':
      state.tenants.set(event.data.key, { id: event.data.id, key: event.data.key });
      state.ids.set(event.data.id, event.data.key);
      break;
    case 'TenantDeleted':
      state.tenants.delete(event.data.key);
      state.ids.delete(event.data.id);
      break;
    case 'UserCreated':
      state.users.set(event.data.key, { id: event.data.id, key: event.data.key });
      state.ids.set(event.data.id, event.data.key);
      break;
    case 'ResourceInstanceCreated': {
      const d = event.data;
      const ref = instanceRef(d.resource, d.key);
      // The resource's and tenant's own key strings, shared by all their instances rather than one copy each.
      const resource = state.resources.get(d.resource)?.key ?? d.resource;
      const tenant = state.tenants.get(d.tenant)?.key ?? d.tenant;
      state.instances.set(ref, { id: d.id, key: d.key, resource, tenant });
      state.ids.set(d.id, ref);
      break;
    }
    case 'ResourceInstanceDeleted':
      state.instances.delete(instanceRef(event.data.resource, event.data.key));
      state.ids.delete(event.data.id);
      break;
    case 'RoleAssigned':
      state.assignments.add(event.data);
      break;
    case 'RoleUnassigned':
      state.assignments.delete(assignmentKey(event.data));
      break;
    case 'RelationshipTupleCreated':
      state.tuples.add(event.data);
      break;
    case 'RelationshipTupleDeleted':
      state.tuples.delete(tupleKey(event.data));
      break;
  }
  return state;
}
