import { z } from 'zod';
import type { Filter } from '../../shared/docstore/port';
import { newId } from '../../shared/ids';
import { envOf } from '../http/auth';
import { listPage } from '../http/pagination';
import { executeEnvCommand } from '../http/services';
import { tupleDetailedListSchema, tupleListSchema, tupleSchema } from '../http/responses';
import { INSTANCE_REF_PATTERN, queryBoolean } from '../http/validation';
import { detailedTuples } from '../http/detailed';
import { keysOf, matchAny, presentedPage, refsOfType, repeatable } from '../http/list-filters';
import type { ReadModels } from '../../shared/read-models/read-models';
import { pastPaginationSchema, readModelsAsOf } from '../time-travel/reads';
import { createRoute, writtenFactId } from './create-route';
import { expiresAtSchema, expiresBeforeSchema, futureEnd } from '../http/expires-at';
import { route } from './route';
import type { RouteContext } from './route-context';

/** `type:key` or an instance id; the form is checked with the instances (another form: 400), so the pattern is stated for the document. */
const instanceRef = z.string().min(1).meta({ pattern: INSTANCE_REF_PATTERN, description: '`type:key` of an instance, or its id' });
export const tupleCreateSchema = z.object({
  subject: instanceRef,
  relation: z.string().min(1),
  object: instanceRef,
  tenant: z.string().min(1).optional(),
  expires_at: expiresAtSchema.optional(),
});
export const tupleDeleteSchema = tupleCreateSchema.omit({ tenant: true, expires_at: true });
const tupleListQuery = pastPaginationSchema.extend({
  subject: repeatable.optional(),
  relation: repeatable.optional(),
  object: repeatable.optional(),
  tenant: repeatable.optional(),
  /** The resource type of the subject or the object (one value: a range of refs). */
  subject_type: z.string().min(1).optional(),
  object_type: z.string().min(1).optional(),
  expires_before: expiresBeforeSchema.optional(),
  detailed: queryBoolean.optional(),
});

function tupleFilter(env: string, query: z.infer<typeof tupleListQuery>): Filter {
  const filter: Filter = { environment_id: env };
  for (const field of ['subject', 'relation', 'object', 'tenant'] as const) matchAny(filter, field, query[field]);
  // A range never matches null (a tuple without an end), which is what "ends before" means.
  if (query.expires_before !== undefined) filter.expires_at = { $lt: query.expires_before };
  // With a subject (object) given, its type is in it: the type filter keeps only those of that type.
  if (query.subject_type) {
    if (query.subject) matchAny(filter, 'subject', only(query.subject, query.subject_type));
    else filter.subject = refsOfType(query.subject_type);
  }
  if (query.object_type) {
    if (query.object) matchAny(filter, 'object', only(query.object, query.object_type));
    else filter.object = refsOfType(query.object_type);
  }
  return filter;
}

/** The refs of one type (an empty `$in` when none is: nothing matches). */
const only = (refs: string[], type: string) => {
  const kept = refs.filter((ref) => ref.startsWith(`${type}:`));
  return kept.length > 0 ? kept : undefined;
};

/** Relationship tuples: `/v2/facts/{proj_id}/{env_id}/relationship_tuples`. Delete is DELETE with a body. */
export function tupleRoutes(context: RouteContext): void {
  const { services } = context;
  const rm = services.readModels;

  createRoute(
    context,
    {
      method: 'post',
      path: '/relationship_tuples',
      summary: 'Create a relationship tuple',
      tag: 'Relationship tuples',
      body: tupleCreateSchema,
      response: tupleSchema,
    },
    {
      command: (body) => {
        const id = newId();
        const { subject, relation, object, tenant } = body;
        const expiresAt = futureEnd(services.clock, body.expires_at, ['body', 'expires_at']);
        return {
          id,
          command: {
            type: 'CreateTuple',
            id,
            subject,
            relation,
            object,
            tenant: tenant ?? null,
            newSubjectId: newId(),
            newObjectId: newId(),
            ...(expiresAt === undefined ? {} : { expiresAt }),
            now: new Date(services.clock.now()).toISOString(),
          },
        };
      },
      answer: (id, events) => rm.tuples.get(writtenFactId(id, events)),
    },
  );

  route(
    context,
    {
      method: 'get',
      path: '/relationship_tuples',
      summary: 'List relationship tuples (detailed=true: with subject_details, relation_details, object_details, tenant_details)',
      tag: 'Relationship tuples',
      query: tupleListQuery,
      response: z.union([tupleListSchema, tupleDetailedListSchema]),
    },
    async (req, res, input) => {
      const env = envOf(res).id;
      const reads = await readModelsAsOf(services, req, res);
      const query = await tupleQueryKeys(reads, env, input.query());
      const filter = tupleFilter(env, query);
      noneIfEmpty(filter, query);
      if (!query.detailed) return void res.json(await listPage(reads.tuples, filter, query));
      res.json(await presentedPage(reads.tuples, filter, query, (docs) => detailedTuples(reads, env, docs)));
    },
  );

  route(
    context,
    {
      method: 'get',
      path: '/relationship_tuples/detailed',
      summary: 'List relationship tuples with their subject, relation, object and tenant details (as detailed=true)',
      tag: 'Relationship tuples',
      query: tupleListQuery.omit({ detailed: true }),
      response: tupleDetailedListSchema,
    },
    async (req, res, input) => {
      const env = envOf(res).id;
      const reads = await readModelsAsOf(services, req, res);
      const query = await tupleQueryKeys(reads, env, input.query());
      const filter = tupleFilter(env, query);
      noneIfEmpty(filter, query);
      res.json(await presentedPage(reads.tuples, filter, query, (docs) => detailedTuples(reads, env, docs)));
    },
  );

  route(
    context,
    {
      method: 'delete',
      path: '/relationship_tuples',
      summary: 'Delete a relationship tuple',
      tag: 'Relationship tuples',
      body: tupleDeleteSchema,
      status: 204,
    },
    async (req, res, input) => {
      const body = input.body();
      await executeEnvCommand(services, req, res, envOf(res).id, {
        type: 'DeleteTuple',
        subject: body.subject,
        relation: body.relation,
        object: body.object,
      });
      res.status(204).end();
    },
  );
}

/** A type filter that excluded every subject (object) given matches nothing. */
function noneIfEmpty(filter: Filter, query: z.infer<typeof tupleListQuery>): void {
  if (query.subject && query.subject_type && !only(query.subject, query.subject_type)) filter.subject = { $in: [] };
  if (query.object && query.object_type && !only(query.object, query.object_type)) filter.object = { $in: [] };
}

/** Subjects, objects and tenants named by id, as the tuples hold them (`type:key`, key). */
async function tupleQueryKeys<Q extends { subject?: string[]; object?: string[]; tenant?: string[] }>(
  reads: ReadModels,
  env: string,
  query: Q,
): Promise<Q> {
  return {
    ...query,
    subject: await keysOf(query.subject, (id) => reads.instances.get(id), env),
    object: await keysOf(query.object, (id) => reads.instances.get(id), env),
    tenant: await keysOf(query.tenant, (id) => reads.tenants.get(id), env),
  };
}
