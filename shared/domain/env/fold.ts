import type { EnvEvent, EventHandlers } from '../../events';
import { dispatch } from '../../events';
import { setRuleKey } from './abac-state';
import { attributeDefsOf } from './attributes';
import {
  assignmentEndKey,
  assignmentKey,
  instanceRef,
  relationKey,
  roleKey,
  ruleEquals,
  tupleEndKey,
  tupleKey,
  type EnvState,
} from './state';

/**
 * The one fold of environment events: what each event changes in an
 * EnvState, in place. The command state and the copy's comparison state are
 * both built by it; the latter also keeps each object's details (details.ts),
 * written here next to the object itself, so that the two never disagree on
 * what an event creates or deletes. Deletions arrive as explicit events
 * (cascades included), so nothing is inferred.
 */
export const envFold: EventHandlers<EnvEvent, EnvState> = {
  ResourceCreated(state, { data: d }) {
    const attributes = attributeDefsOf(d.id, d.attributes);
    state.resources.set(d.key, {
      id: d.id,
      key: d.key,
      actions: new Map(d.actions.map((a) => [a.key, a.id])),
      attributes: new Map(attributes.map((a) => [a.key, a.id])),
      actionGroups: new Map(),
    });
    state.ids.set(d.id, d.key);
    state.abac.attributeTypes.set(d.key, new Map(attributes.map((a) => [a.key, a.type])));
    state.details?.resources.set(d.key, {
      name: d.name,
      description: d.description,
      urn: d.urn ?? null,
      actions: d.actions.map((a) => ({ ...a })),
      attributes,
      actionGroups: [],
    });
  },
  ResourceUpdated(state, { data: d }) {
    const details = state.details?.resources.get(d.key);
    if (!details) return;
    if (d.name !== undefined) details.name = d.name;
    if (d.description !== undefined) details.description = d.description;
    if (d.urn !== undefined) details.urn = d.urn;
  },
  ActionCreated(state, { data: d }) {
    state.resources.get(d.resource)?.actions.set(d.key, d.id);
    state.details?.resources.get(d.resource)?.actions.push({ id: d.id, key: d.key, name: d.name, description: d.description });
  },
  ActionUpdated(state, { data: d }) {
    const action = state.details?.resources.get(d.resource)?.actions.find((a) => a.key === d.key);
    if (action && d.name !== undefined) action.name = d.name;
    if (action && d.description !== undefined) action.description = d.description;
  },
  ActionDeleted(state, { data: d }) {
    state.resources.get(d.resource)?.actions.delete(d.key);
    const details = state.details?.resources.get(d.resource);
    if (details) details.actions = details.actions.filter((a) => a.key !== d.key);
  },
  AttributeCreated(state, { data: d }) {
    state.resources.get(d.resource)?.attributes.set(d.key, d.id);
    abacTypes(state, d.resource).set(d.key, d.type);
    state.details?.resources.get(d.resource)?.attributes.push({ id: d.id, key: d.key, type: d.type, description: d.description });
  },
  AttributeUpdated(state, { data: d }) {
    if (d.type !== undefined) abacTypes(state, d.resource).set(d.key, d.type);
    const attribute = state.details?.resources.get(d.resource)?.attributes.find((a) => a.key === d.key);
    if (attribute && d.type !== undefined) attribute.type = d.type;
    if (attribute && d.description !== undefined) attribute.description = d.description;
  },
  AttributeDeleted(state, { data: d }) {
    state.abac.attributeTypes.get(d.resource)?.delete(d.key);
    state.resources.get(d.resource)?.attributes.delete(d.key);
    const details = state.details?.resources.get(d.resource);
    if (details) details.attributes = details.attributes.filter((a) => a.key !== d.key);
  },
  ActionGroupCreated(state, { data: d }) {
    state.resources.get(d.resource)?.actionGroups.set(d.key, { id: d.id, actions: [...d.actions] });
    state.details?.resources
      .get(d.resource)
      ?.actionGroups.push({ id: d.id, key: d.key, name: d.name, description: d.description, actions: [...d.actions] });
  },
  ActionGroupUpdated(state, { data: d }) {
    const group = state.resources.get(d.resource)?.actionGroups.get(d.key);
    if (group && d.actions !== undefined) group.actions = [...d.actions];
    const details = state.details?.resources.get(d.resource)?.actionGroups.find((g) => g.key === d.key);
    if (details && d.name !== undefined) details.name = d.name;
    if (details && d.description !== undefined) details.description = d.description;
    if (details && d.actions !== undefined) details.actions = [...d.actions];
  },
  ActionGroupDeleted(state, { data: d }) {
    state.resources.get(d.resource)?.actionGroups.delete(d.key);
    const details = state.details?.resources.get(d.resource);
    if (details) details.actionGroups = details.actionGroups.filter((g) => g.key !== d.key);
  },
  ResourceDeleted(state, { data: d }) {
    state.resources.delete(d.key);
    state.ids.delete(d.id);
    state.details?.resources.delete(d.key);
    state.abac.attributeTypes.delete(d.key);
  },
  RoleCreated(state, { data: d }) {
    const key = roleKey(d.resource, d.key);
    state.roles.set(key, { id: d.id, key: d.key, resource: d.resource, permissions: d.permissions, rules: [] });
    state.ids.set(d.id, key);
    state.details?.roles.set(key, { name: d.name, description: d.description, attributes: d.attributes });
  },
  RoleUpdated(state, { data: d }) {
    const key = roleKey(d.resource, d.key);
    const role = state.roles.get(key);
    if (role) role.permissions = d.permissions;
    const details = state.details?.roles.get(key);
    if (details && d.name !== null) details.name = d.name;
    if (details && d.description !== null) details.description = d.description;
  },
  RoleDerivationsReplaced(state, { data: d }) {
    const role = state.roles.get(roleKey(d.resource, d.key));
    if (role) role.rules = [...d.rules];
  },
  ImplicitGrantAdded(state, { data: d }) {
    const role = state.roles.get(roleKey(d.resource, d.key));
    if (role && !role.rules.some((r) => ruleEquals(r, d.rule))) role.rules.push(d.rule);
  },
  ImplicitGrantRemoved(state, { data: d }) {
    const role = state.roles.get(roleKey(d.resource, d.key));
    if (role) role.rules = role.rules.filter((r) => !ruleEquals(r, d.rule));
  },
  RoleExtendsReplaced(state, { data: d }) {
    const role = state.roles.get(roleKey(d.resource, d.key));
    if (role) role.extends = [...d.extends];
  },
  RoleDerivationConditionsSet(state, { data: d }) {
    const role = state.roles.get(roleKey(d.resource, d.key));
    if (role) role.noDirectRolesOnObject = d.noDirectRolesOnObject;
  },
  RoleDeleted(state, { data: d }) {
    const key = roleKey(d.resource, d.key);
    state.roles.delete(key);
    state.ids.delete(d.id);
    state.details?.roles.delete(key);
  },
  RelationCreated(state, { data: d }) {
    const key = relationKey(d.objectResource, d.key);
    state.relations.set(key, { id: d.id, key: d.key, objectResource: d.objectResource, subjectResource: d.subjectResource });
    state.ids.set(d.id, key);
    state.details?.relations.set(key, { name: d.name, description: d.description });
  },
  RelationDeleted(state, { data: d }) {
    const key = relationKey(d.objectResource, d.key);
    state.relations.delete(key);
    state.ids.delete(d.id);
    state.details?.relations.delete(key);
  },
  TenantCreated(state, { data: d }) {
    state.tenants.set(d.key, { id: d.id, key: d.key });
    state.ids.set(d.id, d.key);
    state.details?.tenants.set(d.key, { name: d.name, description: d.description, attributes: d.attributes });
  },
  TenantUpdated(state, { data: d }) {
    const details = state.details?.tenants.get(d.key);
    if (!details) return;
    if (d.name !== undefined) details.name = d.name;
    if (d.description !== undefined) details.description = d.description;
    if (d.attributes !== undefined) details.attributes = d.attributes;
  },
  TenantDeleted(state, { data: d }) {
    state.tenants.delete(d.key);
    state.ids.delete(d.id);
    state.details?.tenants.delete(d.key);
  },
  UserCreated(state, { data: d }) {
    state.users.set(d.key, { id: d.id, key: d.key });
    state.ids.set(d.id, d.key);
    state.details?.users.set(d.key, { email: d.email, firstName: d.firstName, lastName: d.lastName, attributes: d.attributes });
  },
  UserUpdated(state, { data: d }) {
    const details = state.details?.users.get(d.key);
    if (!details) return;
    if (d.email !== undefined) details.email = d.email;
    if (d.firstName !== undefined) details.firstName = d.firstName;
    if (d.lastName !== undefined) details.lastName = d.lastName;
    if (d.attributes !== undefined) details.attributes = d.attributes;
  },
  UserDeleted(state, { data: d }) {
    state.users.delete(d.key);
    state.ids.delete(d.id);
    state.details?.users.delete(d.key);
  },
  ResourceInstanceCreated(state, { data: d }) {
    const ref = instanceRef(d.resource, d.key);
    // The resource's and tenant's own key strings, shared by all their instances rather than one copy each.
    const resource = state.resources.get(d.resource)?.key ?? d.resource;
    const tenant = state.tenants.get(d.tenant)?.key ?? d.tenant;
    state.instances.set(ref, { id: d.id, key: d.key, resource, tenant });
    state.ids.set(d.id, ref);
    state.details?.instances.set(ref, { attributes: d.attributes });
  },
  ResourceInstanceUpdated(state, { data: d }) {
    const details = state.details?.instances.get(instanceRef(d.resource, d.key));
    if (details) details.attributes = d.attributes;
  },
  ResourceInstanceDeleted(state, { data: d }) {
    const ref = instanceRef(d.resource, d.key);
    state.instances.delete(ref);
    state.ids.delete(d.id);
    state.details?.instances.delete(ref);
  },
  RoleAssigned(state, { data: d }) {
    const { expiresAt, ...assignment } = d;
    state.assignments.add(assignment);
    setEnd(state, assignmentEndKey(d), expiresAt);
  },
  RoleUnassigned(state, { data: d }) {
    state.assignments.delete(assignmentKey(d));
    state.ends.delete(assignmentEndKey(d));
  },
  RoleAssignmentExpirySet(state, { data: d }) {
    setEnd(state, assignmentEndKey(d), d.expiresAt);
  },
  RoleAssignmentExpired(state, { data: d }) {
    state.assignments.delete(assignmentKey(d));
    state.ends.delete(assignmentEndKey(d));
  },
  RelationshipTupleCreated(state, { data: d }) {
    const { expiresAt, ...tuple } = d;
    state.tuples.add(tuple);
    setEnd(state, tupleEndKey(d), expiresAt);
  },
  RelationshipTupleDeleted(state, { data: d }) {
    state.tuples.delete(tupleKey(d));
    state.ends.delete(tupleEndKey(d));
  },
  RelationshipTupleExpirySet(state, { data: d }) {
    setEnd(state, tupleEndKey(d), d.expiresAt);
  },
  RelationshipTupleExpired(state, { data: d }) {
    state.tuples.delete(tupleKey(d));
    state.ends.delete(tupleEndKey(d));
  },
  ConditionSetCreated(state, { data: d }) {
    state.abac.conditionSets.set(d.key, { ...d });
    state.ids.set(d.id, d.key);
    state.details?.conditionSets.set(d.key, { name: d.name, description: d.description, conditions: d.conditions });
  },
  ConditionSetUpdated(state, { data: d }) {
    const set = state.abac.conditionSets.get(d.key);
    if (set) Object.assign(set, { parent: d.parent, name: d.name, description: d.description, conditions: d.conditions });
    state.details?.conditionSets.set(d.key, { name: d.name, description: d.description, conditions: d.conditions });
  },
  ConditionSetDeleted(state, { data: d }) {
    state.abac.conditionSets.delete(d.key);
    state.ids.delete(d.id);
    state.details?.conditionSets.delete(d.key);
  },
  SetRuleCreated(state, { data: d }) {
    state.abac.setRules.set(setRuleKey(d), { ...d });
  },
  SetRuleDeleted(state, { data: d }) {
    state.abac.setRules.delete(setRuleKey(d));
  },
  ProxyConfigCreated(state, { data: d }) {
    state.proxyConfigs.set(d.key, { ...d, mappingRules: d.mappingRules.map((r) => ({ ...r })) });
    state.ids.set(d.id, d.key);
  },
  ProxyConfigUpdated(state, { data: d }) {
    state.proxyConfigs.set(d.key, { ...d, mappingRules: d.mappingRules.map((r) => ({ ...r })) });
  },
  ProxyConfigDeleted(state, { data: d }) {
    state.proxyConfigs.delete(d.key);
    state.ids.delete(d.id);
  },
  UserInviteCreated(state, { data: d }) {
    state.invites.byKey.set(d.key, { ...d, status: 'pending' });
    state.invites.keyOfId.set(d.id, d.key);
  },
  UserInviteUpdated(state, { data: d }) {
    const invite = state.invites.byKey.get(d.key);
    if (invite) state.invites.byKey.set(d.key, { ...d, status: invite.status });
  },
  UserInviteApproved(state, { data: d }) {
    const invite = state.invites.byKey.get(d.key);
    // A fresh entry, not the object changed in place: a scratch state (scratch.ts) shares the objects.
    if (invite) state.invites.byKey.set(d.key, { ...invite, status: 'approved' });
  },
  UserInviteDeleted(state, { data: d }) {
    state.invites.byKey.delete(d.key);
    state.invites.keyOfId.delete(d.id);
  },
  AssertionSaved(state, { data: d }) {
    state.assertions.set(d.id, d);
  },
  AssertionDeleted(state, { data: d }) {
    state.assertions.delete(d.id);
  },
};

/** The declared attribute types of a resource type, against which conditions are checked when written (abac-state.ts). */
function abacTypes(state: EnvState, resource: string): Map<string, string> {
  let types = state.abac.attributeTypes.get(resource);
  if (!types) state.abac.attributeTypes.set(resource, (types = new Map<string, string>()));
  return types;
}

/** Folds one environment event into `state`, in place, and returns it (the Decider's `evolve`). */
export function evolveEnv(state: EnvState, event: EnvEvent): EnvState {
  dispatch(envFold, event.type, state, event);
  return state;
}

/** A fact's end (none: null or absent). */
function setEnd(state: EnvState, key: string, expiresAt: string | null | undefined): void {
  if (expiresAt === null || expiresAt === undefined) state.ends.delete(key);
  else state.ends.set(key, expiresAt);
}
