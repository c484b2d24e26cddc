import { z } from 'zod';
import type { Filter } from '../../shared/docstore/port';
import { newId } from '../../shared/ids';
import { envOf } from '../http/auth';
import { listPage } from '../http/pagination';
import { executeEnvCommand } from '../http/services';
import { tupleListSchema, tupleSchema } from '../http/responses';
import { INSTANCE_REF_PATTERN } from '../http/validation';
import { pastPaginationSchema, readModelsAsOf } from '../time-travel/reads';
import { route } from './route';
import type { RouteContext } from './route-context';

/** `type:key` or an instance id; the form is checked with the instances (another form: 400), so the pattern is stated for the document. */
const instanceRef = z.string().min(1).meta({ pattern: INSTANCE_REF_PATTERN, description: '`type:key` of an instance, or its id' });
export const tupleCreateSchema = z.object({
  subject: instanceRef,
  relation: z.string().min(1),
  object: instanceRef,
  tenant: z.string().min(1).optional(),
});
export const tupleDeleteSchema = tupleCreateSchema.omit({ tenant: true });
const tupleListQuery = pastPaginationSchema.extend({
  subject: z.string().optional(),
  relation: z.string().optional(),
  object: z.string().optional(),
  tenant: z.string().optional(),
});

/** Relationship tuples: `/v2/facts/{proj_id}/{env_id}/relationship_tuples`. Delete is DELETE with a body. */
export function tupleRoutes(context: RouteContext): void {
  const { services } = context;
  const rm = services.readModels;

  route(
    context,
    {
      method: 'post',
      path: '/relationship_tuples',
      summary: 'Create a relationship tuple',
      tag: 'Relationship tuples',
      body: tupleCreateSchema,
      response: tupleSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      const id = newId();
      await executeEnvCommand(services, req, res, envOf(res).id, {
        type: 'CreateTuple',
        id,
        subject: body.subject,
        relation: body.relation,
        object: body.object,
        tenant: body.tenant ?? null,
      });
      res.json(await rm.tuples.get(id));
    },
  );

  route(
    context,
    {
      method: 'get',
      path: '/relationship_tuples',
      summary: 'List relationship tuples',
      tag: 'Relationship tuples',
      query: tupleListQuery,
      response: tupleListSchema,
    },
    async (req, res, input) => {
      const query = input.query();
      const filter: Filter = { environment_id: envOf(res).id };
      for (const field of ['subject', 'relation', 'object', 'tenant'] as const) if (query[field]) filter[field] = query[field];
      res.json(await listPage((await readModelsAsOf(services, req, res)).tuples, filter, query));
    },
  );

  route(
    context,
    {
      method: 'delete',
      path: '/relationship_tuples',
      summary: 'Delete a relationship tuple',
      tag: 'Relationship tuples',
      body: tupleDeleteSchema,
      status: 204,
    },
    async (req, res, input) => {
      const body = input.body();
      await executeEnvCommand(services, req, res, envOf(res).id, {
        type: 'DeleteTuple',
        subject: body.subject,
        relation: body.relation,
        object: body.object,
      });
      res.status(204).end();
    },
  );
}
