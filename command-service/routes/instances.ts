import { z } from 'zod';
import { NotFoundError } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { splitRef } from '../../shared/refs';
import { envOf } from '../http/auth';
import { listPage } from '../http/pagination';
import { executeEnvCommand } from '../http/services';
import { instanceListSchema, instanceSchema } from '../http/responses';
import { boundedJson, keySchema } from '../http/validation';
import { pastPaginationSchema, readModelsAsOf } from '../time-travel/reads';
import { asOfQuery } from '../time-travel/time-travel';
import type { ReadModels } from '../../shared/read-models/read-models';
import { route } from './route';
import type { RouteContext } from './route-context';
import type { Filter } from '../../shared/docstore/port';

export const instanceCreateSchema = z.object({
  key: keySchema,
  resource: z.string().min(1),
  tenant: z.string().min(1),
  attributes: boundedJson.optional(),
});
const instanceListQuery = pastPaginationSchema.extend({ resource: z.string().optional(), tenant: z.string().optional() });

/** Resource instances: `/v2/facts/{proj_id}/{env_id}/resource_instances`. */
export function instanceRoutes(context: RouteContext): void {
  const { services } = context;
  const rm = services.readModels;

  /** `type:key` or an instance id. */
  async function findInstance(envId: string, ref: string, reads: ReadModels = rm) {
    const [resource, key] = splitRef(ref);
    const instance =
      (key ? await reads.instances.findOne({ environment_id: envId, resource, key }) : null) ?? (await reads.instances.get(ref));
    if (!instance || instance.environment_id !== envId) throw new NotFoundError(`Resource instance '${ref}' not found`);
    return instance;
  }

  route(
    context,
    {
      method: 'post',
      path: '/resource_instances',
      summary: 'Create a resource instance in a tenant',
      tag: 'Resource instances',
      body: instanceCreateSchema,
      response: instanceSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      const id = newId();
      await executeEnvCommand(services, req, res, envOf(res).id, {
        type: 'CreateInstance',
        id,
        key: body.key,
        resource: body.resource,
        tenant: body.tenant,
        attributes: body.attributes ?? {},
      });
      res.json(await rm.instances.get(id));
    },
  );

  route(
    context,
    {
      method: 'get',
      path: '/resource_instances',
      summary: 'List resource instances',
      tag: 'Resource instances',
      query: instanceListQuery,
      response: instanceListSchema,
    },
    async (req, res, input) => {
      const query = input.query();
      const filter: Filter = { environment_id: envOf(res).id };
      if (query.resource) filter.resource = query.resource;
      if (query.tenant) filter.tenant = query.tenant;
      res.json(await listPage((await readModelsAsOf(services, req, res)).instances, filter, query));
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
