import { z } from 'zod';
import { NotFoundError } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { envOf } from '../http/auth';
import { listPage } from '../http/pagination';
import { executeEnvCommand } from '../http/services';
import { tenantListSchema, tenantSchema, userPageSchema, userSchema } from '../http/responses';
import { matchAny, matchMany, repeatable, searchedPage, shaped } from '../http/list-filters';
import type { Filter } from '../../shared/docstore/port';
import type { ReadModels, UserDoc } from '../../shared/read-models/read-models';
import { inlineAssignments, userCreateSchema } from './users';
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
const tenantUpdateSchema = z.object({
  name: z.string().min(1).optional(),
  description: z.string().optional(),
  attributes: boundedJson.optional(),
});
const tenantListQuery = pastPaginationSchema.extend({ search: z.string().min(1).optional() });
const userListQuery = pastPaginationSchema.extend({ search: z.string().min(1).optional(), role: repeatable.optional() });
/** Permit's `search` on users and tenants: a case-insensitive substring of these fields. */
const USER_SEARCH_FIELDS = ['key', 'email', 'first_name', 'last_name'] as const;
const TENANT_SEARCH_FIELDS = ['key', 'name'] as const;

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
    {
      method: 'get',
      path: '/tenants',
      summary: 'List tenants (search: in key or name)',
      tag: 'Tenants',
      query: tenantListQuery,
      response: tenantListSchema,
    },
    async (req, res, input) => {
      const query = input.query();
      const reads = await readModelsAsOf(services, req, res);
      const filter = { environment_id: envOf(res).id };
      if (query.search === undefined) return void res.json(await listPage(reads.tenants, filter, query));
      res.json(shaped(await searchedPage(reads.tenants, filter, query, { text: query.search, fields: TENANT_SEARCH_FIELDS }), query));
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
      method: 'patch',
      path: '/tenants/{tenant_id}',
      summary: 'Update a tenant (the fields given)',
      tag: 'Tenants',
      body: tenantUpdateSchema,
      response: tenantSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      await executeEnvCommand(services, req, res, envOf(res).id, {
        type: 'UpdateTenant',
        tenant: req.params.tenant_id,
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.description !== undefined ? { description: body.description } : {}),
        ...(body.attributes !== undefined ? { attributes: body.attributes } : {}),
      });
      res.json(await rm.byKeyOrId(rm.tenants, envOf(res).id, req.params.tenant_id));
    },
  );

  route(
    context,
    {
      method: 'get',
      path: '/tenants/{tenant_id}/users',
      summary: 'List the users with a role in a tenant ({data, total_count, page_count})',
      tag: 'Tenants',
      query: userListQuery,
      response: userPageSchema,
    },
    async (req, res, input) => {
      const query = input.query();
      const reads = await readModelsAsOf(services, req, res);
      const env = envOf(res).id;
      const tenant = await reads.byKeyOrId(reads.tenants, env, req.params.tenant_id);
      if (!tenant) throw new NotFoundError(`Tenant '${req.params.tenant_id}' not found`);
      const filter: Filter = { environment_id: env };
      const keep = matchMany<UserDoc>(filter, 'key', await usersWithRole(reads, env, tenant.key, query.role));
      res.json(await searchedPage(reads.users, filter, query, { text: query.search, fields: USER_SEARCH_FIELDS, keep }));
    },
  );

  route(
    context,
    {
      method: 'delete',
      path: '/tenants/{tenant_id}/users/{user_id}',
      summary: "Remove a user from a tenant: unassigns every role it holds there (the tenant's and its instances')",
      tag: 'Tenants',
      status: 204,
    },
    async (req, res) => {
      await executeEnvCommand(services, req, res, envOf(res).id, {
        type: 'RemoveTenantUser',
        tenant: req.params.tenant_id,
        user: req.params.user_id,
      });
      res.status(204).end();
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
      summary: 'Create a user, with its role_assignments (users are also created by their first role assignment)',
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
        roleAssignments: inlineAssignments(body.role_assignments),
      });
      res.json(await rm.users.get(id));
    },
  );

  route(
    context,
    {
      method: 'get',
      path: '/users',
      summary: 'List users ({data, total_count, page_count}); search: in key, email or names; role: holding any of the roles',
      tag: 'Users',
      query: userListQuery,
      response: userPageSchema,
    },
    async (req, res, input) => {
      const query = input.query();
      const reads = await readModelsAsOf(services, req, res);
      const env = envOf(res).id;
      const filter: Filter = { environment_id: env };
      const keep = query.role ? matchMany<UserDoc>(filter, 'key', await usersWithRole(reads, env, undefined, query.role)) : undefined;
      res.json(await searchedPage(reads.users, filter, query, { text: query.search, fields: USER_SEARCH_FIELDS, keep }));
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

/** The keys of the users holding any of `roles` (any role when absent), in `tenant` (any tenant when absent). */
async function usersWithRole(reads: ReadModels, env: string, tenant: string | undefined, roles: string[] | undefined): Promise<string[]> {
  const filter: Filter = { environment_id: env };
  if (tenant !== undefined) filter.tenant = tenant;
  matchAny(filter, 'role', roles);
  const assignments = await reads.assignments.find(filter, { fields: ['user'] });
  return [...new Set(assignments.map((a) => a.user))];
}
