import { canonicalId } from '../../ids';
import type { AssertionDefinition, DerivationRule, EnvEventOf } from '../../events';
import { emptyAbacState, type AbacState } from './abac-state';
import { emptyEnvDetails, type EnvDetails } from './details';
import { Ends } from './ends';
import { emptyUserInviteStates, type UserInviteStates } from './invite-state';
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
  /** Action key → id. */
  actions: Map<string, string>;
  /** Attribute key → id. */
  attributes: Map<string, string>;
  /** Action group key → its id and action keys. */
  actionGroups: Map<string, { id: string; actions: string[] }>;
}
export interface RoleState {
  id: string;
  key: string;
  resource: string | null;
  permissions: string[];
  /** `granted_to.users_with_role` and implicit grants are one list: both are derivation rules. */
  rules: DerivationRule[];
  /** Keys of the roles of the same scope whose permissions this role inherits (Permit's `extends`). Absent in states folded before it existed. */
  extends?: string[];
  /** `granted_to.when.no_direct_roles_on_object`: derivations of this role skip users holding a direct role on the object. */
  noDirectRolesOnObject?: boolean;
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

/** A proxy config's definition, whole (what its events carry). */
export type ProxyConfigState = EnvEventOf<'ProxyConfigCreated'>['data'];

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
  /**
   * The ends of the assignments and tuples that have one (endKey(...) → `expiresAt`, an ISO
   * instant): few facts have one, so they are kept apart instead of beside every fact's id. An
   * `Ends` in a state of its own (it finds the ends due without reading them all, ends.ts); a
   * scratch state's is a view of it.
   */
  ends: Map<string, string>;
  /** id → map key, for schema objects, tenants, users and instances (ids are UUIDs, unique across kinds). */
  ids: Map<string, string>;
  /** Condition sets, set rules and attribute types (abac-state.ts). */
  abac: AbacState;
  /** Proxy configs by key, whole: an update merges into the stored definition, a copy compares it. */
  proxyConfigs: Map<string, ProxyConfigState>;
  /** User invites (invite-state.ts). */
  invites: UserInviteStates;
  /** Saved assertions by id (assertion-decisions.ts): tests of the policy, which decide nothing. */
  assertions: Map<string, AssertionDefinition>;
  /** The objects' names, descriptions and attributes, in a state that keeps them (see details.ts); absent from the command state. */
  details?: EnvDetails;
}

/** A state that keeps its objects' details: what a copy compares and merges. */
export type DetailedEnvState = EnvState & { details: EnvDetails };

/** The map key of the object whose id is `ref`, in any spelling of the id (canonicalId); undefined when none. */
export const keyOfId = (state: Pick<EnvState, 'ids'>, ref: string): string | undefined => state.ids.get(canonicalId(ref));

/** The key of a fact's end in `EnvState.ends`: assignments and tuples never share a map key, the prefix keeps them apart anyway. */
export const assignmentEndKey = (a: Parameters<typeof assignmentKey>[0]): string => ['a', assignmentKey(a)].join('|');
export const tupleEndKey = (t: Parameters<typeof tupleKey>[0]): string => ['t', tupleKey(t)].join('|');

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
    abac: emptyAbacState(),
    proxyConfigs: new Map(),
    invites: emptyUserInviteStates(),
    assertions: new Map(),
    ends: new Map(),
  });
}

/** An empty state that keeps the details of the objects folded into it. */
export function initialDetailedEnvState(): DetailedEnvState {
  return Object.assign(initialEnvState(), { details: emptyEnvDetails() });
}

/**
 * EnvState as plain data (Maps of strings and plain objects), for snapshots:
 * the fact sets are classes holding a function, which v8.serialize cannot keep.
 */
export interface EnvStateData extends Omit<
  EnvState,
  'assignments' | 'tuples' | 'abac' | 'proxyConfigs' | 'invites' | 'assertions' | 'ends'
> {
  /** Absent from snapshots taken before ends existed (then there was none). */
  ends?: Map<string, string>;
  /** Absent from snapshots taken before ABAC existed (then there was none). */
  abac?: AbacState;
  /** Absent from snapshots taken before proxy configs existed (then there was none). */
  proxyConfigs?: Map<string, ProxyConfigState>;
  /** Absent from snapshots taken before user invites existed (then there was none). */
  invites?: UserInviteStates;
  /** Absent from snapshots taken before assertions existed (then there was none). */
  assertions?: Map<string, AssertionDefinition>;
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
    // A plain Map, as snapshots always held it (the index is built again when one is loaded and asked).
    ends: state.ends instanceof Ends ? (state.ends.asMap() as Map<string, string>) : state.ends,
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
    abac: rest.abac ?? emptyAbacState(),
    proxyConfigs: rest.proxyConfigs ?? new Map<string, ProxyConfigState>(),
    invites: rest.invites ?? emptyUserInviteStates(),
    assertions: rest.assertions ?? new Map<string, AssertionDefinition>(),
    ends: new Ends(rest.ends),
    assignments: new AssignmentSet(assignmentIds, new IdSlab(assignmentIdSlab)),
    tuples: new TupleSet(tupleIds, new IdSlab(tupleIdSlab), tupleTenants, (ref) => instances.get(ref)?.tenant),
  };
}
