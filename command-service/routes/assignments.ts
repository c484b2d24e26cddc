import { z } from 'zod';
import type { Filter } from '../../shared/docstore/port';
import { newId } from '../../shared/ids';
import { envOf } from '../http/auth';
import { listPage } from '../http/pagination';
import { present } from '../http/present';
import { executeEnvCommand } from '../http/services';
import { paginationSchema, parse, queryBoolean } from '../http/validation';
import type { RouteContext } from './route-context';

export const assignmentSchema = z.object({
  user: z.string().min(1),
  role: z.string().min(1),
  tenant: z.string().min(1).optional(),
  resource_instance: z.string().min(1).optional(),
});
const assignmentListQuery = paginationSchema.extend({
  user: z.string().optional(),
  role: z.string().optional(),
  tenant: z.string().optional(),
  resource_instance: z.string().optional(),
  detailed: queryBoolean.optional(),
});

/** Role assignments: `/v2/facts/{proj_id}/{env_id}/role_assignments`. Unassign is DELETE with the same body. */
export function assignmentRoutes({ router, services, api, base }: RouteContext): void {
  const rm = services.readModels;

  api.add({
    method: 'post',
    path: `${base}/role_assignments`,
    summary: 'Assign a role (creates the user if new)',
    tag: 'Role assignments',
    body: assignmentSchema,
  });
  router.post('/role_assignments', async (req, res) => {
    const body = parse(assignmentSchema, req.body, 'body');
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
  });

  api.add({
    method: 'get',
    path: `${base}/role_assignments`,
    summary: 'List role assignments',
    tag: 'Role assignments',
    query: assignmentListQuery,
  });
  router.get('/role_assignments', async (req, res) => {
    const query = parse(assignmentListQuery, req.query, 'query');
    const filter: Filter = { environment_id: envOf(res).id };
    for (const field of ['user', 'role', 'tenant', 'resource_instance'] as const) if (query[field]) filter[field] = query[field];
    res.json(await listPage(rm.assignments, filter, query, present));
  });

  api.add({
    method: 'delete',
    path: `${base}/role_assignments`,
    summary: 'Unassign a role (body as for assign)',
    tag: 'Role assignments',
    body: assignmentSchema,
    status: 204,
  });
  router.delete('/role_assignments', async (req, res) => {
    const body = parse(assignmentSchema, req.body, 'body');
    await executeEnvCommand(services, req, res, envOf(res).id, {
      type: 'UnassignRole',
      user: body.user,
      role: body.role,
      tenant: body.tenant ?? null,
      resourceInstance: body.resource_instance ?? null,
    });
    res.status(204).end();
  });
}
