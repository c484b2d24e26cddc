import type { Request, Response } from 'express';
import { z } from 'zod';
import type { BulkItemCommand } from '../../shared/domain/env/commands';
import { newId } from '../../shared/ids';
import { envOf } from '../http/auth';
import { executeEnvCommand } from '../http/services';
import { bulkCountSchema } from '../http/responses';
import { assignmentSchema, unassignmentSchema } from './assignments';
import { futureEnd } from '../http/expires-at';
import { instanceCreateSchema } from './instances';
import { tenantCreateSchema } from './tenants-users';
import { inlineAssignments, userCreateSchema } from './users';
import { route } from './route';
import type { RouteContext } from './route-context';
import { tupleCreateSchema, tupleDeleteSchema } from './tuples';

/** Most items in one bulk request; a longer list is refused (422), never cut short. */
export const MAX_BULK_ITEMS = 10_000;

const list = <S extends z.ZodType>(item: S) => z.array(item).max(MAX_BULK_ITEMS);
const tuplesCreateBody = z.object({ operations: list(tupleCreateSchema) });
const tuplesDeleteBody = z.object({ idents: list(tupleDeleteSchema) });
const assignmentsBody = list(assignmentSchema);
const unassignmentsBody = list(unassignmentSchema);
const instancesCreateBody = z.object({ operations: list(instanceCreateSchema) });
/** `type:key` or an instance id, as for `DELETE .../resource_instances/{instance_id}`. */
const instancesDeleteBody = z.object({ idents: list(z.string().min(1)) });
const usersBody = z.object({ operations: list(userCreateSchema.strict()) });
const tenantsCreateBody = z.object({ operations: list(tenantCreateSchema.strict()) });
/** Keys or ids. */
const identsBody = z.object({ idents: list(z.string().min(1)) });

/**
 * Permit's bulk facts endpoints: `relationship_tuples/bulk`, `role_assignments/bulk`
 * and `bulk/resource_instances` under `/v2/facts/{proj_id}/{env_id}`.
 *
 * A bulk request is all or nothing: the items are decided in order as one
 * command (each sees what the items before it did), and their events go to the
 * log in one append. A malformed item is a 422 whose `loc` names its index; an
 * item the domain refuses refuses the request with that item's status, the
 * message starting `Item <index>:`; either way nothing is appended.
 */
