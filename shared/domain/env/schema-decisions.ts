import { DuplicateEntityError, InvalidRequestError, NotFoundError } from '../../errors';
import type { DerivationRule, EnvEvent, EnvEventOf } from '../../events';
import { Cascade } from './cascade';
import type { EnvCommand } from './commands';
import { attributesData } from './attributes';
import { findRelation, findResource, findRole } from './lookup';
import { checkUnique } from './resource-parts-decisions';
import type { EnvState } from './state';
import { keyOfId, relationKey, roleKey, ruleEquals } from './state';
import { cycleThrough } from './role-hierarchy';

type Cmd<T extends EnvCommand['type']> = Extract<EnvCommand, { type: T }>;

/**
 * A resource with its actions and attributes, and the roles and relations
 * given inline, in one decision: all of it or nothing. Inline roles grant
 * actions of this resource; inline relations link a subject resource that
 * exists (or this one) to it.
 */
export function createResource(c: Cmd<'CreateResource'>, s: EnvState): EnvEvent[] {
  if (s.resources.has(c.key)) throw new DuplicateEntityError(`Resource '${c.key}' already exists`);
  checkUnique(
    'Action',
    c.actions.map((a) => a.key),
  );
  checkUnique(
    'Attribute',
    c.attributes.map((a) => a.key),
  );
  const actions = new Set(c.actions.map((a) => a.key));
  const events: EnvEvent[] = [
    {
      type: 'ResourceCreated',
      data: {
        id: c.id,
        key: c.key,
        name: c.name,
        description: c.description,
        urn: c.urn,
        actions: c.actions.map(({ id, key, name, description }) => ({ id, key, name, description })),
        attributes: attributesData(c.attributes),
      },
    },
  ];
  for (const r of c.relations ?? []) {
    const subjectResource = r.subjectResource === c.key || r.subjectResource === c.id ? c.key : findResource(s, r.subjectResource).key;
    const data = { id: r.id, key: r.key, name: r.name, description: r.description, objectResource: c.key, subjectResource };
    events.push({ type: 'RelationCreated', data });
  }
  for (const r of c.roles ?? []) {
    for (const permission of r.permissions) {
      if (!actions.has(permission)) {
        throw new NotFoundError(`Action '${permission}' is not defined on resource '${c.key}'`, { action: permission, resource: c.key });
      }
    }
    const data = { id: r.id, key: r.key, resource: c.key, name: r.name, description: r.description, attributes: r.attributes };
    events.push({ type: 'RoleCreated', data: { ...data, permissions: [...new Set(r.permissions)] } });
  }
  return events;
}

export function deleteResource(c: Cmd<'DeleteResource'>, s: EnvState): EnvEvent[] {
  return new Cascade(s).resource(findResource(s, c.resource)).events();
}

/** A role's permissions: bare actions of its resource, or `resource:action` for a top-level role. */
function checkPermissions(s: EnvState, resource: string | null, permissions: string[]): void {
  for (const permission of permissions) {
    if (resource !== null) {
      if (!findResource(s, resource).actions.has(permission)) {
        throw new NotFoundError(`Action '${permission}' is not defined on resource '${resource}'`, { action: permission, resource });
      }
      continue;
    }
    const [type, action, extra] = permission.split(':');
    if (!type || !action || extra !== undefined) {
      throw new InvalidRequestError(`Permission '${permission}' of a top-level role must have the form 'resource:action'`);
    }
    if (!findResource(s, type).actions.has(action)) {
      throw new NotFoundError(`Action '${action}' is not defined on resource '${type}'`, { action, resource: type });
    }
  }
}

/** A derivation on a role of `resource` must follow a relation from `onResource` (subject) to `resource` (object). */
function checkRule(s: EnvState, resource: string, rule: DerivationRule): void {
  findResource(s, rule.onResource);
  const relation = s.relations.get(relationKey(resource, rule.relation));
  if (!relation) throw new NotFoundError(`Relation '${rule.relation}' not found on resource '${resource}'`, { relation: rule.relation });
  if (relation.subjectResource !== rule.onResource) {
    throw new InvalidRequestError(
      `Relation '${rule.relation}' links '${relation.subjectResource}' to '${resource}', not '${rule.onResource}' to '${resource}'`,
    );
  }
  findRole(s, rule.onResource, rule.role);
}

function checkRules(s: EnvState, resource: string | null, rules: DerivationRule[]): DerivationRule[] {
  if (rules.length === 0) return [];
  if (resource === null) throw new InvalidRequestError('Top-level roles cannot be derived');
  const unique: DerivationRule[] = [];
  for (const rule of rules) {
    checkRule(s, resource, rule);
    if (!unique.some((r) => ruleEquals(r, rule))) unique.push(rule);
  }
  return unique;
}

