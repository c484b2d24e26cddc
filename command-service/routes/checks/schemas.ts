import { z } from 'zod';
import type { ResourceRef } from '../../grant-queries/types';
import { boundedJson, MAX_PER_PAGE, queryBoolean, queryInteger, queryPage } from '../../http/validation';
import { asOfQuery, asOfSchema } from '../../time-travel/time-travel';

/**
 * Request bodies of the PDP endpoints, as Permit's SDK sends them: `user` is a
 * key or `{key, ...}`, `resource` is `"type"`, `"type:key"` or `{type, key?,
 * tenant?, ...}`. Extra fields (attributes, context, firstName…) are accepted
 * and ignored: decisions depend on roles and relationships only. Free-form JSON
 * (attributes, context) is bounded all the same (validation.ts, boundedJson).
 */
const userSchema = z
  .union([z.string().min(1), z.looseObject({ key: z.string().min(1), attributes: boundedJson.nullish() })])
  .transform((user) => (typeof user === 'string' ? user : user.key));

const resourceObject = z.looseObject({
  type: z.string().min(1),
  key: z.string().min(1).nullish(),
  tenant: z.string().min(1).nullish(),
  attributes: boundedJson.nullish(),
  context: boundedJson.nullish(),
});
export const resourceSchema = z.union([z.string().min(1), resourceObject]).transform((resource): ResourceRef => {
  if (typeof resource !== 'string') return { type: resource.type, key: resource.key ?? null, tenant: resource.tenant ?? null };
  const colon = resource.indexOf(':');
  return colon < 0
    ? { type: resource, key: null, tenant: null }
    : { type: resource.slice(0, colon), key: resource.slice(colon + 1) || null, tenant: null };
});

export const checkSchema = z.object({
  user: userSchema,
  action: z.string().min(1),
  resource: resourceSchema,
  context: boundedJson.optional(),
  /** Our extension: answer with the derivation chain (or why nothing grants it). Same as `?explain=true`. */
  explain: z.boolean().optional(),
  /** Our extension: decide as of a past log position or time (docs/audit.md, "Time travel"). Same as `?as_of=`. */
  as_of: asOfSchema.optional(),
});

/** Most checks in one `/allowed/bulk` request; a longer list is refused (422), never cut short. */
export const MAX_BULK_CHECKS = 1000;
export const bulkCheckSchema = z.array(checkSchema).max(MAX_BULK_CHECKS);

export const explainQuery = z.object({ explain: queryBoolean.optional() }).extend(asOfQuery.shape);

const keyList = z.array(z.string().min(1)).max(1000);

/** Permit's Python SDK sends `null` for a filter it was not given (the Node SDK leaves it out): both mean "no filter" (null-as-absent.ts). */
const optionalKeyList = keyList.optional();

export const userPermissionsSchema = z.object({
  user: userSchema,
  tenants: optionalKeyList,
  resources: optionalKeyList,
  resource_types: optionalKeyList,
  context: boundedJson.optional(),
  as_of: asOfSchema.optional(),
  /** `next_cursor` of the previous page. */
  cursor: z.string().optional(),
  /** Instances per page. Large by default because Permit's SDK cannot follow a cursor. */
  limit: z.number().int().min(1).max(10_000).default(1000),
});

export const authorizedUsersSchema = z.object({
  action: z.string().min(1),
  resource: resourceSchema,
  context: boundedJson.optional(),
  as_of: asOfSchema.optional(),
  cursor: z.string().optional(),
  /** Users per page. */
  limit: z.number().int().min(1).max(1000).default(100),
});

/** Permit's AuthorizationQuery, as `/allowed/all-tenants` takes it (`sdk` names the caller; it changes nothing). */
const allTenantsQuestion = z.strictObject({
  user: userSchema,
  action: z.string().min(1),
  resource: resourceSchema,
  context: boundedJson.optional(),
  sdk: z.string().optional(),
});

/**
 * The question, or the body Permit's Node SDK (2.7.6) sends by mistake: its
 * axios config, the question under `params` and the API key under
 * `headers.Authorization` (no Authorization header; auth.ts reads it there
 * for this path only).
 */
export const allTenantsSchema = z.union([
  allTenantsQuestion,
  z
    .strictObject({
      headers: z.record(z.string(), z.string().max(4096)).optional(),
      params: allTenantsQuestion,
    })
    .transform((sent) => sent.params),
]);

/** Permit PDP's UserTenantsQuery. */
export const userTenantsSchema = z.object({
  user: userSchema,
  context: boundedJson.optional(),
});

/** The PDP's `GET /local/role_assignments` query (its pages: from 1, 1..100 a page, 30 by default). */
export const localRoleAssignmentsQuery = z.object({
  user: z.string().min(1).optional(),
  role: z.string().min(1).optional(),
  tenant: z.string().min(1).optional(),
  /** A resource type: assignments on its instances. */
  resource: z.string().min(1).optional(),
  /** `type:key`. */
  resource_instance: z.string().min(1).optional(),
  page: queryPage(),
  per_page: queryInteger(1, MAX_PER_PAGE, 30),
});
