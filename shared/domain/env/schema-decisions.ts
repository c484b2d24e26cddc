import { DuplicateEntityError, InvalidRequestError, NotFoundError } from '../../errors';
import type { DerivationRule, EnvEvent, EnvEventOf } from '../../events';
import { Cascade } from './cascade';
import type { EnvCommand } from './commands';
import { attributesData } from './attributes';
import { findRelation, findResource, findRole } from './lookup';
import { checkUnique } from './resource-parts-decisions';
import type { EnvState } from './state';
import { relationKey, roleKey, ruleEquals } from './state';

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
  const ref = { id: c.id, key: c.key, resource };
  const events: EnvEvent[] = [
    {
      type: 'RoleCreated',
      data: { ...ref, name: c.name, description: c.description, permissions: [...new Set(c.permissions)], attributes: c.attributes },
    },
  ];
  if (rules.length > 0) events.push({ type: 'RoleDerivationsReplaced', data: { ...ref, rules } });
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
  return events;
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
  return [{ type: 'ImplicitGrantAdded', data: { id: role.id, key: role.key, resource, rule: c.rule } }];
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
