import { z } from 'zod';
import type { Filter } from '../../shared/docstore/port';
import { newId } from '../../shared/ids';
import { envOf } from '../http/auth';
import { listPage } from '../http/pagination';
import { present } from '../http/present';
import { assignmentDetailedListSchema, assignmentListSchema, assignmentSchema as assignmentResponseSchema } from '../http/responses';
import { detailedAssignments } from '../http/detailed';
import { keysOf, matchAny, presentedPage, refsOfType, repeatable, searchedPage, shaped } from '../http/list-filters';
import type { AssignmentDoc, ReadModels } from '../../shared/read-models/read-models';
import type { CreateOperation } from '../http/create-lane';
import { executeEnvCommand, type Services } from '../http/services';
import { given, INSTANCE_REF_PATTERN, queryBoolean } from '../http/validation';
import { createRoute, writtenFactId } from './create-route';
import { expiresAtSchema, expiresBeforeSchema, futureEnd } from '../http/expires-at';
import { route } from './route';
import type { RouteContext } from './route-context';
import { pastPaginationSchema, readModelsAsOf } from '../time-travel/reads';

/** The document's statement of the rule of the schemas below: a tenant or a resource instance, not null. */
const tenantOrInstance = { anyOf: [given('tenant'), given('resource_instance')] };

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
    expires_at: expiresAtSchema.optional(),
  })
  .meta(tenantOrInstance);
/**
 * Unassigning names the assignment only: an end there would be taken and ignored. (`omit` makes a
 * new schema without the meta, so the presence rule is stated again.)
 */
export const unassignmentSchema = assignmentSchema.omit({ expires_at: true }).meta(tenantOrInstance);
const assignmentListQuery = pastPaginationSchema.extend({
  user: repeatable.optional(),
  role: repeatable.optional(),
  tenant: repeatable.optional(),
  resource_instance: repeatable.optional(),
  /** The resource type of the instances (tenant roles have none, so they never match). */
  resource: repeatable.optional(),
  expires_before: expiresBeforeSchema.optional(),
  detailed: queryBoolean.optional(),
});
type AssignmentListQuery = z.infer<typeof assignmentListQuery>;

/**
 * The store filter of a role-assignment list query (repeated values mean any
 * of them), and what the store cannot say: several resource types, matched on
 * the instance ref's prefix.
 */
function assignmentFilter(env: string, query: AssignmentListQuery): { filter: Filter; keep?: (a: AssignmentDoc) => boolean } {
  const filter: Filter = { environment_id: env };
  for (const field of ['user', 'role', 'tenant'] as const) matchAny(filter, field, query[field]);
  // A range never matches null (an assignment without an end), which is what "ends before" means.
  if (query.expires_before !== undefined) filter.expires_at = { $lt: query.expires_before };
  const types = query.resource;
  if (!types) {
    matchAny(filter, 'resource_instance', query.resource_instance);
    return { filter };
  }
  const ofTypes = (ref: string | null) => ref !== null && types.some((type) => ref.startsWith(`${type}:`));
  if (query.resource_instance) {
    const refs = query.resource_instance.filter(ofTypes);
    filter.resource_instance = { $in: refs };
    return { filter };
  }
  if (types.length === 1) {
    filter.resource_instance = refsOfType(types[0]!);
    return { filter };
  }
  return { filter, keep: (a) => ofTypes(a.resource_instance) };
}

/** A page of role assignments, as RoleAssignmentRead or (detailed) RoleAssignmentDetailedRead. */
async function assignmentPage(reads: ReadModels, env: string, asked: AssignmentListQuery, detailed: boolean) {
  const query = {
    ...asked,
    user: await keysOf(asked.user, (id) => reads.users.get(id), env),
    tenant: await keysOf(asked.tenant, (id) => reads.tenants.get(id), env),
    resource_instance: await keysOf(asked.resource_instance, (id) => reads.instances.get(id), env),
  };
  const { filter, keep } = assignmentFilter(env, query);
  if (keep === undefined && !detailed) return listPage(reads.assignments, filter, query, present);
  if (keep === undefined) return presentedPage(reads.assignments, filter, query, (docs) => detailedAssignments(reads, env, docs));
  const paged = await searchedPage(reads.assignments, filter, query, { text: undefined, fields: [], keep });
  const data: object[] = detailed ? await detailedAssignments(reads, env, paged.data) : paged.data.map(present);
  return shaped({ ...paged, data }, query);
}

type AssignmentAsked = {
  user: string;
  role: string;
  tenant?: string | null;
  resource_instance?: string | null;
  expires_at?: string | null;
};

/**
 * Assigning a role, answered with the assignment as stored: `POST /role_assignments`, and
 * `POST /users/{user_id}/roles` (for a user that must exist already).
 */
export function assignment(services: Services, userMustExist: boolean): CreateOperation<AssignmentAsked> {
  return {
    command: (asked) => {
      const id = newId();
      const { user, role, tenant, resource_instance } = asked;
      const expiresAt = futureEnd(services.clock, asked.expires_at, ['body', 'expires_at']);
      return {
        id,
        command: {
          type: 'AssignRole',
          id,
          newUserId: newId(),
          userMustExist,
          newInstanceId: newId(),
          user,
          role,
          tenant: tenant ?? null,
          resourceInstance: resource_instance ?? null,
          ...(expiresAt === undefined ? {} : { expiresAt }),
          now: new Date(services.clock.now()).toISOString(),
        },
      };
    },
    // Written again with an end, the assignment keeps its id: the event says which it is.
    answer: async (id, events) => present((await services.readModels.assignments.get(writtenFactId(id, events)))!),
  };
}

/** Role assignments: `/v2/facts/{proj_id}/{env_id}/role_assignments`. Unassign is DELETE with the same body. */
export function assignmentRoutes(context: RouteContext): void {
  const { services } = context;

  createRoute(
    context,
    {
      method: 'post',
      path: '/role_assignments',
      summary: 'Assign a role (creates the user if new)',
      tag: 'Role assignments',
      body: assignmentSchema,
      response: assignmentResponseSchema,
    },
    assignment(services, false),
  );

  route(
    context,
    {
      method: 'get',
      path: '/role_assignments',
      summary: 'List role assignments (detailed=true: with their objects embedded)',
      tag: 'Role assignments',
      query: assignmentListQuery,
      response: z.union([assignmentListSchema, assignmentDetailedListSchema]),
    },
    async (req, res, input) => {
      const query = input.query();
      const reads = await readModelsAsOf(services, req, res);
      const env = envOf(res).id;
      res.json(await assignmentPage(reads, env, query, query.detailed ?? false));
    },
  );

  route(
    context,
    {
      method: 'get',
      path: '/role_assignments/detailed',
      summary: 'List role assignments with their user, role, tenant and instance embedded (as detailed=true)',
      tag: 'Role assignments',
      query: assignmentListQuery.omit({ detailed: true }),
      response: assignmentDetailedListSchema,
    },
    async (req, res, input) => {
      const query = input.query();
      const reads = await readModelsAsOf(services, req, res);
      const env = envOf(res).id;
      res.json(await assignmentPage(reads, env, query, true));
    },
  );

  route(
    context,
    {
      method: 'delete',
      path: '/role_assignments',
      summary: 'Unassign a role (body as for assign, without expires_at)',
      tag: 'Role assignments',
      body: unassignmentSchema,
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
