import { z } from 'zod';
import { NotFoundError } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { splitRef } from '../../shared/refs';
import { envOf } from '../http/auth';
import { executeEnvCommand } from '../http/services';
import { instanceDetailedListSchema, instanceListSchema, instanceSchema } from '../http/responses';
import { boundedJson, keySchema, queryBoolean } from '../http/validation';
import { detailedInstances } from '../http/detailed';
import { matchAny, repeatable, searchedPage, shaped } from '../http/list-filters';
import { pastPaginationSchema, readModelsAsOf } from '../time-travel/reads';
import { asOfQuery } from '../time-travel/time-travel';
import type { ReadModels } from '../../shared/read-models/read-models';
import { createRoute } from './create-route';
import { route } from './route';
import type { RouteContext } from './route-context';
import type { Filter } from '../../shared/docstore/port';
import { canonicalId } from '../../shared/ids';

export const instanceCreateSchema = z.object({
  key: keySchema,
  resource: z.string().min(1),
  tenant: z.string().min(1),
  attributes: boundedJson.optional(),
});
const instanceListQuery = pastPaginationSchema.extend({
  resource: repeatable.optional(),
  tenant: repeatable.optional(),
  /** A case-insensitive substring of the instance's key. */
  search: z.string().min(1).optional(),
  detailed: queryBoolean.optional(),
});
const instanceUpdateSchema = z.object({ attributes: boundedJson.optional() });

/** Resource instances: `/v2/facts/{proj_id}/{env_id}/resource_instances`. */
export function instanceRoutes(context: RouteContext): void {
  const { services } = context;
  const rm = services.readModels;

  /** `type:key` or an instance id. */
  async function findInstance(envId: string, ref: string, reads: ReadModels = rm) {
    const [resource, key] = splitRef(ref);
    const instance =
      (key ? await reads.instances.findOne({ environment_id: envId, resource, key }) : null) ??
      (await reads.instances.get(canonicalId(ref)));
    if (!instance || instance.environment_id !== envId) throw new NotFoundError(`Resource instance '${ref}' not found`);
    return instance;
  }

  createRoute(
    context,
    {
      method: 'post',
      path: '/resource_instances',
      summary: 'Create a resource instance in a tenant',
      tag: 'Resource instances',
      body: instanceCreateSchema,
      response: instanceSchema,
    },
    {
      command: (body) => {
        const id = newId();
        const { key, resource, tenant, attributes } = body;
        return { id, command: { type: 'CreateInstance', id, key, resource, tenant, attributes: attributes ?? {} } };
      },
      answer: (id) => rm.instances.get(id),
    },
  );

  route(
    context,
    {
      method: 'get',
      path: '/resource_instances',
      summary: 'List resource instances (search: in the key; detailed=true: with their relationships)',
      tag: 'Resource instances',
      query: instanceListQuery,
      response: z.union([instanceListSchema, instanceDetailedListSchema]),
    },
    async (req, res, input) => {
      const query = input.query();
      res.json(await instancePage(await readModelsAsOf(services, req, res), envOf(res).id, query, query.detailed ?? false));
    },
  );

  route(
    context,
    {
      method: 'get',
      path: '/resource_instances/detailed',
      summary: 'List resource instances with their relationships (as detailed=true)',
      tag: 'Resource instances',
      query: instanceListQuery.omit({ detailed: true }),
      response: instanceDetailedListSchema,
    },
    async (req, res, input) => {
      res.json(await instancePage(await readModelsAsOf(services, req, res), envOf(res).id, input.query(), true));
    },
  );

  route(
    context,
    {
      method: 'patch',
      path: '/resource_instances/{instance_id}',
      summary: "Update a resource instance's attributes (id or type:key)",
      tag: 'Resource instances',
      body: instanceUpdateSchema,
      response: instanceSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      await executeEnvCommand(services, req, res, envOf(res).id, {
        type: 'UpdateInstance',
        instance: req.params.instance_id,
        ...(body.attributes !== undefined ? { attributes: body.attributes } : {}),
      });
      res.json(await findInstance(envOf(res).id, req.params.instance_id));
    },
  );

  route(
    context,
    {
      method: 'get',
      path: '/resource_instances/{instance_id}',
      query: asOfQuery,
      summary: 'Get a resource instance (id or type:key)',
      tag: 'Resource instances',
      response: instanceSchema,
    },
    async (req, res) => {
      const reads = await readModelsAsOf(services, req, res);
      res.json(await findInstance(envOf(res).id, req.params.instance_id, reads));
    },
  );

  route(
    context,
    {
      method: 'delete',
      path: '/resource_instances/{instance_id}',
      summary: 'Delete a resource instance with its tuples and assignments',
      tag: 'Resource instances',
      status: 204,
    },
    async (req, res) => {
      await executeEnvCommand(services, req, res, envOf(res).id, { type: 'DeleteInstance', instance: req.params.instance_id });
      res.status(204).end();
    },
  );
}

async function instancePage(reads: ReadModels, env: string, query: Omit<z.infer<typeof instanceListQuery>, 'detailed'>, detailed: boolean) {
  const filter: Filter = { environment_id: env };
  matchAny(filter, 'resource', query.resource);
  matchAny(filter, 'tenant', query.tenant);
  const paged = await searchedPage(reads.instances, filter, query, { text: query.search, fields: ['key'] });
  const data: object[] = detailed ? await detailedInstances(reads, env, paged.data) : paged.data;
  return shaped({ ...paged, data }, query);
}
