import { z } from 'zod';
import { attributeDefsOf } from '../../shared/domain/env/attributes';
import type { ActionInput, AttributeInput } from '../../shared/domain/env/commands';
import { attributeTypes, type EnvEvent } from '../../shared/events';
import { NotFoundError } from '../../shared/errors';
import { newId } from '../../shared/ids';
import type { ReadModels, ResourceDoc, RoleDoc } from '../../shared/read-models/read-models';
import { envOf } from '../http/auth';
import { listPage } from '../http/pagination';
import { executeEnvCommand } from '../http/services';
import { resourceListSchema, resourceSchema } from '../http/responses';
import { boundedJson, keySchema } from '../http/validation';
import { pastPaginationSchema, readModelsAsOf } from '../time-travel/reads';
import { asOfQuery } from '../time-travel/time-travel';
import { route } from './route';
import type { RouteContext } from './route-context';

/**
 * Nested objects are strict: a field the service does not keep is refused
 * (422 naming it), never accepted and dropped. Action `attributes` and role
 * `extends`/`granted_to` inline are refused for that reason (roles get them
 * through /roles).
 */
const actionBlock = z.strictObject({ name: z.string().min(1).optional(), description: z.string().optional() });
export const attributeTypeSchema = z.enum(attributeTypes);
const attributeBlock = z.strictObject({ type: attributeTypeSchema, description: z.string().optional() });
const inlineRoleBlock = z.strictObject({
  name: z.string().min(1).optional(),
  description: z.string().optional(),
  permissions: z.array(z.string().min(1)).optional(),
  attributes: boundedJson.optional(),
});
const definitionFields = {
  name: z.string().min(1),
  description: z.string().optional(),
  urn: z.string().min(1).optional(),
  actions: z.record(keySchema, actionBlock),
  attributes: z.record(keySchema, attributeBlock).optional(),
};
export const resourceCreateSchema = z.object({
  /** Keys starting with `__` are the built-in resources' (`__user`: see the user attributes). */
  key: keySchema.refine((key) => !key.startsWith('__'), 'keys starting with __ are reserved for built-in resources'),
  ...definitionFields,
  /** Roles of this resource, created with it: role key → its definition. */
  roles: z.record(keySchema, inlineRoleBlock).optional(),
  /** Relations to this resource, created with it: relation key → subject resource (key or id). */
  relations: z.record(keySchema, z.string().min(1)).optional(),
});
/** Refused, not dropped: an existing resource's roles and relations change through their own routes. */
const managedElsewhere = (what: 'roles' | 'relations') =>
  z.never({ error: `${what} of an existing resource are managed under /resources/{resource_id}/${what}` }).optional();
/** PUT: the whole definition but the key. */
export const resourceReplaceSchema = z.object({
  ...definitionFields,
  roles: managedElsewhere('roles'),
  relations: managedElsewhere('relations'),
});
export const resourceUpdateSchema = z
  .object(definitionFields)
  .partial()
  .extend({ roles: managedElsewhere('roles'), relations: managedElsewhere('relations') });

const actionInputs = (actions: Record<string, z.infer<typeof actionBlock>>): ActionInput[] =>
  Object.entries(actions).map(([key, a]) => ({ id: newId(), key, name: a.name ?? key, description: a.description ?? null }));
const attributeInputs = (attributes: Record<string, z.infer<typeof attributeBlock>>): AttributeInput[] =>
  Object.entries(attributes).map(([key, a]) => ({ id: newId(), key, type: a.type, description: a.description ?? null }));

/**
 * A resource document's attributes as typed blocks. Documents projected before attributes were
 * typed hold what the caller sent; they read as a rebuild from the log would project them
 * (attributeDefsOf), so an upgrade without a rebuild answers the same.
 */
export function attributesOf(doc: ResourceDoc): ResourceDoc['attributes'] {
  return Object.fromEntries(
    attributeDefsOf(doc.id, doc.attributes).map((a) => {
      const { created_at, updated_at } = doc.attributes[a.key] ?? {};
      return [a.key, { ...a, ...(created_at ? { created_at } : {}), ...(updated_at ? { updated_at } : {}) }];
    }),
  );
}

/** ResourceRead: the document without its internal fields, parts as Permit's blocks, with its roles (ResourceRoleRead) by key. */
export function presentResource(doc: ResourceDoc, roles: RoleDoc[] = []) {
  const { _action_groups: _groups, actions, attributes: _attributes, ...rest } = doc;
  return {
    ...rest,
    roles: Object.fromEntries(roles.map((role) => [role.key, role])),
    description: doc.description ?? null,
    actions: Object.fromEntries(
      Object.entries(actions).map(([key, a]) => [key, { id: a.id, key: a.key, name: a.name, description: a.description }]),
    ),
    attributes: Object.fromEntries(
      Object.entries(attributesOf(doc)).map(([key, a]) => [key, { id: a.id, key: a.key, type: a.type, description: a.description }]),
    ),
  };
}

/** The resource an UpdateResource decided on (its first event is always ResourceUpdated). */
function updatedId(events: EnvEvent[]): string {
  const updated = events.find((e) => e.type === 'ResourceUpdated');
  if (!updated) throw new Error('UpdateResource decided no ResourceUpdated');
  return updated.data.id;
}

