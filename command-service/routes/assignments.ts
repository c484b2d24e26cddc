import { z } from 'zod';
import type { Filter } from '../../shared/docstore/port';
import { newId } from '../../shared/ids';
import { envOf } from '../http/auth';
import { listPage } from '../http/pagination';
import { present } from '../http/present';
import { assignmentListSchema, assignmentSchema as assignmentResponseSchema } from '../http/responses';
import { executeEnvCommand } from '../http/services';
import { INSTANCE_REF_PATTERN, queryBoolean } from '../http/validation';
import { route } from './route';
import type { RouteContext } from './route-context';
import { pastPaginationSchema, readModelsAsOf } from '../time-travel/reads';

/**
 * A tenant (for a top-level role) or a resource instance (for a role of its
 * type), or both when they agree. Without either it is refused with 400 when
 * decided, as it always was; the document states it as `anyOf`.
 */
export const assignmentSchema = z
  .object({
    user: z.string().min(1),
    role: z.string().min(1),
    tenant: z.string().min(1).optional(),
    resource_instance: z
      .string()
      .min(1)
      .meta({ pattern: INSTANCE_REF_PATTERN, description: '`type:key` of an instance, or its id' })
      .optional(),
  })
  .meta({ anyOf: [{ required: ['tenant'] }, { required: ['resource_instance'] }] });
const assignmentListQuery = pastPaginationSchema.extend({
  user: z.string().optional(),
  role: z.string().optional(),
  tenant: z.string().optional(),
  resource_instance: z.string().optional(),
  detailed: queryBoolean.optional(),
});

/** Role assignments: `/v2/facts/{proj_id}/{env_id}/role_assignments`. Unassign is DELETE with the same body. */
export function assignmentRoutes(context: RouteContext): void {
  const { services } = context;
  const rm = services.readModels;

  route(
    context,
    {
      method: 'post',
      path: '/role_assignments',
      summary: 'Assign a role (creates the user if new)',
      tag: 'Role assignments',
      body: assignmentSchema,
      response: assignmentResponseSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      const id = newId();
      await executeEnvCommand(services, req, res, envOf(res).id, {
        type: 'AssignRole',
        id,
        newUserId: newId(),
        user: body.user,
        role: body.role,
        tenant: body.tenant ?? null,
        resourceInstance: body.resource_instance ?? null,
      });
      res.json(present((await rm.assignments.get(id))!));
    },
  );

  route(
    context,
    {
      method: 'get',
      path: '/role_assignments',
      summary: 'List role assignments',
      tag: 'Role assignments',
      query: assignmentListQuery,
      response: assignmentListSchema,
    },
    async (req, res, input) => {
      const query = input.query();
      const filter: Filter = { environment_id: envOf(res).id };
      for (const field of ['user', 'role', 'tenant', 'resource_instance'] as const) if (query[field]) filter[field] = query[field];
      res.json(await listPage((await readModelsAsOf(services, req, res)).assignments, filter, query, present));
    },
  );

  route(
    context,
    {
      method: 'delete',
      path: '/role_assignments',
      summary: 'Unassign a role (body as for assign)',
      tag: 'Role assignments',
      body: assignmentSchema,
      status: 204,
    },
    async (req, res, input) => {
      const body = input.body();
      await executeEnvCommand(services, req, res, envOf(res).id, {
        type: 'UnassignRole',
        user: body.user,
        role: body.role,
        tenant: body.tenant ?? null,
        resourceInstance: body.resource_instance ?? null,
      });
      res.status(204).end();
    },
  );
}
