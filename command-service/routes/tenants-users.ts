import { z } from 'zod';
import { NotFoundError } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { envOf } from '../http/auth';
import { listPage } from '../http/pagination';
import { executeEnvCommand } from '../http/services';
import { tenantListSchema, tenantSchema, userPageSchema, userSchema } from '../http/responses';
import { boundedJson, keySchema } from '../http/validation';
import { pastPaginationSchema, readModelsAsOf } from '../time-travel/reads';
import { asOfQuery } from '../time-travel/time-travel';
import { route } from './route';
import type { RouteContext } from './route-context';

export const tenantCreateSchema = z.object({
  key: keySchema,
  name: z.string().min(1),
  description: z.string().optional(),
  attributes: boundedJson.optional(),
});
export const userCreateSchema = z.object({
  key: z.string().min(1).max(256),
  email: z.string().optional(),
  first_name: z.string().optional(),
  last_name: z.string().optional(),
  attributes: boundedJson.optional(),
});

/** Tenants and users: `/v2/facts/{proj_id}/{env_id}/tenants` and `/users`. */
export function tenantAndUserRoutes(context: RouteContext): void {
  const { services } = context;
  const rm = services.readModels;

  route(
    context,
    { method: 'post', path: '/tenants', summary: 'Create a tenant', tag: 'Tenants', body: tenantCreateSchema, response: tenantSchema },
    async (req, res, input) => {
      const body = input.body();
      const id = newId();
      await executeEnvCommand(services, req, res, envOf(res).id, {
        type: 'CreateTenant',
        id,
        key: body.key,
        name: body.name,
        description: body.description ?? null,
        attributes: body.attributes ?? {},
      });
      res.json(await rm.tenants.get(id));
    },
  );

  route(
    context,
    { method: 'get', path: '/tenants', summary: 'List tenants', tag: 'Tenants', query: pastPaginationSchema, response: tenantListSchema },
    async (req, res, input) => {
      const reads = await readModelsAsOf(services, req, res);
      res.json(await listPage(reads.tenants, { environment_id: envOf(res).id }, input.query()));
    },
  );

  route(
    context,
    { method: 'get', path: '/tenants/{tenant_id}', summary: 'Get a tenant', tag: 'Tenants', query: asOfQuery, response: tenantSchema },
    async (req, res) => {
      const reads = await readModelsAsOf(services, req, res);
      const tenant = await reads.byKeyOrId(reads.tenants, envOf(res).id, req.params.tenant_id);
      if (!tenant) throw new NotFoundError(`Tenant '${req.params.tenant_id}' not found`);
      res.json(tenant);
    },
  );

  route(
    context,
    {
      method: 'delete',
      path: '/tenants/{tenant_id}',
      summary: 'Delete a tenant with its instances and assignments',
      tag: 'Tenants',
      status: 204,
    },
    async (req, res) => {
      await executeEnvCommand(services, req, res, envOf(res).id, { type: 'DeleteTenant', tenant: req.params.tenant_id });
      res.status(204).end();
    },
  );

  route(
    context,
    {
      method: 'post',
      path: '/users',
      summary: 'Create a user (users are also created by their first role assignment)',
      tag: 'Users',
      body: userCreateSchema,
      response: userSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      const id = newId();
      await executeEnvCommand(services, req, res, envOf(res).id, {
        type: 'CreateUser',
        id,
        key: body.key,
        email: body.email ?? null,
        firstName: body.first_name ?? null,
        lastName: body.last_name ?? null,
        attributes: body.attributes ?? {},
      });
      res.json(await rm.users.get(id));
    },
  );

  route(
    context,
    {
      method: 'get',
      path: '/users',
      summary: 'List users ({data, total_count, page_count})',
      tag: 'Users',
      query: pastPaginationSchema,
      response: userPageSchema,
    },
    async (req, res, input) => {
      const page = { ...input.query(), include_total_count: true };
      const reads = await readModelsAsOf(services, req, res);
      res.json(await listPage(reads.users, { environment_id: envOf(res).id }, page));
    },
  );

  route(
    context,
    { method: 'get', path: '/users/{user_id}', summary: 'Get a user', tag: 'Users', query: asOfQuery, response: userSchema },
    async (req, res) => {
      const reads = await readModelsAsOf(services, req, res);
      const user = await reads.byKeyOrId(reads.users, envOf(res).id, req.params.user_id);
      if (!user) throw new NotFoundError(`User '${req.params.user_id}' not found`);
      res.json(user);
    },
  );
}