/** The roles of these resources (one query), by resource key: ResourceRead carries them. */
async function rolesOf(reads: ReadModels, environmentId: string, docs: ResourceDoc[]): Promise<Map<string, RoleDoc[]>> {
  const byResource = new Map<string, RoleDoc[]>();
  if (docs.length === 0) return byResource;
  for (const role of await reads.resourceRoles.find({ environment_id: environmentId, resource: { $in: docs.map((d) => d.key) } })) {
    const list = byResource.get(role.resource ?? '') ?? [];
    list.push(role);
    byResource.set(role.resource ?? '', list);
  }
  return byResource;
}

async function presentResources(reads: ReadModels, environmentId: string, docs: ResourceDoc[]) {
  const roles = await rolesOf(reads, environmentId, docs);
  return docs.map((doc) => presentResource(doc, roles.get(doc.key)));
}

/** Resource types and their actions: `/v2/schema/{proj_id}/{env_id}/resources`. */
export function resourceRoutes(context: RouteContext): void {
  const { services } = context;
  const rm = services.readModels;

  const answerResource = async (res: Parameters<Parameters<typeof route>[2]>[1], id: string) => {
    const doc = await rm.resources.get(id);
    if (!doc) throw new NotFoundError(`Resource '${id}' not found`);
    res.json((await presentResources(rm, doc.environment_id, [doc]))[0]);
  };

  route(
    context,
    {
      method: 'post',
      path: '/resources',
      summary: 'Create a resource type (with its actions, attributes, and optionally roles and relations)',
      tag: 'Resources',
      body: resourceCreateSchema,
      response: resourceSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      const env = envOf(res);
      const id = newId();
      await executeEnvCommand(services, req, res, env.id, {
        type: 'CreateResource',
        id,
        key: body.key,
        name: body.name,
        description: body.description ?? null,
        urn: body.urn ?? null,
        attributes: attributeInputs(body.attributes ?? {}),
        actions: actionInputs(body.actions),
        roles: Object.entries(body.roles ?? {}).map(([key, r]) => ({
          id: newId(),
          key,
          name: r.name ?? key,
          description: r.description ?? null,
          permissions: r.permissions ?? [],
          attributes: r.attributes ?? {},
        })),
        relations: Object.entries(body.relations ?? {}).map(([key, subjectResource]) => ({
          id: newId(),
          key,
          name: key,
          description: null,
          subjectResource,
        })),
      });
      await answerResource(res, id);
    },
  );

  route(
    context,
    {
      method: 'get',
      path: '/resources',
      summary: 'List resource types',
      tag: 'Resources',
      query: pastPaginationSchema,
      response: resourceListSchema,
    },
    async (req, res, input) => {
      const reads = await readModelsAsOf(services, req, res);
      const environmentId = envOf(res).id;
      const page = await listPage(reads.resources, { environment_id: environmentId }, input.query());
      if (Array.isArray(page)) res.json(await presentResources(reads, environmentId, page));
      else res.json({ ...page, data: await presentResources(reads, environmentId, page.data) });
    },
  );

  route(
    context,
    {
      method: 'get',
      path: '/resources/{resource_id}',
      summary: 'Get a resource type',
      tag: 'Resources',
      query: asOfQuery,
      response: resourceSchema,
    },
    async (req, res) => {
      const reads = await readModelsAsOf(services, req, res);
      const resource = await reads.byKeyOrId(reads.resources, envOf(res).id, req.params.resource_id);
      if (!resource) throw new NotFoundError(`Resource '${req.params.resource_id}' not found`);
      res.json((await presentResources(reads, resource.environment_id, [resource]))[0]);
    },
  );

  route(
    context,
    {
      method: 'patch',
      path: '/resources/{resource_id}',
      summary: 'Update a resource type: the fields given change; listed actions and attributes are created or updated',
      tag: 'Resources',
      body: resourceUpdateSchema,
      response: resourceSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      const env = envOf(res);
      const outcome = await executeEnvCommand(services, req, res, env.id, {
        type: 'UpdateResource',
        resource: req.params.resource_id,
        replace: false,
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.description !== undefined ? { description: body.description } : {}),
        ...(body.urn !== undefined ? { urn: body.urn } : {}),
        ...(body.actions !== undefined ? { actions: actionInputs(body.actions) } : {}),
        ...(body.attributes !== undefined ? { attributes: attributeInputs(body.attributes) } : {}),
      });
      await answerResource(res, updatedId(outcome.events));
    },
  );

  route(
    context,
    {
      method: 'put',
      path: '/resources/{resource_id}',
      summary: 'Replace a resource type: unlisted actions (leaving the roles that grant them) and attributes are deleted',
      tag: 'Resources',
      body: resourceReplaceSchema,
      response: resourceSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      const env = envOf(res);
      const outcome = await executeEnvCommand(services, req, res, env.id, {
        type: 'UpdateResource',
        resource: req.params.resource_id,
        replace: true,
        name: body.name,
        description: body.description ?? null,
        urn: body.urn ?? null,
        actions: actionInputs(body.actions),
        attributes: attributeInputs(body.attributes ?? {}),
      });
      await answerResource(res, updatedId(outcome.events));
    },
  );

  route(
    context,
    {
      method: 'delete',
      path: '/resources/{resource_id}',
      summary: 'Delete a resource type with its roles, relations and instances',
      tag: 'Resources',
      status: 204,
    },
    async (req, res) => {
      await executeEnvCommand(services, req, res, envOf(res).id, { type: 'DeleteResource', resource: req.params.resource_id });
      res.status(204).end();
    },
  );
}
