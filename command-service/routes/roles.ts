import type { Request, Response } from 'express';
import { z } from 'zod';
import type { RoleDoc } from '../../shared/read-models/read-models';
import type { Filter } from '../../shared/docstore/port';
import { NotFoundError } from '../../shared/errors';
import type { DerivationRule } from '../../shared/events';
import { newId } from '../../shared/ids';
import { envOf } from '../http/auth';
import { listPage } from '../http/pagination';
import { executeEnvCommand } from '../http/services';
import { boundedJson, keySchema, paginationSchema, parse } from '../http/validation';
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

const toRules = (rules: Array<z.infer<typeof derivationRuleSchema>>): DerivationRule[] =>
  rules.map((r) => ({ onResource: r.on_resource, role: r.role, relation: r.linked_by_relation }));

/**
 * Resource roles (`/resources/{resource_id}/roles`), their derivations
 * (`granted_to` via PATCH, or `/implicit_grants`), and top-level roles (`/roles`).
 */
export function roleRoutes(context: RouteContext): void {
  const { router, services, api, base } = context;
  const rm = services.readModels;
  const resourcePath = `${base}/resources/{resource_id}/roles`;

  /** The resource key of the path, or null for top-level roles; 404 if the resource does not exist. */
  async function resourceOf(req: Request, res: Response): Promise<string | null> {
    if (req.params.resource_id === undefined) return null;
    const resource = await rm.byKeyOrId(rm.resources, envOf(res).id, String(req.params.resource_id));
    if (!resource) throw new NotFoundError(`Resource '${req.params.resource_id}' not found`);
    return resource.key;
  }
  async function findRole(req: Request, res: Response, resource: string | null, ref: string): Promise<RoleDoc> {
    const role =
      resource === null
        ? await rm.byKeyOrId(rm.roles, envOf(res).id, ref)
        : await rm.byKeyOrId(rm.resourceRoles, envOf(res).id, ref, { resource });
    if (!role) throw new NotFoundError(`Role '${ref}' not found ${resource === null ? '' : `on resource '${resource}'`}`.trim());
    return role;
  }

  for (const scope of ['resource', 'top-level'] as const) {
    const path = scope === 'resource' ? '/resources/:resource_id/roles' : '/roles';
    const docPath = scope === 'resource' ? resourcePath : `${base}/roles`;
    const tag = scope === 'resource' ? 'Resource roles' : 'Roles';

    api.add({ method: 'post', path: docPath, summary: `Create a ${scope} role`, tag, body: roleCreateSchema });
    router.post(path, async (req, res) => {
      const body = parse(roleCreateSchema, req.body, 'body');
      const resource = await resourceOf(req, res);
      const id = newId();
      await executeEnvCommand(services, req, res, envOf(res).id, {
        type: 'CreateRole',
        id,
        resource,
        key: body.key,
        name: body.name,
        description: body.description ?? '',
        permissions: body.permissions,
        attributes: body.attributes ?? {},
        grantedTo: toRules(body.granted_to?.users_with_role ?? []),
      });
      res.json(await findRole(req, res, resource, id));
    });

    api.add({ method: 'get', path: docPath, summary: `List ${scope} roles`, tag, query: paginationSchema });
    router.get(path, async (req, res) => {
      const resource = await resourceOf(req, res);
      const filter: Filter = resource === null ? { environment_id: envOf(res).id } : { environment_id: envOf(res).id, resource };
      res.json(await listPage(resource === null ? rm.roles : rm.resourceRoles, filter, parse(paginationSchema, req.query, 'query')));
    });

    api.add({ method: 'get', path: `${docPath}/{role_id}`, summary: `Get a ${scope} role`, tag });
    router.get(`${path}/:role_id`, async (req, res) => {
      res.json(await findRole(req, res, await resourceOf(req, res), req.params.role_id as string));
    });

    api.add({
      method: 'patch',
      path: `${docPath}/{role_id}`,
      summary: `Update a ${scope} role; granted_to replaces its derivations`,
      tag,
      body: roleUpdateSchema,
    });
    router.patch(`${path}/:role_id`, async (req, res) => {
      const body = parse(roleUpdateSchema, req.body, 'body');
      const resource = await resourceOf(req, res);
      const role = await findRole(req, res, resource, req.params.role_id as string);
      await executeEnvCommand(services, req, res, envOf(res).id, {
        type: 'UpdateRole',
        resource,
        role: role.key,
        name: body.name,
        description: body.description,
        permissions: body.permissions,
        grantedTo: body.granted_to ? toRules(body.granted_to.users_with_role) : undefined,
      });
      res.json(await findRole(req, res, resource, role.id));
    });

    api.add({ method: 'delete', path: `${docPath}/{role_id}`, summary: `Delete a ${scope} role with its assignments`, tag, status: 204 });
    router.delete(`${path}/:role_id`, async (req, res) => {
      const resource = await resourceOf(req, res);
      await executeEnvCommand(services, req, res, envOf(res).id, { type: 'DeleteRole', resource, role: req.params.role_id as string });
      res.status(204).end();
    });
  }

  implicitGrantRoutes(context, resourceOf, findRole);
}

function implicitGrantRoutes(
  { router, services, api, base }: RouteContext,
  resourceOf: (req: Request, res: Response) => Promise<string | null>,
  findRole: (req: Request, res: Response, resource: string | null, ref: string) => Promise<RoleDoc>,
): void {
  const path = '/resources/:resource_id/roles/:role_id/implicit_grants';
  const docPath = `${base}/resources/{resource_id}/roles/{role_id}/implicit_grants`;
  api.add({
    method: 'post',
    path: docPath,
    summary: 'Add a role derivation (implicit grant)',
    tag: 'Resource roles',
    body: derivationRuleSchema,
  });
  router.post(path, async (req, res) => {
    const body = parse(derivationRuleSchema, req.body, 'body');
    const resource = (await resourceOf(req, res))!;
    const [rule] = toRules([body]);
    await executeEnvCommand(services, req, res, envOf(res).id, {
      type: 'AddImplicitGrant',
      resource,
      role: req.params.role_id as string,
      rule: rule!,
    });
    const role = await findRole(req, res, resource, req.params.role_id as string);
    const stored = role.granted_to.users_with_role.find(
      (r) => r.role === body.role && r.on_resource === body.on_resource && r.linked_by_relation === body.linked_by_relation,
    );
    res.json(stored);
  });

  api.add({
    method: 'delete',
    path: docPath,
    summary: 'Remove a role derivation (implicit grant)',
    tag: 'Resource roles',
    body: derivationRuleSchema,
    status: 204,
  });
  router.delete(path, async (req, res) => {
    const body = parse(derivationRuleSchema, req.body, 'body');
    const resource = (await resourceOf(req, res))!;
    const [rule] = toRules([body]);
    await executeEnvCommand(services, req, res, envOf(res).id, {
      type: 'RemoveImplicitGrant',
      resource,
      role: req.params.role_id as string,
      rule: rule!,
    });
    res.status(204).end();
  });
}
