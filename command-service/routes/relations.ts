import { z } from 'zod';
import { NotFoundError } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { envOf } from '../http/auth';
import { listPage } from '../http/pagination';
import { executeEnvCommand } from '../http/services';
import { keySchema, paginationSchema, parse } from '../http/validation';
import type { RouteContext } from './route-context';

export const relationCreateSchema = z.object({
  key: keySchema,
  name: z.string().min(1),
  description: z.string().optional(),
  subject_resource: z.string().min(1),
});

/** Relations; the path's resource is the object type: `/resources/{resource_id}/relations`. */
export function relationRoutes({ router, services, api, base }: RouteContext): void {
  const rm = services.readModels;
  const docPath = `${base}/resources/{resource_id}/relations`;

  async function objectResource(envId: string, ref: string): Promise<string> {
    const resource = await rm.byKeyOrId(rm.resources, envId, ref);
    if (!resource) throw new NotFoundError(`Resource '${ref}' not found`);
    return resource.key;
  }

  api.add({
    method: 'post',
    path: docPath,
    summary: 'Create a relation (the path resource is the object)',
    tag: 'Relations',
    body: relationCreateSchema,
  });
  router.post('/resources/:resource_id/relations', async (req, res) => {
    const body = parse(relationCreateSchema, req.body, 'body');
    const id = newId();
    await executeEnvCommand(services, req, res, envOf(res).id, {
      type: 'CreateRelation',
      id,
      objectResource: req.params.resource_id,
      key: body.key,
      name: body.name,
      description: body.description ?? '',
      subjectResource: body.subject_resource,
    });
    res.json(await rm.relations.get(id));
  });

  api.add({ method: 'get', path: docPath, summary: 'List the relations of a resource type', tag: 'Relations', query: paginationSchema });
  router.get('/resources/:resource_id/relations', async (req, res) => {
    const env = envOf(res).id;
    const filter = { environment_id: env, object_resource: await objectResource(env, req.params.resource_id) };
    res.json(await listPage(rm.relations, filter, parse(paginationSchema, req.query, 'query')));
  });

  api.add({ method: 'get', path: `${docPath}/{relation_id}`, summary: 'Get a relation', tag: 'Relations' });
  router.get('/resources/:resource_id/relations/:relation_id', async (req, res) => {
    const env = envOf(res).id;
    const object = await objectResource(env, req.params.resource_id);
    const relation = await rm.byKeyOrId(rm.relations, env, req.params.relation_id, { object_resource: object });
    if (!relation) throw new NotFoundError(`Relation '${req.params.relation_id}' not found on resource '${object}'`);
    res.json(relation);
  });

  api.add({
    method: 'delete',
    path: `${docPath}/{relation_id}`,
    summary: 'Delete a relation with its tuples',
    tag: 'Relations',
    status: 204,
  });
  router.delete('/resources/:resource_id/relations/:relation_id', async (req, res) => {
    await executeEnvCommand(services, req, res, envOf(res).id, {
      type: 'DeleteRelation',
      objectResource: req.params.resource_id,
      relation: req.params.relation_id,
    });
    res.status(204).end();
  });
}
