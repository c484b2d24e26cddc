/**
 * The editor's edits as the public API's calls (Permit's v2 schema and facts
 * endpoints, as its SDKs call them). Each builder is pure: it names the calls
 * and the affected object before → after, and the page shows both before
 * anything is sent. Where one call can say the whole change (a role's
 * permissions and `extends` in one PATCH, a type's definition in one PUT), one
 * call does, so the API accepts or refuses the edit as a whole.
 */
import { seg } from './client';
import type { Derivation } from './types';
import type { AttributeDef, Call, ConditionSet, Edit, PolicyPaths, PolicyResource, PolicyRole, SetRule } from './policy';

const resourcePath = (p: PolicyPaths, resource: string) => `${p.schema}/resources/${seg(resource)}`;
const rolePath = (p: PolicyPaths, resource: string | null, role: string) =>
  resource === null ? `${p.schema}/roles/${seg(role)}` : `${resourcePath(p, resource)}/roles/${seg(role)}`;

/** A resource type as the editor edits it: its definition, without ids and times. */
export interface ResourceDefinition {
  key: string;
  name: string;
  actions: string[];
  attributes: AttributeDef[];
}

const definitionView = (d: ResourceDefinition) => ({
  key: d.key,
  name: d.name,
  actions: d.actions,
  attributes: Object.fromEntries(d.attributes.map((a) => [a.key, a.type])),
});

export function definitionOf(resource: PolicyResource): ResourceDefinition {
  return {
    key: resource.key,
    name: resource.name,
    actions: Object.keys(resource.actions),
    attributes: Object.values(resource.attributes).map((a) => ({ key: a.key, type: a.type })),
  };
}

/** The fields that have a value (the API refuses null where it takes a string, and absent means "none"). */
const omitEmpty = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null));

const actionBlocks = (actions: string[]) => Object.fromEntries(actions.map((a) => [a, {}]));
const attributeBlocks = (attributes: AttributeDef[]) => Object.fromEntries(attributes.map((a) => [a.key, { type: a.type }]));

export function createResource(p: PolicyPaths, d: ResourceDefinition): Edit {
  const body: Record<string, unknown> = { key: d.key, name: d.name, actions: actionBlocks(d.actions) };
  if (d.attributes.length > 0) body.attributes = attributeBlocks(d.attributes);
  return {
    title: `Create resource type ${d.key}`,
    calls: [{ method: 'POST', path: `${p.schema}/resources`, body }],
    before: null,
    after: definitionView(d),
  };
}

/**
 * PUT: the whole definition; actions and attributes left out are deleted (the
 * roles granting a deleted action lose it). A PUT also replaces what the form
 * does not show (the description, the urn, kept actions' names and
 * descriptions, kept attributes' descriptions), so those are sent as they are.
 */
export function replaceResource(p: PolicyPaths, current: PolicyResource, next: ResourceDefinition): Edit {
  const before = definitionOf(current);
  const actions = Object.fromEntries(
    next.actions.map((key) => {
      const kept = current.actions[key];
      return [key, kept ? omitEmpty({ name: kept.name, description: kept.description }) : {}];
    }),
  );
  const attributes = Object.fromEntries(
    next.attributes.map((a) => [a.key, omitEmpty({ type: a.type, description: current.attributes[a.key]?.description })]),
  );
  const body = omitEmpty({ name: next.name, description: current.description, urn: current.urn, actions, attributes });
  return {
    title: `Change resource type ${current.key}`,
    calls: [{ method: 'PUT', path: resourcePath(p, current.key), body }],
    before: definitionView(before),
    after: definitionView({ ...next, key: current.key }),
  };
}

export function deleteResource(p: PolicyPaths, current: PolicyResource): Edit {
  return {
    title: `Delete resource type ${current.key} with its roles, relations and instances`,
    calls: [{ method: 'DELETE', path: resourcePath(p, current.key) }],
    before: { ...definitionView(definitionOf(current)), roles: current.roles.map((r) => r.key) },
    after: null,
  };
}

/** What the editor shows of a role: what it grants and where it comes from. */
export const roleView = (r: Pick<PolicyRole, 'key' | 'name' | 'permissions' | 'extends' | 'granted_to'>) => ({
  key: r.key,
  name: r.name,
  permissions: r.permissions,
  extends: r.extends ?? [],
  granted_to: (r.granted_to?.users_with_role ?? []).map(derivationText),
  when: r.granted_to?.when ?? {},
});

export const derivationText = (d: Derivation) => `${d.role} on ${d.on_resource} via ${d.linked_by_relation}`;

export function createRole(
  p: PolicyPaths,
  resource: string | null,
  role: { key: string; name: string; permissions: string[]; extends: string[] },
): Edit {
  const body: Record<string, unknown> = { key: role.key, name: role.name, permissions: role.permissions };
  if (role.extends.length > 0) body.extends = role.extends;
  const where = resource === null ? 'top-level role' : `role of ${resource}`;
  return {
    title: `Create ${where} ${role.key}`,
    calls: [{ method: 'POST', path: resource === null ? `${p.schema}/roles` : `${resourcePath(p, resource)}/roles`, body }],
    before: null,
    after: roleView({ ...role, granted_to: { users_with_role: [], when: {} } }),
  };
}

