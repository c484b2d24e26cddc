import type { Response } from 'express';
import { z } from 'zod';
import type { ReadModels, RoleDoc } from '../../shared/read-models/read-models';
import type { Filter } from '../../shared/docstore/port';
import { InvalidRequestError, NotFoundError } from '../../shared/errors';
import type { DerivationRule } from '../../shared/events';
import { newId } from '../../shared/ids';
import { envOf } from '../http/auth';
import { listPage } from '../http/pagination';
import { derivedRoleRuleSchema, resourceRoleListSchema, resourceRoleSchema, roleListSchema, roleSchema } from '../http/responses';
import { executeEnvCommand } from '../http/services';
import { boundedJson, keySchema } from '../http/validation';
import { pastPaginationSchema, readModelsAsOf } from '../time-travel/reads';
import { asOfQuery } from '../time-travel/time-travel';
import { ancestorsOf, descendantsOf } from '../../shared/domain/env/role-hierarchy';
import { route } from './route';
import type { RouteContext } from './route-context';

/** Permit's derivation conditions (`DerivedRoleBlockEdit.when`); strict: any other condition is refused, naming it. */
export const derivationConditionsSchema = z.strictObject({ no_direct_roles_on_object: z.boolean().optional() });
export const derivationRuleSchema = z.strictObject({
  role: keySchema,
  on_resource: keySchema,
  linked_by_relation: keySchema,
  /** A condition of the role's derivations (Permit keeps one per role): setting it here sets the role's. */
  when: derivationConditionsSchema.optional(),
});
const ruleDeleteSchema = derivationRuleSchema.omit({ when: true });
/** `users_with_role` absent: the derivations stay as they are (a PATCH may set only `when`). */
const grantedToSchema = z.strictObject({
  users_with_role: z.array(derivationRuleSchema).optional(),
  when: derivationConditionsSchema.optional(),
});
export const rolePermissionsSchema = z.strictObject({ permissions: z.array(z.string().min(1)) });
export const roleCreateSchema = z.object({
  key: keySchema,
  name: z.string().min(1),
  description: z.string().optional(),
  permissions: z.array(z.string().min(1)).default([]),
  attributes: boundedJson.optional(),
  /** Keys (or ids) of roles of the same scope whose permissions this role inherits. */
  extends: z.array(keySchema).optional(),
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
/** Top-level roles are assigned per tenant and cannot be derived, so they take no derivation condition either. */
const notDerived = grantedToSchema.extend({
  users_with_role: z.array(derivationRuleSchema).max(0, 'top-level roles cannot be derived').optional(),
  when: z.strictObject({ no_direct_roles_on_object: z.literal(false).optional() }).optional(),
});
/** POST/DELETE …/permissions of a top-level role parse the form (a DELETE of one the role lacks changes nothing, so no later check would see it). */
const topLevelRolePermissionsSchema = z.strictObject({
  permissions: z.array(z.string().regex(/^[^:]+:[^:]+$/, 'must have the form resource:action')),
});
export const topLevelRoleCreateSchema = roleCreateSchema.extend({
  permissions: topLevelPermissions.default([]),
  granted_to: notDerived.optional(),
});
export const topLevelRoleUpdateSchema = roleUpdateSchema.extend({
  permissions: topLevelPermissions.optional(),
  granted_to: notDerived.optional(),
});

const toRules = (rules: Array<z.infer<typeof ruleDeleteSchema>>): DerivationRule[] =>
  rules.map((r) => ({ onResource: r.on_resource, role: r.role, relation: r.linked_by_relation }));

/**
 * The condition a body sets, if any: `granted_to.when` or the rules' own
 * `when` (Permit keeps one condition per role, so rules that disagree are refused).
 */
function conditionOf(grantedTo: z.infer<typeof grantedToSchema> | undefined): boolean | undefined {
  if (!grantedTo) return undefined;
  const stated = [grantedTo.when, ...(grantedTo.users_with_role ?? []).map((r) => r.when)]
    .map((w) => w?.no_direct_roles_on_object)
    .filter((v): v is boolean => v !== undefined);
  if (new Set(stated).size > 1)
    throw new InvalidRequestError('granted_to states no_direct_roles_on_object both true and false; a role has one condition');
  return stated[0];
}

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
          extends: body.extends,
          noDirectRolesOnObject: conditionOf(body.granted_to),
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
          grantedTo: body.granted_to?.users_with_role ? toRules(body.granted_to.users_with_role) : undefined,
          extends: body.extends,
          noDirectRolesOnObject: conditionOf(body.granted_to),
        });
        res.json(await findRole(res, resource, role.id));
      },
    );

    route(
      context,
      {
        method: 'delete',
        path: `${path}/{role_id}`,
        summary: `Delete a ${scope} role with its assignments; it leaves the derivations and \`extends\` of other roles`,
        tag,
        status: 204,
      },
      async (req, res) => {
        const resource = await resourceOf(req.params, res);
        await executeEnvCommand(services, req, res, envOf(res).id, { type: 'DeleteRole', resource, role: req.params.role_id });
        res.status(204).end();
      },
    );
  }

  implicitGrantRoutes(context, resourceOf, findRole);
  permissionAndHierarchyRoutes(context, resourceOf, findRole);
}

