import type { Response } from 'express';
import { z } from 'zod';
import type { ReadModels, RoleDoc } from '../../shared/read-models/read-models';
import type { Filter } from '../../shared/docstore/port';
import { NotFoundError } from '../../shared/errors';
import type { DerivationRule } from '../../shared/events';
import { newId } from '../../shared/ids';
import { envOf } from '../http/auth';
import { listPage } from '../http/pagination';
import { derivedRoleRuleSchema, resourceRoleListSchema, resourceRoleSchema, roleListSchema, roleSchema } from '../http/responses';
import { executeEnvCommand } from '../http/services';
import { boundedJson, keySchema } from '../http/validation';
import { pastPaginationSchema, readModelsAsOf } from '../time-travel/reads';
import { asOfQuery } from '../time-travel/time-travel';
import { route } from './route';
import type { RouteContext } from './route-context';

export const derivationRuleSchema = z.object({
  role: keySchema,
  on_resource: keySchema,
  linked_by_relation: keySchema,
  when: z.object({ no_direct_roles_on_object: z.boolean().optional() }).optional(),
});
const grantedToSchema = z.object({
  users_with_role: z.array(derivationRuleSchema).default([]),
  when: boundedJson.optional(),
});
export const roleCreateSchema = z.object({
  key: keySchema,
  name: z.string().min(1),
  description: z.string().optional(),
  permissions: z.array(z.string().min(1)).default([]),
  attributes: boundedJson.optional(),
  extends: z.array(z.string()).optional(),
  granted_to: grantedToSchema.optional(),
});
export const roleUpdateSchema = roleCreateSchema
  .omit({ key: true })
  .partial()
  .extend({ permissions: z.array(z.string().min(1)).optional() });

/**
 * A top-level role's permissions are `resource:action`. The form is checked
 * with the resource types (another form is a 400, as it always was), so the
 * pattern is stated for the document here rather than parsed.
 */
const topLevelPermissions = z.array(
  z.string().min(1).meta({ pattern: '^[^:]+:[^:]+$', description: '`resource:action`; another form is refused with 400' }),
);
/** Top-level roles are assigned per tenant and cannot be derived. */
const notDerived = grantedToSchema.extend({
  users_with_role: z.array(derivationRuleSchema).max(0, 'top-level roles cannot be derived').default([]),
});
export const topLevelRoleCreateSchema = roleCreateSchema.extend({
  permissions: topLevelPermissions.default([]),
  granted_to: notDerived.optional(),
});
export const topLevelRoleUpdateSchema = roleUpdateSchema.extend({
  permissions: topLevelPermissions.optional(),
  granted_to: notDerived.optional(),
});

const toRules = (rules: Array<z.infer<typeof derivationRuleSchema>>): DerivationRule[] =>
  rules.map((r) => ({ onResource: r.on_resource, role: r.role, relation: r.linked_by_relation }));

/**
 * Resource roles (`/resources/{resource_id}/roles`), their derivations
 * (`granted_to` via PATCH, or `/implicit_grants`), and top-level roles (`/roles`).
 */