export function createRole(c: Cmd<'CreateRole'>, s: EnvState): EnvEvent[] {
  const resource = c.resource === null ? null : findResource(s, c.resource).key;
  if (s.roles.has(roleKey(resource, c.key))) {
    throw new DuplicateEntityError(
      `Role '${c.key}' already exists ${resource === null ? 'as a top-level role' : `on resource '${resource}'`}`,
    );
  }
  checkPermissions(s, resource, c.permissions);
  const rules = checkRules(s, resource, c.grantedTo ?? []);
  const parents = checkExtends(s, resource, c.key, c.extends ?? []);
  const ref = { id: c.id, key: c.key, resource };
  const events: EnvEvent[] = [
    {
      type: 'RoleCreated',
      data: { ...ref, name: c.name, description: c.description, permissions: [...new Set(c.permissions)], attributes: c.attributes },
    },
  ];
  if (rules.length > 0) events.push({ type: 'RoleDerivationsReplaced', data: { ...ref, rules } });
  if (parents.length > 0) events.push({ type: 'RoleExtendsReplaced', data: { ...ref, extends: parents } });
  if (c.noDirectRolesOnObject) events.push(conditionsEvent(resource, ref, true));
  return events;
}

export function updateRole(c: Cmd<'UpdateRole'>, s: EnvState): EnvEvent[] {
  const resource = c.resource === null ? null : findResource(s, c.resource).key;
  const role = findRole(s, resource, c.role);
  const ref = { id: role.id, key: role.key, resource };
  const events: EnvEvent[] = [];
  if (c.name !== undefined || c.description !== undefined || c.permissions !== undefined) {
    const permissions = c.permissions ?? role.permissions;
    checkPermissions(s, resource, permissions);
    const update: EnvEventOf<'RoleUpdated'> = {
      type: 'RoleUpdated',
      data: { ...ref, name: c.name ?? null, description: c.description ?? null, permissions: [...new Set(permissions)] },
    };
    events.push(update);
  }
  if (c.grantedTo !== undefined)
    events.push({ type: 'RoleDerivationsReplaced', data: { ...ref, rules: checkRules(s, resource, c.grantedTo) } });
  if (c.extends !== undefined) {
    const parents = checkExtends(s, resource, role.key, c.extends);
    const current = role.extends ?? [];
    if (parents.length !== current.length || parents.some((p, i) => p !== current[i]))
      events.push({ type: 'RoleExtendsReplaced', data: { ...ref, extends: parents } });
  }
  if (c.noDirectRolesOnObject !== undefined && c.noDirectRolesOnObject !== (role.noDirectRolesOnObject ?? false))
    events.push(conditionsEvent(resource, ref, c.noDirectRolesOnObject));
  return events;
}

/**
 * The keys of the roles a role of `resource` may extend: existing roles of the
 * same scope (a resource's roles, or the top-level roles), itself excluded,
 * and none that already inherits from it (a cycle, refused naming it).
 */
function checkExtends(s: EnvState, resource: string | null, key: string, refs: string[]): string[] {
  const parents: string[] = [];
  for (const ref of refs) {
    const sameScope = s.roles.get(roleKey(resource, ref)) ?? s.roles.get(keyOfId(s, ref) ?? '');
    if (!sameScope || sameScope.resource !== resource) {
      const elsewhere = [...s.roles.values()].some((r) => r.key === ref && r.resource !== resource);
      if (elsewhere) {
        throw new InvalidRequestError(
          resource === null
            ? `A top-level role may only extend top-level roles; '${ref}' is a resource role`
            : `A role of resource '${resource}' may only extend roles of the same resource; '${ref}' is not one`,
        );
      }
      findRole(s, resource, ref); // the NotFoundError naming the role
    }
    const parent = sameScope!.key;
    if (parent === key) throw new InvalidRequestError(`Role '${key}' cannot extend itself`);
    if (!parents.includes(parent)) parents.push(parent);
  }
  const cycle = cycleThrough(key, parents, (k) => s.roles.get(roleKey(resource, k))?.extends ?? []);
  if (cycle) throw new InvalidRequestError(`Role '${key}' cannot extend these roles: it would close the cycle ${cycle.join(' -> ')}`);
  return parents;
}

function conditionsEvent(resource: string | null, ref: { id: string; key: string }, on: boolean): EnvEvent {
  if (resource === null && on) throw new InvalidRequestError('Top-level roles cannot be derived, so they take no derivation conditions');
  return { type: 'RoleDerivationConditionsSet', data: { id: ref.id, key: ref.key, resource, noDirectRolesOnObject: on } };
}

function permissionsUpdate(resource: string | null, role: { id: string; key: string }, permissions: string[]): EnvEvent {
  return { type: 'RoleUpdated', data: { id: role.id, key: role.key, resource, name: null, description: null, permissions } };
}

/** `POST …/roles/{role}/permissions`: the role's own permissions grow by those given (each checked); nothing changes when it has them all. */
export function assignRolePermissions(c: Cmd<'AssignRolePermissions'>, s: EnvState): EnvEvent[] {
  const resource = c.resource === null ? null : findResource(s, c.resource).key;
  const role = findRole(s, resource, c.role);
  checkPermissions(s, resource, c.permissions);
  const permissions = [...new Set([...role.permissions, ...c.permissions])];
  return permissions.length === role.permissions.length ? [] : [permissionsUpdate(resource, role, permissions)];
}