export function bulkRoutes(context: RouteContext): void {
  const { services } = context;
  const run = (req: Request, res: Response, commands: BulkItemCommand[]) =>
    executeEnvCommand(services, req, res, envOf(res).id, { type: 'Bulk', commands });
  /** The instant the request's items are decided at, for their `expires_at` (which must be later). */
  const now = () => new Date(services.clock.now()).toISOString();

  /**
   * A bulk route that turns each item into one command and answers how many it applied
   * (`{ <counted>: n }`); every bulk route but `PUT /bulk/users`, which tells created from replaced.
   */
  const countingRoute = <Body extends z.ZodType>(declaration: {
    method: 'post' | 'put' | 'delete';
    path: string;
    summary: string;
    body: Body;
    counted: string;
    commands: (body: z.infer<Body>) => BulkItemCommand[];
  }) =>
    route(
      context,
      {
        method: declaration.method,
        path: declaration.path,
        summary: declaration.summary,
        tag: 'Bulk',
        body: declaration.body,
        response: bulkCountSchema(declaration.counted),
      },
      async (req, res, input) => {
        // input.body() is the body schema's output; TypeScript cannot resolve that through the generic.
        const commands = declaration.commands(input.body() as z.infer<Body>);
        await run(req, res, commands);
        res.json({ [declaration.counted]: commands.length });
      },
    );

  countingRoute({
    method: 'post',
    path: '/relationship_tuples/bulk',
    summary: `Create up to ${MAX_BULK_ITEMS} relationship tuples, all or none`,
    body: tuplesCreateBody,
    counted: 'tuples_created',
    commands: (body) => {
      const at = now();
      return body.operations.map((t, index) => {
        const expiresAt = futureEnd(services.clock, t.expires_at, ['body', 'operations', index, 'expires_at']);
        return {
          type: 'CreateTuple',
          id: newId(),
          subject: t.subject,
          relation: t.relation,
          object: t.object,
          tenant: t.tenant ?? null,
          newSubjectId: newId(),
          newObjectId: newId(),
          ...(expiresAt === undefined ? {} : { expiresAt }),
          now: at,
        };
      });
    },
  });

  countingRoute({
    method: 'delete',
    path: '/relationship_tuples/bulk',
    summary: `Delete up to ${MAX_BULK_ITEMS} relationship tuples, all or none`,
    body: tuplesDeleteBody,
    counted: 'tuples_deleted',
    commands: (body) => body.idents.map((t) => ({ type: 'DeleteTuple', subject: t.subject, relation: t.relation, object: t.object })),
  });

  countingRoute({
    method: 'post',
    path: '/role_assignments/bulk',
    summary: `Assign up to ${MAX_BULK_ITEMS} roles (a bare array; creates new users), all or none`,
    body: assignmentsBody,
    counted: 'assignments_created',
    commands: (body) => {
      const at = now();
      return body.map((a, index) => {
        const expiresAt = futureEnd(services.clock, a.expires_at, ['body', index, 'expires_at']);
        return {
          type: 'AssignRole',
          id: newId(),
          newUserId: newId(),
          newInstanceId: newId(),
          user: a.user,
          role: a.role,
          tenant: a.tenant ?? null,
          resourceInstance: a.resource_instance ?? null,
          ...(expiresAt === undefined ? {} : { expiresAt }),
          now: at,
        };
      });
    },
  });

  countingRoute({
    method: 'delete',
    path: '/role_assignments/bulk',
    summary: `Unassign up to ${MAX_BULK_ITEMS} roles (a bare array), all or none`,
    body: unassignmentsBody,
    counted: 'assignments_removed',
    commands: (body) =>
      body.map((a) => ({
        type: 'UnassignRole',
        user: a.user,
        role: a.role,
        tenant: a.tenant ?? null,
        resourceInstance: a.resource_instance ?? null,
      })),
  });

  countingRoute({
    method: 'put',
    path: '/bulk/resource_instances',
    summary: `Create up to ${MAX_BULK_ITEMS} resource instances, all or none`,
    body: instancesCreateBody,
    counted: 'instances_created',
    commands: (body) =>
      body.operations.map((i) => ({
        type: 'CreateInstance',
        id: newId(),
        key: i.key,
        resource: i.resource,
        tenant: i.tenant,
        attributes: i.attributes ?? {},
      })),
  });

  countingRoute({
    method: 'delete',
    path: '/bulk/resource_instances',
    summary: `Delete up to ${MAX_BULK_ITEMS} resource instances (type:key or id) with their tuples and assignments, all or none`,
    body: instancesDeleteBody,
    counted: 'instances_deleted',
    commands: (body) => body.idents.map((instance) => ({ type: 'DeleteInstance', instance })),
  });

  const userCommand = (type: 'CreateUser' | 'ReplaceUser', u: z.infer<typeof userCreateSchema>): BulkItemCommand => ({
    type,
    id: newId(),
    key: u.key,
    email: u.email ?? null,
    firstName: u.first_name ?? null,
    lastName: u.last_name ?? null,
    attributes: u.attributes ?? {},
    roleAssignments: inlineAssignments(u.role_assignments),
  });

  countingRoute({
    method: 'post',
    path: '/bulk/users',
    summary: `Create up to ${MAX_BULK_ITEMS} users (with their role_assignments), all or none`,
    body: usersBody,
    counted: 'users_created',
    commands: (body) => body.operations.map((u) => userCommand('CreateUser', u)),
  });

  route(
    context,
    {
      method: 'put',
      path: '/bulk/users',
      summary: `Create or replace up to ${MAX_BULK_ITEMS} users (as PUT /users/{user_id}), all or none`,
      tag: 'Bulk',
      body: usersBody,
      response: z.strictObject({ users_created: z.int().min(0), users_replaced: z.int().min(0) }),
    },
    async (req, res, input) => {
      const body = input.body();
      const outcome = await run(
        req,
        res,
        body.operations.map((u) => userCommand('ReplaceUser', u)),
      );
      const created = outcome.events.filter((e) => e.type === 'UserCreated').length;
      res.json({ users_created: created, users_replaced: body.operations.length - created });
    },
  );

  countingRoute({
    method: 'delete',
    path: '/bulk/users',
    summary: `Delete up to ${MAX_BULK_ITEMS} users (keys or ids) with their role assignments, all or none`,
    body: identsBody,
    counted: 'users_deleted',
    commands: (body) => body.idents.map((user) => ({ type: 'DeleteUser', user })),
  });

  countingRoute({
    method: 'post',
    path: '/bulk/tenants',
    summary: `Create up to ${MAX_BULK_ITEMS} tenants, all or none`,
    body: tenantsCreateBody,
    counted: 'tenants_created',
    commands: (body) =>
      body.operations.map((t) => ({
        type: 'CreateTenant',
        id: newId(),
        key: t.key,
        name: t.name,
        description: t.description ?? null,
        attributes: t.attributes ?? {},
      })),
  });

  countingRoute({
    method: 'delete',
    path: '/bulk/tenants',
    summary: `Delete up to ${MAX_BULK_ITEMS} tenants (keys or ids) with their instances and assignments, all or none`,
    body: identsBody,
    counted: 'tenants_deleted',
    commands: (body) => body.idents.map((tenant) => ({ type: 'DeleteTenant', tenant })),
  });
}