export function roleRoutes(context: RouteContext): void {
  const { services } = context;
  const rm = services.readModels;

  /** The resource key of the path, or null for top-level roles (no `resource_id`); 404 if the resource does not exist. */
  async function resourceOf(params: { resource_id?: string }, res: Response, reads: ReadModels = rm): Promise<string | null> {
    if (params.resource_id === undefined) return null;
    const resource = await reads.byKeyOrId(reads.resources, envOf(res).id, params.resource_id);
    if (!resource) throw new NotFoundError(`Resource '${params.resource_id}' not found`);
    return resource.key;
  }
  async function findRole(res: Response, resource: string | null, ref: string, reads: ReadModels = rm): Promise<RoleDoc> {
    const role =
      resource === null
        ? await reads.byKeyOrId(reads.roles, envOf(res).id, ref)
        : await reads.byKeyOrId(reads.resourceRoles, envOf(res).id, ref, { resource });
    if (!role) throw new NotFoundError(`Role '${ref}' not found ${resource === null ? '' : `on resource '${resource}'`}`.trim());
    return role;
  }

  for (const scope of ['resource', 'top-level'] as const) {
    // Both scopes' params are typed with `resource_id`; resourceOf tells them apart by its absence.
    const path = scope === 'resource' ? '/resources/{resource_id}/roles' : '/roles';
    const tag = scope === 'resource' ? 'Resource roles' : 'Roles';
    const schemas =
      scope === 'resource'
        ? { create: roleCreateSchema, update: roleUpdateSchema, one: resourceRoleSchema, list: resourceRoleListSchema }
        : { create: topLevelRoleCreateSchema, update: topLevelRoleUpdateSchema, one: roleSchema, list: roleListSchema };

    route(
      context,
      { method: 'post', path, summary: `Create a ${scope} role`, tag, body: schemas.create, response: schemas.one },
      async (req, res, input) => {
        const body = input.body();
        const resource = await resourceOf(req.params, res);
        const id = newId();
        await executeEnvCommand(services, req, res, envOf(res).id, {
          type: 'CreateRole',
          id,
          resource,
          key: body.key,
          name: body.name,
          description: body.description ?? null,
          permissions: body.permissions,
          attributes: body.attributes ?? {},
          grantedTo: toRules(body.granted_to?.users_with_role ?? []),
        });
        res.json(await findRole(res, resource, id));
      },
    );

    route(
      context,
      { method: 'get', path, summary: `List ${scope} roles`, tag, query: pastPaginationSchema, response: schemas.list },
      async (req, res, input) => {
        const reads = await readModelsAsOf(services, req, res);
        const resource = await resourceOf(req.params, res, reads);
        const filter: Filter = resource === null ? { environment_id: envOf(res).id } : { environment_id: envOf(res).id, resource };
        res.json(await listPage(resource === null ? reads.roles : reads.resourceRoles, filter, input.query()));
      },
    );

    route(
      context,
      { method: 'get', path: `${path}/{role_id}`, summary: `Get a ${scope} role`, tag, query: asOfQuery, response: schemas.one },
      async (req, res) => {
        const reads = await readModelsAsOf(services, req, res);
        res.json(await findRole(res, await resourceOf(req.params, res, reads), req.params.role_id, reads));
      },
    );

    route(
      context,
      {
        method: 'patch',
        path: `${path}/{role_id}`,
        summary: `Update a ${scope} role; granted_to replaces its derivations`,
        tag,
        body: schemas.update,
        response: schemas.one,
      },
      async (req, res, input) => {
        const body = input.body();
        const resource = await resourceOf(req.params, res);
        const role = await findRole(res, resource, req.params.role_id);
        await executeEnvCommand(services, req, res, envOf(res).id, {
          type: 'UpdateRole',
          resource,
          role: role.key,
          name: body.name,
          description: body.description,
          permissions: body.permissions,
          grantedTo: body.granted_to ? toRules(body.granted_to.users_with_role) : undefined,
        });
        res.json(await findRole(res, resource, role.id));
      },
    );

    route(
      context,
      { method: 'delete', path: `${path}/{role_id}`, summary: `Delete a ${scope} role with its assignments`, tag, status: 204 },
      async (req, res) => {
        const resource = await resourceOf(req.params, res);
        await executeEnvCommand(services, req, res, envOf(res).id, { type: 'DeleteRole', resource, role: req.params.role_id });
        res.status(204).end();
      },
    );
  }

  implicitGrantRoutes(context, resourceOf, findRole);
}

function implicitGrantRoutes(
  context: RouteContext,
  resourceOf: (params: { resource_id?: string }, res: Response) => Promise<string | null>,
  findRole: (res: Response, resource: string | null, ref: string) => Promise<RoleDoc>,
): void {
  const { services } = context;
  const path = '/resources/{resource_id}/roles/{role_id}/implicit_grants';

  route(
    context,
    {
      method: 'post',
      path,
      summary: 'Add a role derivation (implicit grant)',
      tag: 'Resource roles',
      body: derivationRuleSchema,
      response: derivedRoleRuleSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      const resource = (await resourceOf(req.params, res))!;
      const [rule] = toRules([body]);
      await executeEnvCommand(services, req, res, envOf(res).id, {
        type: 'AddImplicitGrant',
        resource,
        role: req.params.role_id,
        rule: rule!,
      });
      const role = await findRole(res, resource, req.params.role_id);
      const stored = role.granted_to.users_with_role.find(
        (r) => r.role === body.role && r.on_resource === body.on_resource && r.linked_by_relation === body.linked_by_relation,
      );
      res.json(stored);
    },
  );

  route(
    context,
    {
      method: 'delete',
      path,
      summary: 'Remove a role derivation (implicit grant)',
      tag: 'Resource roles',
      body: derivationRuleSchema,
      status: 204,
    },
    async (req, res, input) => {
      const body = input.body();
      const resource = (await resourceOf(req.params, res))!;
      const [rule] = toRules([body]);
      await executeEnvCommand(services, req, res, envOf(res).id, {
        type: 'RemoveImplicitGrant',
        resource,
        role: req.params.role_id,
        rule: rule!,
      });
      res.status(204).end();
    },
  );
}
