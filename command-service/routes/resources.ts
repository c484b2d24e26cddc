import { z } from 'zod';
import { NotFoundError } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { envOf } from '../http/auth';
import { listPage } from '../http/pagination';
import { executeEnvCommand } from '../http/services';
import { resourceListSchema, resourceSchema } from '../http/responses';
import { boundedJson, keySchema } from '../http/validation';
import { pastPaginationSchema, readModelsAsOf } from '../time-travel/reads';
import { asOfQuery } from '../time-travel/time-travel';
import { route } from './route';
import type { RouteContext } from './route-context';

const actionBlock = z.object({
  name: z.string().optional(),
  description: z.string().optional(),
  attributes: boundedJson.optional(),
});
export const resourceCreateSchema = z.object({
  key: keySchema,
  name: z.string().min(1),
  description: z.string().optional(),
  urn: z.string().optional(),
  actions: z.record(keySchema, actionBlock),
  attributes: boundedJson.optional(),
});

/** Resource types and their actions: `/v2/schema/{proj_id}/{env_id}/resources`. */
export function resourceRoutes(context: RouteContext): void {
  const { services } = context;
  const rm = services.readModels;

  route(
    context,
    {
      method: 'post',
      path: '/resources',
      summary: 'Create a resource type',
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
        description: body.description ?? '',
        attributes: body.attributes ?? {},
        actions: Object.entries(body.actions).map(([key, a]) => ({
          id: newId(),
          key,
          name: a.name ?? key,
          description: a.description ?? '',
        })),
      });
      res.json(await rm.resources.get(id));
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
      res.json(await listPage(reads.resources, { environment_id: envOf(res).id }, input.query()));
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
      res.json(resource);
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
