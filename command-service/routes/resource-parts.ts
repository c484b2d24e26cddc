import type { Request, Response } from 'express';
import { z } from 'zod';
import { USER_RESOURCE } from '../../shared/domain/env/attributes';
import type { EnvCommand } from '../../shared/domain/env/commands';
import { NotFoundError } from '../../shared/errors';
import { newId } from '../../shared/ids';
import type { ReadModels, ResourceDoc } from '../../shared/read-models/read-models';
import { envOf } from '../http/auth';
import {
  resourceActionGroupListSchema,
  resourceActionGroupSchema,
  resourceActionListSchema,
  resourceActionSchema,
  resourceAttributeListSchema,
  resourceAttributeSchema,
} from '../http/responses';
import { executeEnvCommand } from '../http/services';
import { keySchema, type Pagination } from '../http/validation';
import { pastPaginationSchema, readModelsAsOf } from '../time-travel/reads';
import { asOfQuery } from '../time-travel/time-travel';
import { attributesOf, attributeTypeSchema } from './resources';
import { route } from './route';
import type { RouteContext } from './route-context';

/**
 * A resource type's parts as objects of their own, as Permit serves them:
 * `/resources/{resource_id}/actions`, `/attributes` and `/action_groups`
 * (the SDK's resourceActions, resourceAttributes, resourceActionGroups). They
 * live in the resource's document; each is named by key or id. Bodies are
 * strict: `attributes` of actions and groups are refused (not kept).
 */

const actionCreateSchema = z.strictObject({ key: keySchema, name: z.string().min(1), description: z.string().optional() });
const actionUpdateSchema = z.strictObject({ name: z.string().min(1).optional(), description: z.string().optional() });
const attributeCreateSchema = z.strictObject({ key: keySchema, type: attributeTypeSchema, description: z.string().optional() });
const attributeUpdateSchema = z.strictObject({ type: attributeTypeSchema.optional(), description: z.string().optional() });
const groupCreateSchema = z.strictObject({
  key: keySchema,
  name: z.string().min(1),
  description: z.string().optional(),
  actions: z.array(z.string().min(1)).optional(),
});
const groupUpdateSchema = z.strictObject({
  name: z.string().min(1).optional(),
  description: z.string().optional(),
  actions: z.array(z.string().min(1)).optional(),
});

/** The fields every part's answer carries from its resource; parts created with it share its created_at. */
function partFields(doc: ResourceDoc, part: { id: string; created_at?: string; updated_at?: string }) {
  return {
    id: part.id,
    organization_id: doc.organization_id,
    project_id: doc.project_id,
    environment_id: doc.environment_id,
    resource_id: doc.id,
    created_at: part.created_at ?? doc.created_at,
    updated_at: part.updated_at ?? part.created_at ?? doc.created_at,
  };
}

const presentAction = (doc: ResourceDoc, a: ResourceDoc['actions'][string]) => ({
  ...partFields(doc, a),
  key: a.key,
  name: a.name,
  description: a.description,
  permission_name: `${doc.key}:${a.key}`,
});
const presentAttribute = (doc: ResourceDoc, a: ResourceDoc['attributes'][string]) => ({
  ...partFields(doc, a),
  key: a.key,
  type: a.type,
  description: a.description,
  resource_key: doc.key,
  built_in: false,
});
const presentGroup = (doc: ResourceDoc, g: NonNullable<ResourceDoc['_action_groups']>[string]) => ({
  ...partFields(doc, g),
  key: g.key,
  name: g.name,
  description: g.description,
  actions: g.actions,
});

