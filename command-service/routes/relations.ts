import { z } from 'zod';
import { NotFoundError } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { envOf } from '../http/auth';
import { listPage } from '../http/pagination';
import { executeEnvCommand } from '../http/services';
import { relationPageSchema, relationSchema } from '../http/responses';
import { keySchema } from '../http/validation';
import type { ReadModels } from '../../shared/read-models/read-models';
import { pastPaginationSchema, readModelsAsOf } from '../time-travel/reads';
import { asOfQuery } from '../time-travel/time-travel';
import { route } from './route';
import type { RouteContext } from './route-context';

export const relationCreateSchema = z.object({
  key: keySchema,
  name: z.string().min(1),
  description: z.string().optional(),
  subject_resource: z.string().min(1),
});

/** Relations; the path's resource is the object type: `/resources/{resource_id}/relations`. */
export function relationRoutes(context: RouteContext): void {
  const { services } = context;
  const rm = services.readModels;

  async function objectResource(envId: string, ref: string, reads: ReadModels = rm): Promise<string> {
    const resource = await reads.byKeyOrId(reads.resources, envId, ref);
    if (!resource) throw new NotFoundError(`Resource '${ref}' not found`);
    return resource.key;
  }

  route(
    context,
    {
      method: 'post',
      path: '/resources/{resource_id}/relations',
      summary: 'Create a relation (the path resource is the object)',
      tag: 'Relations',
      body: relationCreateSchema,
      response: relationSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      const id = newId();
      await executeEnvCommand(services, req, res, envOf(res).id, {
        type: 'CreateRelation',
        id,
        objectResource: req.params.resource_id,
        key: body.key,
        name: body.name,
        description: body.description ?? null,
        subjectResource: body.subject_resource,
      });
      res.json(await rm.relations.get(id));
    },
  );

  route(
    context,
    {
      method: 'get',
      path: '/resources/{resource_id}/relations',
      summary: 'List the relations of a resource type ({data, total_count, page_count})',
      tag: 'Relations',
      query: pastPaginationSchema,
      response: relationPageSchema,
    },
    async (req, res, input) => {
      const env = envOf(res).id;
      const reads = await readModelsAsOf(services, req, res);
      const filter = { environment_id: env, object_resource: await objectResource(env, req.params.resource_id, reads) };
      // Always a page, as Permit answers (like users): its Python SDK parses nothing else.
      res.json(await listPage(reads.relations, filter, { ...input.query(), include_total_count: true }));
    },
  );

  route(
    context,
    {
      method: 'get',
      path: '/resources/{resource_id}/relations/{relation_id}',
      query: asOfQuery,
      summary: 'Get a relation',
      tag: 'Relations',
      response: relationSchema,
    },
    async (req, res) => {
      const env = envOf(res).id;
      const reads = await readModelsAsOf(services, req, res);
      const object = await objectResource(env, req.params.resource_id, reads);
      const relation = await reads.byKeyOrId(reads.relations, env, req.params.relation_id, { object_resource: object });
      if (!relation) throw new NotFoundError(`Relation '${req.params.relation_id}' not found on resource '${object}'`);
      res.json(relation);
    },
  );

  route(
    context,
    {
      method: 'delete',
      path: '/resources/{resource_id}/relations/{relation_id}',
      summary: 'Delete a relation with its tuples',
      tag: 'Relations',
      status: 204,
    },
    async (req, res) => {
      await executeEnvCommand(services, req, res, envOf(res).id, {
        type: 'DeleteRelation',
        objectResource: req.params.resource_id,
        relation: req.params.relation_id,
      });
      res.status(204).end();
    },
  );
}