export function deleteRole(p: PolicyPaths, resource: string | null, role: PolicyRole): Edit {
  return {
    title: `Delete ${resource === null ? 'top-level role' : `role of ${resource}`} ${role.key} with its assignments`,
    calls: [{ method: 'DELETE', path: rolePath(p, resource, role.key) }],
    before: roleView(role),
    after: null,
  };
}

/** A role's permissions and `extends` as the matrix now has them. */
export interface RoleGrid {
  key: string;
  permissions: string[];
  extends: string[];
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');

/**
 * The matrix's changes: one PATCH per changed role with the fields that
 * changed (a PATCH's `permissions` and `extends` replace the role's). Each
 * carries its undo, so a refusal of a later role's call takes the earlier back.
 */
export function saveMatrix(p: PolicyPaths, resource: string | null, roles: PolicyRole[], grid: RoleGrid[]): Edit | null {
  const calls: Call[] = [];
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  for (const row of grid) {
    const role = roles.find((r) => r.key === row.key);
    if (!role) continue;
    const body: Record<string, unknown> = {};
    const undo: Record<string, unknown> = {};
    if (!sameSet(role.permissions, row.permissions)) [body.permissions, undo.permissions] = [row.permissions, role.permissions];
    if (!sameSet(role.extends ?? [], row.extends)) [body.extends, undo.extends] = [row.extends, role.extends ?? []];
    if (Object.keys(body).length === 0) continue;
    const path = rolePath(p, resource, role.key);
    calls.push({ method: 'PATCH', path, body, undo: { method: 'PATCH', path, body: undo } });
    before[role.key] = { permissions: role.permissions, extends: role.extends ?? [] };
    after[role.key] = { permissions: row.permissions, extends: row.extends };
  }
  if (calls.length === 0) return null;
  const names = Object.keys(after).join(', ');
  return { title: `Change ${resource === null ? 'top-level roles' : `roles of ${resource}`}: ${names}`, calls, before, after };
}

export function createRelation(p: PolicyPaths, object: string, relation: { key: string; subject: string }): Edit {
  const body = { key: relation.key, name: relation.key, subject_resource: relation.subject };
  return {
    title: `Create relation ${relation.subject} —${relation.key}→ ${object}`,
    calls: [{ method: 'POST', path: `${resourcePath(p, object)}/relations`, body }],
    before: null,
    after: { key: relation.key, subject_resource: relation.subject, object_resource: object },
  };
}

export function deleteRelation(p: PolicyPaths, object: string, relation: { key: string; subject_resource: string }): Edit {
  return {
    title: `Delete relation ${relation.subject_resource} —${relation.key}→ ${object} with its tuples`,
    calls: [{ method: 'DELETE', path: `${resourcePath(p, object)}/relations/${seg(relation.key)}` }],
    before: { key: relation.key, subject_resource: relation.subject_resource, object_resource: object },
    after: null,
  };
}

/**
 * A role derivation ("granted to" users with `rule.role` on a linked
 * `rule.on_resource`). `noDirectRoles` is Permit's one derivation condition,
 * kept per role: stating it sets the role's (its other derivations too).
 */
export function addDerivation(p: PolicyPaths, resource: string, role: PolicyRole, rule: Derivation, noDirectRoles: boolean): Edit {
  const body: Record<string, unknown> = { ...rule };
  const when = { ...(role.granted_to?.when ?? {}) };
  if (noDirectRoles || when.no_direct_roles_on_object !== undefined) {
    body.when = { no_direct_roles_on_object: noDirectRoles };
    when.no_direct_roles_on_object = noDirectRoles;
  }
  const next = { ...role, granted_to: { users_with_role: [...(role.granted_to?.users_with_role ?? []), rule], when } };
  return {
    title: `Grant ${resource}#${role.key} to ${derivationText(rule)}`,
    calls: [{ method: 'POST', path: `${rolePath(p, resource, role.key)}/implicit_grants`, body }],
    before: roleView(role),
    after: roleView(next),
  };
}

export function removeDerivation(p: PolicyPaths, resource: string, role: PolicyRole, rule: Derivation): Edit {
  const body = { role: rule.role, on_resource: rule.on_resource, linked_by_relation: rule.linked_by_relation };
  const rest = (role.granted_to?.users_with_role ?? []).filter((r) => derivationText(r) !== derivationText(rule));
  return {
    title: `Stop granting ${resource}#${role.key} to ${derivationText(rule)}`,
    calls: [{ method: 'DELETE', path: `${rolePath(p, resource, role.key)}/implicit_grants`, body }],
    before: roleView(role),
    after: roleView({ ...role, granted_to: { ...role.granted_to, users_with_role: rest } }),
  };
}

const setView = (s: Pick<ConditionSet, 'key' | 'name' | 'type' | 'conditions'> & { resource?: string | null }) => ({
  key: s.key,
  name: s.name,
  type: s.type,
  ...(s.resource ? { resource: s.resource } : {}),
  conditions: s.conditions,
});

export function createConditionSet(
  p: PolicyPaths,
  set: { key: string; name: string; type: 'userset' | 'resourceset'; resource: string | null; conditions: unknown },
): Edit {
  const body: Record<string, unknown> = { key: set.key, name: set.name, type: set.type, conditions: set.conditions };
  if (set.type === 'resourceset') body.resource_id = set.resource;
  return {
    title: `Create ${set.type === 'userset' ? 'user set' : `resource set of ${set.resource ?? '?'}`} ${set.key}`,
    calls: [{ method: 'POST', path: `${p.schema}/condition_sets`, body }],
    before: null,
    after: setView(set),
  };
}

/** null when nothing would change. */
export function updateConditionSet(p: PolicyPaths, set: ConditionSet, next: { name: string; conditions: unknown }): Edit | null {
  const body: Record<string, unknown> = {};
  if (next.name !== set.name) body.name = next.name;
  if (JSON.stringify(next.conditions) !== JSON.stringify(set.conditions)) body.conditions = next.conditions;
  if (Object.keys(body).length === 0) return null;
  return {
    title: `Change condition set ${set.key}`,
    calls: [{ method: 'PATCH', path: `${p.schema}/condition_sets/${seg(set.key)}`, body }],
    before: setView(set),
    after: setView({ ...set, ...next }),
  };
}

export function deleteConditionSet(p: PolicyPaths, set: ConditionSet): Edit {
  return {
    title: `Delete condition set ${set.key} with its descendants and the set rules naming them`,
    calls: [{ method: 'DELETE', path: `${p.schema}/condition_sets/${seg(set.key)}` }],
    before: setView(set),
    after: null,
  };
}

/** A set rule's body; `is_role`: the user set is a top-level role, `is_resource`: the resource set is a whole type. */
export interface SetRuleInput {
  user_set: string;
  permission: string;
  resource_set: string;
  is_role: boolean;
  is_resource: boolean;
}

const ruleView = (r: SetRuleInput) => ({
  user_set: `${r.is_role ? 'role ' : ''}${r.user_set}`,
  permission: r.permission,
  resource_set: `${r.is_resource ? 'every ' : ''}${r.resource_set}`,
});

export function createSetRule(p: PolicyPaths, rule: SetRuleInput): Edit {
  return {
    title: `Grant ${rule.permission} to ${rule.user_set} on ${rule.resource_set}`,
    calls: [{ method: 'POST', path: `${p.facts}/set_rules`, body: rule }],
    before: null,
    after: ruleView(rule),
  };
}

/** The listing does not say whether a rule's sets are a role or a type; they are when no condition set has the key. */
export function setRuleInputOf(rule: SetRule, sets: ConditionSet[]): SetRuleInput {
  const isSet = (key: string, type: ConditionSet['type']) => sets.some((s) => s.key === key && s.type === type);
  return {
    user_set: rule.user_set,
    permission: rule.permission,
    resource_set: rule.resource_set,
    is_role: !isSet(rule.user_set, 'userset'),
    is_resource: !isSet(rule.resource_set, 'resourceset'),
  };
}

export function deleteSetRule(p: PolicyPaths, rule: SetRuleInput): Edit {
  return {
    title: `Stop granting ${rule.permission} to ${rule.user_set} on ${rule.resource_set}`,
    calls: [{ method: 'DELETE', path: `${p.facts}/set_rules`, body: rule }],
    before: ruleView(rule),
    after: null,
  };
}

export function createUserAttribute(p: PolicyPaths, attribute: AttributeDef): Edit {
  const body: Record<string, unknown> = { key: attribute.key, type: attribute.type };
  if (attribute.description) body.description = attribute.description;
  return {
    title: `Create user attribute ${attribute.key}`,
    calls: [{ method: 'POST', path: `${p.schema}/users/attributes`, body }],
    before: null,
    after: body,
  };
}

export function updateUserAttribute(p: PolicyPaths, attribute: AttributeDef, type: string): Edit {
  return {
    title: `Change user attribute ${attribute.key} to ${type}`,
    calls: [{ method: 'PATCH', path: `${p.schema}/users/attributes/${seg(attribute.key)}`, body: { type } }],
    before: { key: attribute.key, type: attribute.type },
    after: { key: attribute.key, type },
  };
}

export function deleteUserAttribute(p: PolicyPaths, attribute: AttributeDef): Edit {
  return {
    title: `Delete user attribute ${attribute.key}`,
    calls: [{ method: 'DELETE', path: `${p.schema}/users/attributes/${seg(attribute.key)}` }],
    before: { key: attribute.key, type: attribute.type },
    after: null,
  };
}
