import { DuplicateEntityError, InvalidRequestError, NotFoundError } from '../../errors';
import { checkAttributeChange } from './abac-decisions';
import type { EnvEvent } from '../../events';
import { canonicalId, deterministicId } from '../../ids';
import { USER_RESOURCE } from './attributes';
import { Cascade } from './cascade';
import type { ActionInput, AttributeInput, EnvCommand } from './commands';
import { findResource } from './lookup';
import type { EnvState, ResourceState } from './state';

/**
 * Decisions on a resource type's own definition and its parts: actions,
 * attributes and action groups (each also an API object of its own, under
 * `/resources/{resource}/...`). Parts are named by key or id.
 */

type Cmd<T extends EnvCommand['type']> = Extract<EnvCommand, { type: T }>;

/** The key of the part named `ref` (a key or an id) in a key → id map, or undefined. */
function partKey(ids: ReadonlyMap<string, string>, ref: string): string | undefined {
  if (ids.has(ref)) return ref;
  const id = canonicalId(ref);
  for (const [key, partId] of ids) if (partId === id) return key;
  return undefined;
}

function findPart(resource: ResourceState, kind: 'Action' | 'Attribute', ref: string): { key: string; id: string } {
  const ids = kind === 'Action' ? resource.actions : resource.attributes;
  const key = partKey(ids, ref);
  if (key === undefined) {
    throw new NotFoundError(`${kind} '${ref}' not found on resource '${resource.key}'`, {
      [kind.toLowerCase()]: ref,
      resource: resource.key,
    });
  }
  return { key, id: ids.get(key)! };
}

/** The resource of an attribute command; before the first user attribute, the user resource has none to find. */
function attributeOwner(s: EnvState, resource: string, attribute: string): ResourceState {
  if (resource === USER_RESOURCE && !s.resources.has(USER_RESOURCE)) {
    throw new NotFoundError(`Attribute '${attribute}' not found on resource '${USER_RESOURCE}'`, { attribute, resource });
  }
  return findResource(s, resource);
}

function findGroup(resource: ResourceState, ref: string): { key: string; id: string; actions: string[] } {
  for (const [key, group] of resource.actionGroups) if (key === ref || group.id === ref) return { key, ...group };
  throw new NotFoundError(`Action group '${ref}' not found on resource '${resource.key}'`, { action_group: ref, resource: resource.key });
}

/** Keys listed twice in one request are refused rather than one silently winning. */
export function checkUnique(kind: string, keys: string[]): void {
  const seen = new Set<string>();
  for (const key of keys) {
    if (seen.has(key)) throw new InvalidRequestError(`${kind} '${key}' is listed twice`);
    seen.add(key);
  }
}

function checkGroupActions(resource: ResourceState, actions: string[]): string[] {
  for (const action of actions) {
    if (!resource.actions.has(action)) {
      throw new NotFoundError(`Action '${action}' is not defined on resource '${resource.key}'`, { action, resource: resource.key });
    }
  }
  return [...new Set(actions)];
}

const actionCreated = (resource: string, a: ActionInput): EnvEvent => ({
  type: 'ActionCreated',
  data: { resource, id: a.id, key: a.key, name: a.name, description: a.description },
});
const attributeCreated = (resource: string, a: AttributeInput): EnvEvent => ({
  type: 'AttributeCreated',
  data: { resource, id: a.id, key: a.key, type: a.type, description: a.description },
});

export function updateResource(c: Cmd<'UpdateResource'>, s: EnvState): EnvEvent[] {
  const resource = findResource(s, c.resource);
  const ref = { id: resource.id, key: resource.key };
  const out: EnvEvent[] = [];
  const cascade = new Cascade(s);

  const changes: Extract<EnvEvent, { type: 'ResourceUpdated' }>['data'] = { ...ref };
  if (c.name !== undefined) changes.name = c.name;
  if (c.description !== undefined || c.replace) changes.description = c.description ?? null;
  if (c.urn !== undefined || c.replace) changes.urn = c.urn ?? null;
  out.push({ type: 'ResourceUpdated', data: changes });

  if (c.actions !== undefined || c.replace) {
    const actions = c.actions ?? [];
    checkUnique(
      'Action',
      actions.map((a) => a.key),
    );
    for (const action of actions) {
      out.push(
        resource.actions.has(action.key)
          ? {
              type: 'ActionUpdated',
              data: {
                resource: resource.key,
                id: resource.actions.get(action.key)!,
                key: action.key,
                name: action.name,
                description: action.description,
              },
            }
          : actionCreated(resource.key, action),
      );
    }
    if (c.replace) {
      const kept = new Set(actions.map((a) => a.key));
      for (const key of resource.actions.keys()) if (!kept.has(key)) cascade.action(resource, key);
    }
  }
  if (c.attributes !== undefined || c.replace) {
    const attributes = c.attributes ?? [];
    checkUnique(
      'Attribute',
      attributes.map((a) => a.key),
    );
    for (const attribute of attributes) {
      const id = resource.attributes.get(attribute.key);
      if (id !== undefined) checkAttributeChange(s, resource.key, attribute.key, attribute.type);
      out.push(
        id === undefined
          ? attributeCreated(resource.key, attribute)
          : {
              type: 'AttributeUpdated',
              data: { resource: resource.key, id, key: attribute.key, type: attribute.type, description: attribute.description },
            },
      );
    }
    if (c.replace) {
      const kept = new Set(attributes.map((a) => a.key));
      for (const [key, id] of resource.attributes) {
        if (kept.has(key)) continue;
        checkAttributeChange(s, resource.key, key, null);
        out.push({ type: 'AttributeDeleted', data: { resource: resource.key, id, key } });
      }
    }
  }
  // Removed actions go last: what granted them is updated first (dependents first).
  return [...out, ...cascade.events()];
}