/** One kind of part: where it is in the document, and how it is answered. */
interface PartKind<P extends { id: string; key: string }> {
  /** Path segment and the label of its errors. */
  segment: 'actions' | 'attributes' | 'action_groups';
  /** The path parameter naming one. */
  param: 'action_id' | 'attribute_id' | 'action_group_id';
  label: string;
  parts(doc: ResourceDoc): Record<string, P>;
  present(doc: ResourceDoc, part: P): unknown;
}
const actionKind: PartKind<ResourceDoc['actions'][string]> = {
  segment: 'actions',
  param: 'action_id',
  label: 'Action',
  parts: (doc) => doc.actions,
  present: presentAction,
};
const attributeKind: PartKind<ResourceDoc['attributes'][string]> = {
  segment: 'attributes',
  param: 'attribute_id',
  label: 'Attribute',
  parts: attributesOf,
  present: presentAttribute,
};
const groupKind: PartKind<NonNullable<ResourceDoc['_action_groups']>[string]> = {
  segment: 'action_groups',
  param: 'action_group_id',
  label: 'Action group',
  parts: (doc) => doc._action_groups ?? {},
  present: presentGroup,
};

async function resourceOf(rm: ReadModels, res: Response, ref: string): Promise<ResourceDoc> {
  const doc = await rm.byKeyOrId(rm.resources, envOf(res).id, ref);
  if (!doc) throw new NotFoundError(`Resource '${ref}' not found`);
  return doc;
}

function partOf<P extends { id: string; key: string }>(kind: PartKind<P>, doc: ResourceDoc, ref: string): P {
  const parts = kind.parts(doc);
  const part = parts[ref] ?? Object.values(parts).find((p) => p.id === ref);
  if (!part) throw new NotFoundError(`${kind.label} '${ref}' not found on resource '${doc.key}'`);
  return part;
}

/** A page of an in-document list, in key order, shaped as every list is (see listPage). */
function pageOf<T>(items: T[], page: Pagination) {
  const data = items.slice((page.page - 1) * page.per_page, page.page * page.per_page);
  if (!page.include_total_count) return data;
  return { data, total_count: items.length, page_count: Math.ceil(items.length / page.per_page) };
}