/** `POST`/`DELETE …/roles/{role_id}/permissions` and the role hierarchy reads, for both scopes. */
function permissionAndHierarchyRoutes(
  context: RouteContext,
  resourceOf: (params: { resource_id?: string }, res: Response, reads?: ReadModels) => Promise<string | null>,
  findRole: (res: Response, resource: string | null, ref: string, reads?: ReadModels) => Promise<RoleDoc>,
): void {
  const { services } = context;
  for (const scope of ['resource', 'top-level'] as const) {
    const path = scope === 'resource' ? '/resources/{resource_id}/roles/{role_id}' : '/roles/{role_id}';
    const tag = scope === 'resource' ? 'Resource roles' : 'Roles';
    const one = scope === 'resource' ? resourceRoleSchema : roleSchema;
    const list = scope === 'resource' ? z.array(resourceRoleSchema) : z.array(roleSchema);

    for (const [method, type, summary] of [
      ['post', 'AssignRolePermissions', `Add permissions to a ${scope} role`],
      ['delete', 'RemoveRolePermissions', `Remove permissions from a ${scope} role (one it lacks is ignored)`],
    ] as const) {
      route(
        context,
        {
          method,
          path: `${path}/permissions`,
          summary,
          tag,
          body: scope === 'resource' ? rolePermissionsSchema : topLevelRolePermissionsSchema,
          response: one,
        },
        async (req, res, input) => {
          const resource = await resourceOf(req.params, res);
          const role = await findRole(res, resource, req.params.role_id);
          const { permissions } = input.body();
          await executeEnvCommand(services, req, res, envOf(res).id, { type, resource, role: role.key, permissions });
          res.json(await findRole(res, resource, role.id));
        },
      );
    }

    for (const [method, type, summary] of [
      ['put', 'AddRoleParent', `Make a ${scope} role extend another (its parent): 400 if that closes a cycle`],
      ['delete', 'RemoveRoleParent', `Make a ${scope} role no longer extend another (one it does not extend is left as it is)`],
    ] as const) {
      route(context, { method, path: `${path}/parents/{parent_role_id}`, summary, tag, response: one }, async (req, res) => {
        const resource = await resourceOf(req.params, res);
        const role = await findRole(res, resource, req.params.role_id);
        await executeEnvCommand(services, req, res, envOf(res).id, {
          type,
          resource,
          role: role.key,
          parent: req.params.parent_role_id,
        });
        res.json(await findRole(res, resource, role.id));
      });
    }

    for (const [direction, summary] of [
      ['ancestors', `The roles a ${scope} role inherits from: those it extends, what they extend, and so on`],
      ['descendants', `The roles that inherit from a ${scope} role: those extending it, what extends them, and so on`],
    ] as const) {
      route(context, { method: 'get', path: `${path}/${direction}`, summary, tag, query: asOfQuery, response: list }, async (req, res) => {
        const reads = await readModelsAsOf(services, req, res);
        const resource = await resourceOf(req.params, res, reads);
        const role = await findRole(res, resource, req.params.role_id, reads);
        const filter: Filter = resource === null ? { environment_id: envOf(res).id } : { environment_id: envOf(res).id, resource };
        const roles = await (resource === null ? reads.roles : reads.resourceRoles).find(filter);
        const byKey = new Map(roles.map((r) => [r.key, r]));
        const extendsOf = (key: string) => byKey.get(key)?.extends ?? [];
        const keys =
          direction === 'ancestors'
            ? ancestorsOf(role.key, extendsOf)
            : descendantsOf(
                role.key,
                roles.map((r) => r.key),
                extendsOf,
              );
        res.json(keys.map((k) => byKey.get(k)!));
      });
    }
  }
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
        noDirectRolesOnObject: body.when?.no_direct_roles_on_object,
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
      body: ruleDeleteSchema,
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

  route(
    context,
    {
      method: 'put',
      path: `${path}/conditions`,
      summary: "Set the conditions of a role's derivations (no_direct_roles_on_object)",
      tag: 'Resource roles',
      body: derivationConditionsSchema,
      response: derivationConditionsSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      const resource = (await resourceOf(req.params, res))!;
      const role = await findRole(res, resource, req.params.role_id);
      if (body.no_direct_roles_on_object !== undefined) {
        await executeEnvCommand(services, req, res, envOf(res).id, {
          type: 'SetDerivationConditions',
          resource,
          role: role.key,
          noDirectRolesOnObject: body.no_direct_roles_on_object,
        });
      }
      // Permit answers the conditions as they now are.
      const now = (await findRole(res, resource, role.id)).granted_to.when;
      res.json(typeof now.no_direct_roles_on_object === 'boolean' ? { no_direct_roles_on_object: now.no_direct_roles_on_object } : {});
    },
  );
}