export function createAction(c: Cmd<'CreateAction'>, s: EnvState): EnvEvent[] {
  const resource = findResource(s, c.resource);
  if (resource.actions.has(c.action.key)) {
    throw new DuplicateEntityError(`Action '${c.action.key}' already exists on resource '${resource.key}'`);
  }
  return [actionCreated(resource.key, c.action)];
}

export function updateAction(c: Cmd<'UpdateAction'>, s: EnvState): EnvEvent[] {
  const resource = findResource(s, c.resource);
  const action = findPart(resource, 'Action', c.action);
  const data: Extract<EnvEvent, { type: 'ActionUpdated' }>['data'] = { resource: resource.key, ...action };
  if (c.name !== undefined) data.name = c.name;
  if (c.description !== undefined) data.description = c.description;
  return [{ type: 'ActionUpdated', data }];
}

/** The action goes from the roles that grant it and the groups that hold it, as explicit events. */
export function deleteAction(c: Cmd<'DeleteAction'>, s: EnvState): EnvEvent[] {
  const resource = findResource(s, c.resource);
  return new Cascade(s).action(resource, findPart(resource, 'Action', c.action).key).events();
}

export function createAttribute(c: Cmd<'CreateAttribute'>, s: EnvState): EnvEvent[] {
  if (c.resource === USER_RESOURCE && !s.resources.has(USER_RESOURCE)) {
    // The first user attribute brings the built-in user resource; its id is derived from the attribute's (ids come from outside).
    const id = deterministicId(c.attribute.id, USER_RESOURCE);
    return [
      {
        type: 'ResourceCreated',
        data: { id, key: USER_RESOURCE, name: 'User', description: null, urn: null, actions: [], attributes: {} },
      },
      attributeCreated(USER_RESOURCE, c.attribute),
    ];
  }
  const resource = findResource(s, c.resource);
  if (resource.attributes.has(c.attribute.key)) {
    throw new DuplicateEntityError(`Attribute '${c.attribute.key}' already exists on resource '${resource.key}'`);
  }
  return [attributeCreated(resource.key, c.attribute)];
}

export function updateAttribute(c: Cmd<'UpdateAttribute'>, s: EnvState): EnvEvent[] {
  const resource = attributeOwner(s, c.resource, c.attribute);
  const attribute = findPart(resource, 'Attribute', c.attribute);
  const data: Extract<EnvEvent, { type: 'AttributeUpdated' }>['data'] = { resource: resource.key, ...attribute };
  if (c.attributeType !== undefined) {
    checkAttributeChange(s, resource.key, attribute.key, c.attributeType);
    data.type = c.attributeType;
  }
  if (c.description !== undefined) data.description = c.description;
  return [{ type: 'AttributeUpdated', data }];
}

export function deleteAttribute(c: Cmd<'DeleteAttribute'>, s: EnvState): EnvEvent[] {
  const resource = attributeOwner(s, c.resource, c.attribute);
  const attribute = findPart(resource, 'Attribute', c.attribute);
  checkAttributeChange(s, resource.key, attribute.key, null);
  return [{ type: 'AttributeDeleted', data: { resource: resource.key, ...attribute } }];
}

export function createActionGroup(c: Cmd<'CreateActionGroup'>, s: EnvState): EnvEvent[] {
  const resource = findResource(s, c.resource);
  if (resource.actionGroups.has(c.key)) {
    throw new DuplicateEntityError(`Action group '${c.key}' already exists on resource '${resource.key}'`);
  }
  const actions = checkGroupActions(resource, c.actions);
  return [
    {
      type: 'ActionGroupCreated',
      data: { resource: resource.key, id: c.id, key: c.key, name: c.name, description: c.description, actions },
    },
  ];
}

export function updateActionGroup(c: Cmd<'UpdateActionGroup'>, s: EnvState): EnvEvent[] {
  const resource = findResource(s, c.resource);
  const group = findGroup(resource, c.group);
  const data: Extract<EnvEvent, { type: 'ActionGroupUpdated' }>['data'] = { resource: resource.key, id: group.id, key: group.key };
  if (c.name !== undefined) data.name = c.name;
  if (c.description !== undefined) data.description = c.description;
  if (c.actions !== undefined) data.actions = checkGroupActions(resource, c.actions);
  return [{ type: 'ActionGroupUpdated', data }];
}

export function deleteActionGroup(c: Cmd<'DeleteActionGroup'>, s: EnvState): EnvEvent[] {
  const resource = findResource(s, c.resource);
  const group = findGroup(resource, c.group);
  return [{ type: 'ActionGroupDeleted', data: { resource: resource.key, id: group.id, key: group.key } }];
}
