import { z } from 'zod';
import { boundedJson } from '../../http/validation';

/**
 * Request bodies of the AuthZEN Authorization API 1.0 endpoints
 * (https://openid.net/specs/authorization-api-1_0.html), as the Permit PDP
 * serves them. Entities: a subject `{type, id, properties?}` (a user: its key
 * is the id), a resource `{type, id, properties?}` (an instance `type:id`; the
 * tenant is `properties.tenant`, `default` as the SDKs assume when absent),
 * an action `{name, properties?}`.
 */
const properties = boundedJson.optional();
export const subjectSchema = z.strictObject({ type: z.string().min(1), id: z.string().min(1), properties });
export const resourceSchema = z.strictObject({ type: z.string().min(1), id: z.string().min(1), properties });
export const actionSchema = z.strictObject({ name: z.string().min(1), properties });
/** In a search, the entity searched for names its type only. */
const typeOnly = z.strictObject({ type: z.string().min(1), properties });

export const evaluationSchema = z.strictObject({
  subject: subjectSchema,
  action: actionSchema,
  resource: resourceSchema,
  context: boundedJson.optional(),
});

const partialEvaluation = z.strictObject({
  subject: subjectSchema.optional(),
  action: actionSchema.optional(),
  resource: resourceSchema.optional(),
  context: boundedJson.optional(),
});

/** Most evaluations in one request (as `/allowed/bulk`). */
export const MAX_EVALUATIONS = 1000;

/** Each of subject, action and resource: at the top level, or in every evaluation (the document says so; the route checks it). */
const givenSomewhere = (field: 'subject' | 'action' | 'resource') => ({
  anyOf: [{ required: [field] }, { properties: { evaluations: { items: { required: [field] } } } }],
});

/** Defaults at the top level, overridden per evaluation (AuthZEN §7.1). */
export const evaluationsSchema = partialEvaluation
  .extend({
    evaluations: z.array(partialEvaluation).min(1).max(MAX_EVALUATIONS),
    options: z
      .object({ evaluations_semantic: z.enum(['execute_all', 'deny_on_first_deny', 'permit_on_first_permit']).optional() })
      .optional(),
  })
  .meta({ allOf: [givenSomewhere('subject'), givenSomewhere('action'), givenSomewhere('resource')] });

/** AuthZEN paging: `token` is the previous answer's `next_token`. */
const pageSchema = z.strictObject({ token: z.string().optional(), limit: z.number().int().min(1).max(1000).optional() }).optional();

export const subjectSearchSchema = z.strictObject({
  subject: typeOnly,
  action: actionSchema,
  resource: resourceSchema,
  context: boundedJson.optional(),
  page: pageSchema,
});

export const resourceSearchSchema = z.strictObject({
  subject: subjectSchema,
  action: actionSchema,
  resource: typeOnly,
  context: boundedJson.optional(),
});

export const actionSearchSchema = z.strictObject({
  subject: subjectSchema,
  resource: resourceSchema,
  context: boundedJson.optional(),
});