/** `DELETE …/roles/{role}/permissions`: removes those given; one the role does not have is ignored (idempotent, as Permit). */
export function removeRolePermissions(c: Cmd<'RemoveRolePermissions'>, s: EnvState): EnvEvent[] {
  const resource = c.resource === null ? null : findResource(s, c.resource).key;
  const role = findRole(s, resource, c.role);
  const removed = new Set(c.permissions);
  const permissions = role.permissions.filter((p) => !removed.has(p));
  return permissions.length === role.permissions.length ? [] : [permissionsUpdate(resource, role, permissions)];
}

/** Permit's `add_parent_role`: `role` extends `parent` as well (checked as `extends` is: same scope, no cycle). */
export function addRoleParent(c: Cmd<'AddRoleParent'>, s: EnvState): EnvEvent[] {
  const resource = c.resource === null ? null : findResource(s, c.resource).key;
  const role = findRole(s, resource, c.role);
  const current = role.extends ?? [];
  const parents = checkExtends(s, resource, role.key, [...current, c.parent]);
  if (parents.length === current.length) return [];
  return [{ type: 'RoleExtendsReplaced', data: { id: role.id, key: role.key, resource, extends: parents } }];
}

/** Permit's `remove_parent_role`: the parent must exist; a role that does not extend it is left as it is. */
export function removeRoleParent(c: Cmd<'RemoveRoleParent'>, s: EnvState): EnvEvent[] {
  const resource = c.resource === null ? null : findResource(s, c.resource).key;
  const role = findRole(s, resource, c.role);
  const parent = findRole(s, resource, c.parent).key;
  const current = role.extends ?? [];
  if (!current.includes(parent)) return [];
  return [{ type: 'RoleExtendsReplaced', data: { id: role.id, key: role.key, resource, extends: current.filter((p) => p !== parent) } }];
}

/** `PUT …/implicit_grants/conditions`: sets `no_direct_roles_on_object` of the role's derivations. */
export function setDerivationConditions(c: Cmd<'SetDerivationConditions'>, s: EnvState): EnvEvent[] {
  const resource = findResource(s, c.resource).key;
  const role = findRole(s, resource, c.role);
  if ((role.noDirectRolesOnObject ?? false) === c.noDirectRolesOnObject) return [];
  return [conditionsEvent(resource, role, c.noDirectRolesOnObject)];
}

export function deleteRole(c: Cmd<'DeleteRole'>, s: EnvState): EnvEvent[] {
  const resource = c.resource === null ? null : findResource(s, c.resource).key;
  // Assignments of the role and derivations from it in other roles go with it.
  return new Cascade(s).role(findRole(s, resource, c.role)).events();
}

export function addImplicitGrant(c: Cmd<'AddImplicitGrant'>, s: EnvState): EnvEvent[] {
  const resource = findResource(s, c.resource).key;
  const role = findRole(s, resource, c.role);
  checkRule(s, resource, c.rule);
  if (role.rules.some((r) => ruleEquals(r, c.rule))) {
    throw new DuplicateEntityError(
      `Role '${role.key}' is already derived from '${c.rule.onResource}#${c.rule.role}' through '${c.rule.relation}'`,
    );
  }
  const events: EnvEvent[] = [{ type: 'ImplicitGrantAdded', data: { id: role.id, key: role.key, resource, rule: c.rule } }];
  if (c.noDirectRolesOnObject !== undefined && c.noDirectRolesOnObject !== (role.noDirectRolesOnObject ?? false))
    events.push(conditionsEvent(resource, role, c.noDirectRolesOnObject));
  return events;
}

export function removeImplicitGrant(c: Cmd<'RemoveImplicitGrant'>, s: EnvState): EnvEvent[] {
  const resource = findResource(s, c.resource).key;
  const role = findRole(s, resource, c.role);
  if (!role.rules.some((r) => ruleEquals(r, c.rule))) {
    throw new NotFoundError(`Role '${role.key}' has no derivation from '${c.rule.onResource}#${c.rule.role}' through '${c.rule.relation}'`);
  }
  return [{ type: 'ImplicitGrantRemoved', data: { id: role.id, key: role.key, resource, rule: c.rule } }];
}

export function createRelation(c: Cmd<'CreateRelation'>, s: EnvState): EnvEvent[] {
  const objectResource = findResource(s, c.objectResource).key;
  const subjectResource = findResource(s, c.subjectResource).key;
  if (s.relations.has(relationKey(objectResource, c.key))) {
    throw new DuplicateEntityError(`Relation '${c.key}' already exists on resource '${objectResource}'`);
  }
  return [
    { type: 'RelationCreated', data: { id: c.id, key: c.key, name: c.name, description: c.description, objectResource, subjectResource } },
  ];
}

export function deleteRelation(c: Cmd<'DeleteRelation'>, s: EnvState): EnvEvent[] {
  const objectResource = findResource(s, c.objectResource).key;
  return new Cascade(s).relation(findRelation(s, objectResource, c.relation)).events();
}
