import type { GrantQueries } from '../../grant-queries/grant-queries';
import { authOf, keyEnvironment } from '../../http/auth';
import { allTenantsAnswerSchema, roleAssignmentsLocalSchema, userTenantsAnswerSchema } from '../../http/responses';
import type { Filter } from '../../../shared/docstore/port';
import type { ReadModels, TenantDoc } from '../../../shared/read-models/read-models';
import { route } from '../route';
import type { RouteContext } from '../route-context';
import { abacInputsOf } from './abac-inputs';
import { atOnePosition } from './positions';
import { allTenantsSchema, localRoleAssignmentsQuery, userTenantsSchema } from './schemas';

/**
 * The PDP's tenant endpoints and its local facts endpoint:
 * - `POST /allowed/all-tenants`: the tenants in which the check is allowed,
 *   as `{allowed_tenants: [{allow, result, tenant: {key, attributes}}]}`, and
 *   the same list as `allowedTenants`, which Permit's Node SDK reads;
 * - `POST /user-tenants`: the tenants the user holds a role in, as the PDP's
 *   bare list `[{key, attributes}]`;
 * - `GET /local/role_assignments`: the PDP's own role assignments, filtered
 *   and paged as the PDP does (`page` from 1, `per_page` 1..100, default 30).
 */
export function tenantRoutes(context: RouteContext, queries: GrantQueries): void {
  const { services } = context;
  const rm = services.readModels;

  route(
    context,
    {
      method: 'post',
      path: '/allowed/all-tenants',
      tag: 'Permission checks',
      body: allTenantsSchema,
      response: allTenantsAnswerSchema,
      readOnly: true,
      summary: 'The tenants in which a check is allowed (allowed_tenants, and allowedTenants as the Node SDK reads it)',
    },
    async (req, res, input) => {
      const { user, action, resource } = input.body();
      const env = await keyEnvironment(rm, authOf(res));
      const abac = abacInputsOf(req.body, ['body']);
      const allowed = await atOnePosition(services, res, async () => {
        // An existing instance lives in one tenant: only there can it be allowed.
        const instance =
          resource.key === null ? null : await rm.instances.findOne({ environment_id: env.id, resource: resource.type, key: resource.key });
        // Set rules may allow where the user holds no role: then every tenant is a candidate.
        const candidates = (await queries.setRulesGrant(env.id, `${resource.type}:${action}`))
          ? await rm.tenants.find({ environment_id: env.id }, { sortBy: 'key' })
          : await tenantsOfUser(rm, env.id, user);
        const out = [];
        for (const tenant of candidates) {
          if (instance && instance.tenant !== tenant.key) continue;
          const question = { user, action, resource: { ...resource, tenant: tenant.key } };
          const { allow } = await queries.check(env.id, abac ? { ...question, abac } : question);
          if (allow) out.push({ allow: true, result: true, tenant: { key: tenant.key, attributes: tenant.attributes } });
        }
        return out;
      });
      res.json({ allowed_tenants: allowed, allowedTenants: allowed });
    },
  );

  route(
    context,
    {
      method: 'post',
      path: '/user-tenants',
      tag: 'Permission checks',
      body: userTenantsSchema,
      response: userTenantsAnswerSchema,
      readOnly: true,
      summary: 'The tenants a user holds a role in (on the tenant or on an instance in it), in key order',
    },
    async (_req, res, input) => {
      const { user } = input.body();
      const env = await keyEnvironment(rm, authOf(res));
      const tenants = await atOnePosition(services, res, () => tenantsOfUser(rm, env.id, user));
      res.json(tenants.map((t) => ({ key: t.key, attributes: t.attributes })));
    },
  );

  route(
    context,
    {
      method: 'get',
      path: '/local/role_assignments',
      tag: 'Permission checks',
      query: localRoleAssignmentsQuery,
      response: roleAssignmentsLocalSchema,
      summary: "The PDP's role assignments (filters user, role, tenant, resource type, resource_instance; page, per_page)",
    },
    async (_req, res, input) => {
      const { user, role, tenant, resource, resource_instance, page, per_page } = input.query();
      const env = await keyEnvironment(rm, authOf(res));
      const filter: Filter = { environment_id: env.id };
      if (user !== undefined) filter.user = user;
      if (role !== undefined) filter.role = role;
      if (tenant !== undefined) filter.tenant = tenant;
      if (resource_instance !== undefined) filter.resource_instance = resource_instance;
      // `type:` up to `type;` (';' follows ':'): every instance of the type.
      else if (resource !== undefined) filter.resource_instance = { $gte: `${resource}:`, $lt: `${resource};` };
      const found = await atOnePosition(services, res, () =>
        rm.assignments.find(filter, { sortBy: 'id', skip: (page - 1) * per_page, limit: per_page }),
      );
      res.json(found.map((a) => ({ user: a.user, role: a.role, tenant: a.tenant, resource_instance: a.resource_instance })));
    },
  );
}

/** The tenants the user holds any role in (tenant-level or on an instance there), in key order. */
async function tenantsOfUser(rm: ReadModels, environmentId: string, user: string): Promise<TenantDoc[]> {
  const assignments = await rm.assignments.find({ environment_id: environmentId, user }, { fields: ['tenant'] });
  const keys = [...new Set(assignments.map((a) => a.tenant))].sort();
  if (keys.length === 0) return [];
  const tenants = await rm.tenants.find({ environment_id: environmentId, key: { $in: keys } });
  return tenants.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