export function resourcePartRoutes(context: RouteContext): void {
  const { services } = context;
  const rm = services.readModels;

  /** Runs the command, then answers the part (by key) as the read model now holds it. */
  const answerAfter = async <P extends { id: string; key: string }>(
    req: Request,
    res: Response,
    kind: PartKind<P>,
    command: EnvCommand,
    key: (events: Awaited<ReturnType<typeof executeEnvCommand>>['events']) => string,
    resource = String(req.params.resource_id),
  ) => {
    const outcome = await executeEnvCommand(services, req, res, envOf(res).id, command);
    const doc = await resourceOf(rm, res, resource);
    res.json(kind.present(doc, partOf(kind, doc, key(outcome.events))));
  };
  const keyOfFirst = (events: Array<{ data: unknown }>) => (events[0]!.data as { key: string }).key;
  /** The last event names the part (a cascade's events come before it). */
  const keyOfLast = (events: Array<{ data: unknown }>) => (events[events.length - 1]!.data as { key: string }).key;

  const readRoutes = <P extends { id: string; key: string }>(
    kind: PartKind<P>,
    responses: { one: z.ZodType; list: z.ZodType },
    tag: string,
    noun: string,
  ) => {
    route(
      context,
      {
        method: 'get',
        path: `/resources/{resource_id}/${kind.segment}`,
        summary: `List the ${noun}s of a resource type`,
        tag,
        query: pastPaginationSchema,
        response: responses.list,
      },
      async (req, res, input) => {
        const reads = await readModelsAsOf(services, req, res);
        const doc = await resourceOf(reads, res, req.params.resource_id);
        const parts = Object.values(kind.parts(doc)).sort((a, b) => a.key.localeCompare(b.key));
        res.json(
          pageOf(
            parts.map((p) => kind.present(doc, p)),
            input.query(),
          ),
        );
      },
    );
    route(
      context,
      {
        method: 'get',
        path: `/resources/{resource_id}/${kind.segment}/{${kind.param}}` as '/resources/{resource_id}/{part_id}',
        summary: `Get a ${noun} of a resource type`,
        tag,
        query: asOfQuery,
        response: responses.one,
      },
      async (req, res) => {
        const reads = await readModelsAsOf(services, req, res);
        const doc = await resourceOf(reads, res, req.params.resource_id);
        res.json(kind.present(doc, partOf(kind, doc, (req.params as Record<string, string>)[kind.param]!)));
      },
    );
  };

  // Actions.
  readRoutes(actionKind, { one: resourceActionSchema, list: resourceActionListSchema }, 'Resource actions', 'action');
  route(
    context,
    {
      method: 'post',
      path: '/resources/{resource_id}/actions',
      summary: 'Create an action of a resource type',
      tag: 'Resource actions',
      body: actionCreateSchema,
      response: resourceActionSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      const action = { id: newId(), key: body.key, name: body.name, description: body.description ?? null };
      await answerAfter(req, res, actionKind, { type: 'CreateAction', resource: req.params.resource_id, action }, () => body.key);
    },
  );
  route(
    context,
    {
      method: 'patch',
      path: '/resources/{resource_id}/actions/{action_id}',
      summary: 'Update an action of a resource type',
      tag: 'Resource actions',
      body: actionUpdateSchema,
      response: resourceActionSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      const command: EnvCommand = { type: 'UpdateAction', resource: req.params.resource_id, action: req.params.action_id };
      if (body.name !== undefined) command.name = body.name;
      if (body.description !== undefined) command.description = body.description;
      await answerAfter(req, res, actionKind, command, keyOfFirst);
    },
  );
  route(
    context,
    {
      method: 'delete',
      path: '/resources/{resource_id}/actions/{action_id}',
      summary: 'Delete an action of a resource type; the roles that grant it and the groups that hold it lose it',
      tag: 'Resource actions',
      status: 204,
    },
    async (req, res) => {
      const command: EnvCommand = { type: 'DeleteAction', resource: req.params.resource_id, action: req.params.action_id };
      await executeEnvCommand(services, req, res, envOf(res).id, command);
      res.status(204).end();
    },
  );

  // Attributes.
  readRoutes(attributeKind, { one: resourceAttributeSchema, list: resourceAttributeListSchema }, 'Resource attributes', 'attribute');
  route(
    context,
    {
      method: 'post',
      path: '/resources/{resource_id}/attributes',
      summary: 'Create an attribute of a resource type',
      tag: 'Resource attributes',
      body: attributeCreateSchema,
      response: resourceAttributeSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      const attribute = { id: newId(), key: body.key, type: body.type, description: body.description ?? null };
      await answerAfter(req, res, attributeKind, { type: 'CreateAttribute', resource: req.params.resource_id, attribute }, () => body.key);
    },
  );
  route(
    context,
    {
      method: 'patch',
      path: '/resources/{resource_id}/attributes/{attribute_id}',
      summary: 'Update an attribute of a resource type',
      tag: 'Resource attributes',
      body: attributeUpdateSchema,
      response: resourceAttributeSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      const command: EnvCommand = { type: 'UpdateAttribute', resource: req.params.resource_id, attribute: req.params.attribute_id };
      if (body.type !== undefined) command.attributeType = body.type;
      if (body.description !== undefined) command.description = body.description;
      await answerAfter(req, res, attributeKind, command, keyOfFirst);
    },
  );
  route(
    context,
    {
      method: 'delete',
      path: '/resources/{resource_id}/attributes/{attribute_id}',
      summary: 'Delete an attribute of a resource type',
      tag: 'Resource attributes',
      status: 204,
    },
    async (req, res) => {
      const command: EnvCommand = { type: 'DeleteAttribute', resource: req.params.resource_id, attribute: req.params.attribute_id };
      await executeEnvCommand(services, req, res, envOf(res).id, command);
      res.status(204).end();
    },
  );

  // User attributes: the attributes of the built-in user resource, which the first one creates.
  const users = '/users/attributes';
  route(
    context,
    {
      method: 'get',
      path: users,
      summary: 'List the user attributes',
      tag: 'User attributes',
      query: pastPaginationSchema,
      response: resourceAttributeListSchema,
    },
    async (req, res, input) => {
      const reads = await readModelsAsOf(services, req, res);
      const doc = await reads.byKeyOrId(reads.resources, envOf(res).id, USER_RESOURCE);
      const parts = doc ? Object.values(attributesOf(doc)).sort((a, b) => a.key.localeCompare(b.key)) : [];
      res.json(
        pageOf(
          parts.map((p) => presentAttribute(doc!, p)),
          input.query(),
        ),
      );
    },
  );
  route(
    context,
    {
      method: 'post',
      path: users,
      summary: 'Create a user attribute',
      tag: 'User attributes',
      body: attributeCreateSchema,
      response: resourceAttributeSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      const attribute = { id: newId(), key: body.key, type: body.type, description: body.description ?? null };
      await answerAfter(
        req,
        res,
        attributeKind,
        { type: 'CreateAttribute', resource: USER_RESOURCE, attribute },
        () => body.key,
        USER_RESOURCE,
      );
    },
  );
  route(
    context,
    {
      method: 'get',
      path: `${users}/{attribute_id}`,
      summary: 'Get a user attribute',
      tag: 'User attributes',
      query: asOfQuery,
      response: resourceAttributeSchema,
    },
    async (req, res) => {
      const reads = await readModelsAsOf(services, req, res);
      const doc = await reads.byKeyOrId(reads.resources, envOf(res).id, USER_RESOURCE);
      if (!doc) throw new NotFoundError(`User attribute '${req.params.attribute_id}' not found`);
      res.json(presentAttribute(doc, partOf(attributeKind, doc, req.params.attribute_id)));
    },
  );
  route(
    context,
    {
      method: 'patch',
      path: `${users}/{attribute_id}`,
      summary: 'Update a user attribute',
      tag: 'User attributes',
      body: attributeUpdateSchema,
      response: resourceAttributeSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      const command: EnvCommand = { type: 'UpdateAttribute', resource: USER_RESOURCE, attribute: req.params.attribute_id };
      if (body.type !== undefined) command.attributeType = body.type;
      if (body.description !== undefined) command.description = body.description;
      await answerAfter(req, res, attributeKind, command, keyOfFirst, USER_RESOURCE);
    },
  );
  route(
    context,
    { method: 'delete', path: `${users}/{attribute_id}`, summary: 'Delete a user attribute', tag: 'User attributes', status: 204 },
    async (req, res) => {
      const command: EnvCommand = { type: 'DeleteAttribute', resource: USER_RESOURCE, attribute: req.params.attribute_id };
      await executeEnvCommand(services, req, res, envOf(res).id, command);
      res.status(204).end();
    },
  );

  // Action groups.
  readRoutes(groupKind, { one: resourceActionGroupSchema, list: resourceActionGroupListSchema }, 'Resource action groups', 'action group');
  route(
    context,
    {
      method: 'post',
      path: '/resources/{resource_id}/action_groups',
      summary: 'Create an action group of a resource type',
      tag: 'Resource action groups',
      body: groupCreateSchema,
      response: resourceActionGroupSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      const command: EnvCommand = {
        type: 'CreateActionGroup',
        resource: req.params.resource_id,
        id: newId(),
        key: body.key,
        name: body.name,
        description: body.description ?? null,
        actions: body.actions ?? [],
      };
      await answerAfter(req, res, groupKind, command, () => body.key);
    },
  );
  route(
    context,
    {
      method: 'patch',
      path: '/resources/{resource_id}/action_groups/{action_group_id}',
      summary: 'Update an action group of a resource type',
      tag: 'Resource action groups',
      body: groupUpdateSchema,
      response: resourceActionGroupSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      const command: EnvCommand = { type: 'UpdateActionGroup', resource: req.params.resource_id, group: req.params.action_group_id };
      if (body.name !== undefined) command.name = body.name;
      if (body.description !== undefined) command.description = body.description;
      if (body.actions !== undefined) command.actions = body.actions;
      await answerAfter(req, res, groupKind, command, keyOfLast);
    },
  );
  route(
    context,
    {
      method: 'delete',
      path: '/resources/{resource_id}/action_groups/{action_group_id}',
      summary: 'Delete an action group of a resource type',
      tag: 'Resource action groups',
      status: 204,
    },
    async (req, res) => {
      const command: EnvCommand = { type: 'DeleteActionGroup', resource: req.params.resource_id, group: req.params.action_group_id };
      await executeEnvCommand(services, req, res, envOf(res).id, command);
      res.status(204).end();
    },
  );
}
