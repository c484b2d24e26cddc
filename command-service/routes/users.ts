import { z } from 'zod';
import type { InlineAssignment } from '../../shared/domain/env/commands';
import { InvalidRequestError, NotFoundError } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { envOf } from '../http/auth';
import { assignmentSchema as assignmentResponseSchema, userSchema } from '../http/responses';
import { executeEnvCommand } from '../http/services';
import { boundedJson, given, INSTANCE_REF_PATTERN } from '../http/validation';
import { assignment } from './assignments';
import { executeCreate } from './create-route';
import { route } from './route';
import type { RouteContext } from './route-context';

/** A role given with a user (`role_assignments`), or assigned through `/users/{user_id}/roles`. */
export const userRoleSchema = z
  .strictObject({
    role: z.string().min(1),
    tenant: z.string().min(1).optional(),
    resource_instance: z
      .string()
      .min(1)
      .meta({ pattern: INSTANCE_REF_PATTERN, description: '`type:key` of an instance (created in `tenant` if missing), or its id' })
      .optional(),
  })
  .meta({ anyOf: [given('tenant'), given('resource_instance')] });

const userKey = z.string().min(1).max(256);
/** `null` as absent: Permit's models declare them optional, and its Python SDK may send a null. */
const userProfile = {
  email: z.string().nullable().optional(),
  first_name: z.string().nullable().optional(),
  last_name: z.string().nullable().optional(),
  attributes: boundedJson.optional(),
  role_assignments: z.array(userRoleSchema).max(100).optional(),
};
export const userCreateSchema = z.object({ key: userKey, ...userProfile });
/** PUT names the user in its path; a `key` in the body must be the same. */
const userReplaceSchema = z.object({ key: userKey.optional(), ...userProfile });
const userUpdateSchema = z.object({
  email: z.string().nullable().optional(),
  first_name: z.string().nullable().optional(),
  last_name: z.string().nullable().optional(),
  attributes: boundedJson.optional(),
});

/** A user body's `role_assignments` as commands take them, with fresh ids. */
export function inlineAssignments(roles: z.infer<typeof userRoleSchema>[] | undefined): InlineAssignment[] {
  return (roles ?? []).map((r) => ({
    id: newId(),
    newInstanceId: newId(),
    role: r.role,
    tenant: r.tenant ?? null,
    resourceInstance: r.resource_instance ?? null,
  }));
}

/** `PUT`, `PATCH`, `DELETE /users/{user_id}` and `/users/{user_id}/roles`. */
export function userRoutes(context: RouteContext): void {
  const { services } = context;
  const rm = services.readModels;
  const assignToExistingUser = assignment(services, true);
  const userAt = async (envId: string, ref: string) => {
    const user = await rm.byKeyOrId(rm.users, envId, ref);
    if (!user) throw new NotFoundError(`User '${ref}' not found`);
    return user;
  };

  route(
    context,
    {
      method: 'put',
      path: '/users/{user_id}',
      summary: 'Create or replace a user (sync): 201 when created, 200 when replaced; role_assignments are added',
      tag: 'Users',
      body: userReplaceSchema,
      response: userSchema,
      responses: { 201: { description: 'The user was created', schema: userSchema } },
    },
    async (req, res, input) => {
      const body = input.body();
      const key = req.params.user_id;
      if (body.key !== undefined && body.key !== key) {
        // A rule between the path and the body, which no schema can state: a broken rule (400), like the others.
        throw new InvalidRequestError(`The body's key '${body.key}' is not the user key of the path ('${key}')`);
      }
      const outcome = await executeEnvCommand(services, req, res, envOf(res).id, {
        type: 'ReplaceUser',
        id: newId(),
        key,
        email: body.email ?? null,
        firstName: body.first_name ?? null,
        lastName: body.last_name ?? null,
        attributes: body.attributes ?? {},
        roleAssignments: inlineAssignments(body.role_assignments),
      });
      const created = outcome.events.some((e) => e.type === 'UserCreated' && e.data.key === key);
      res.status(created ? 201 : 200).json(await userAt(envOf(res).id, key));
    },
  );

  route(
    context,
    {
      method: 'patch',
      path: '/users/{user_id}',
      summary: 'Update a user (the fields given)',
      tag: 'Users',
      body: userUpdateSchema,
      response: userSchema,
    },
    async (req, res, input) => {
      const body = input.body();
      await executeEnvCommand(services, req, res, envOf(res).id, {
        type: 'UpdateUser',
        user: req.params.user_id,
        ...(body.email !== undefined ? { email: body.email } : {}),
        ...(body.first_name !== undefined ? { firstName: body.first_name } : {}),
        ...(body.last_name !== undefined ? { lastName: body.last_name } : {}),
        ...(body.attributes !== undefined ? { attributes: body.attributes } : {}),
      });
      res.json(await userAt(envOf(res).id, req.params.user_id));
    },
  );

  route(
    context,
    {
      method: 'delete',
      path: '/users/{user_id}',
      summary: 'Delete a user with its role assignments',
      tag: 'Users',
      status: 204,
    },
    async (req, res) => {
      await executeEnvCommand(services, req, res, envOf(res).id, { type: 'DeleteUser', user: req.params.user_id });
      res.status(204).end();
    },
  );

  route(
    context,
    {
      method: 'post',
      path: '/users/{user_id}/roles',
      summary: 'Assign a role to an existing user',
      tag: 'Users',
      body: userRoleSchema,
      response: assignmentResponseSchema,
    },
    (req, res, input) => executeCreate(services, req, res, assignToExistingUser, { ...input.body(), user: req.params.user_id }),
  );

  route(
    context,
    {
      method: 'delete',
      path: '/users/{user_id}/roles',
      summary: 'Unassign a role from a user',
      tag: 'Users',
      body: userRoleSchema,
      status: 204,
    },
    async (req, res, input) => {
      const body = input.body();
      const user = await userAt(envOf(res).id, req.params.user_id);
      await executeEnvCommand(services, req, res, envOf(res).id, {
        type: 'UnassignRole',
        user: user.key,
        role: body.role,
        tenant: body.tenant ?? null,
        resourceInstance: body.resource_instance ?? null,
      });
      res.status(204).end();
    },
  );
}
