import { z } from 'zod';
import { boundedJson, given } from '../../http/validation';

/**
 * Request bodies of the AuthZEN Authorization API 1.0 endpoints
 * (https://openid.net/specs/authorization-api-1_0.html), as the Permit PDP
 * serves them. Entities: a subject `{type, id, properties?}` (a user: its key
 * is the id), a resource `{type, id, properties?}` (an instance `type:id`; the
 * tenant is `properties.tenant`, `default` as the SDKs assume when absent),
 * an action `{name, properties?}`, and the request's `context`.
 *
 * Objects are open: "receivers MUST ignore unknown fields" (the HTTPS binding's JSON serialization), so a
 * member the API does not know is accepted and ignored, here only (the rest of
 * the API refuses what it does not honour). A member it knows must have its
 * type; `null` for an optional one is the same as leaving it out (the spec asks
 * senders to omit nulls). What is wrong is a 400 (authzen-errors.ts).
 */
const properties = boundedJson.nullish();
const name = z.string().min(1);

export const subjectSchema = z.looseObject({ type: name, id: name, properties });
export const resourceSchema = z.looseObject({ type: name, id: name, properties });
export const actionSchema = z.looseObject({ name, properties });
const context = boundedJson.nullish();

/** In a search, the entity searched for names its type only (an `id` there is ignored, as the spec says). */
const typeOnly = z.looseObject({ type: name, properties });

export type Subject = z.infer<typeof subjectSchema>;
export type Resource = z.infer<typeof resourceSchema>;
export type Action = z.infer<typeof actionSchema>;

export const evaluationSchema = z.looseObject({ subject: subjectSchema, action: actionSchema, resource: resourceSchema, context });

/**
 * In `/evaluations`, an entity at the top level is a default and one in an
 * evaluation overrides it whole, but for the required members it leaves out
 * (`{"id": "r1"}` takes the default's `type`): each may be partial, and only
 * the merged evaluation must be complete (the route checks it).
 */
const partialSubject = z.looseObject({ type: name.optional(), id: name.optional(), properties });
const partialResource = partialSubject;
const partialAction = z.looseObject({ name: name.optional(), properties });
export const partialEvaluationSchema = z.looseObject({
  subject: partialSubject.nullish(),
  action: partialAction.nullish(),
  resource: partialResource.nullish(),
  context,
});
export type PartialEvaluation = z.infer<typeof partialEvaluationSchema>;

/** Most evaluations in one request (as `/allowed/bulk`). */
export const MAX_EVALUATIONS = 1000;

/** For the document: without evaluations, the request is one evaluation, complete at the top level. */
const oneEvaluationUnlessEvaluations = {
  if: { required: ['evaluations'], properties: { evaluations: { type: 'array', minItems: 1 } } },
  else: {
    required: ['subject', 'action', 'resource'],
    // `type`: `required` says nothing of a value that is not an object (null here); a null member is absent too.
    properties: {
      subject: { type: 'object', ...given('type', 'id') },
      action: { type: 'object', ...given('name') },
      resource: { type: 'object', ...given('type', 'id') },
    },
  },
};

/**
 * Defaults at the top level, overridden per evaluation ("Default values"). Without
 * `evaluations`, or with none, the request is a single evaluation.
 */
export const evaluationsSchema = partialEvaluationSchema
  .extend({
    evaluations: z.array(partialEvaluationSchema).max(MAX_EVALUATIONS).nullish(),
    options: z
      .looseObject({ evaluations_semantic: z.enum(['execute_all', 'deny_on_first_deny', 'permit_on_first_permit']).nullish() })
      .nullish(),
  })
  .meta({ allOf: [oneEvaluationUnlessEvaluations] });

/** AuthZEN paging: `token` is the previous answer's `next_token`. */
const pageSchema = z.looseObject({ token: z.string().nullish(), limit: z.number().int().min(1).max(1000).nullish(), properties }).nullish();

export const subjectSearchSchema = z.looseObject({
  subject: typeOnly,
  action: actionSchema,
  resource: resourceSchema,
  context,
  page: pageSchema,
});

/** The resource and action searches take `page` and answer everything at once (a PDP MAY page). */
export const resourceSearchSchema = z.looseObject({
  subject: subjectSchema,
  action: actionSchema,
  resource: typeOnly,
  context,
  page: pageSchema,
});

export const actionSearchSchema = z.looseObject({ subject: subjectSchema, resource: resourceSchema, context, page: pageSchema });
