import { z } from 'zod';
import { NotFoundError } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { splitRef } from '../../shared/refs';
import { envOf } from '../http/auth';
import { listPage } from '../http/pagination';
import { executeEnvCommand } from '../http/services';
import { boundedJson, keySchema, paginationSchema, parse } from '../http/validation';
import type { RouteContext } from './route-context';
import type { Filter } from '../../shared/docstore/port';

export const instanceCreateSchema = z.object({
  key: keySchema,
  resource: z.string().min(1),
  tenant: z.string().min(1),
  attributes: boundedJson.optional(),
});
const instanceListQuery = paginationSchema.extend({ resource: z.string().optional(), tenant: z.string().optional() });

/** Resource instances: `/v2/facts/{proj_id}/{env_id}/resource_instances`. */
export function instanceRoutes({ router, services, api, base }: RouteContext): void {
  const rm = services.readModels;

  /** `type:key` or an instance id. */
  async function findInstance(envId: string, ref: string) {
    const [resource, key] = splitRef(ref);
    const instance = (key ? await rm.instances.findOne({ environment_id: envId, resource, key }) : null) ?? (await rm.instances.get(ref));
    if (!instance || instance.environment_id !== envId) throw new NotFoundError(`Resource instance '${ref}' not found`);
    return instance;
  }

  api.add({
    method: 'post',
    path: `${base}/resource_instances`,
    summary: 'Create a resource instance in a tenant',
    tag: 'Resource instances',
    body: instanceCreateSchema,
  });
  router.post('/resource_instances', async (req, res) => {
    const body = parse(instanceCreateSchema, req.body, 'body');
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
  });

  api.add({
    method: 'get',
    path: `${base}/resource_instances`,
    summary: 'List resource instances',
    tag: 'Resource instances',
    query: instanceListQuery,
  });
  router.get('/resource_instances', async (req, res) => {
    const query = parse(instanceListQuery, req.query, 'query');
    const filter: Filter = { environment_id: envOf(res).id };
    if (query.resource) filter.resource = query.resource;
    if (query.tenant) filter.tenant = query.tenant;
    res.json(await listPage(rm.instances, filter, query));
  });

  api.add({
    method: 'get',
    path: `${base}/resource_instances/{instance_id}`,
    summary: 'Get a resource instance (id or type:key)',
    tag: 'Resource instances',
  });
  router.get('/resource_instances/:instance_id', async (req, res) => {
    res.json(await findInstance(envOf(res).id, req.params.instance_id));
  });

  api.add({
    method: 'delete',
    path: `${base}/resource_instances/{instance_id}`,
    summary: 'Delete a resource instance with its tuples and assignments',
    tag: 'Resource instances',
    status: 204,
  });
  router.delete('/resource_instances/:instance_id', async (req, res) => {
    await executeEnvCommand(services, req, res, envOf(res).id, { type: 'DeleteInstance', instance: req.params.instance_id });
    res.status(204).end();
  });
}
