import { z } from 'zod';
import type { AssertionDefinition } from '../../shared/events';
import { boundedJson } from '../http/validation';
import { asOfSchema } from '../time-travel/time-travel';

/**
 * Saved assertions in the API's vocabulary (docs/assertions.md): the check, as
 * `POST /allowed` takes it, and the answer expected. What is stored is the
 * normalised form (AssertionDefinition); what is answered and exported is
 * `assertionSchema`, which an import and a create take back unchanged.
 */

const name = z.string().min(1).max(200);
const description = z.string().max(2000);
const ref = z.string().min(1).max(512);

/** A key, or `{key, attributes?}` as a check sends it. */
const userInput = z.union([ref, z.strictObject({ key: ref, attributes: boundedJson.optional() })]);
/** `type`, `type:key`, or `{type, key?, tenant?, attributes?}` as a check sends it. */
const resourceInput = z.union([
  ref,
  z.strictObject({ type: ref, key: ref.optional(), tenant: ref.optional(), attributes: boundedJson.optional() }),
]);
const expected = z.enum(['allow', 'deny']).describe('The answer the check is expected to get');

export const assertionCreateSchema = z.object({
  name: name.optional(),
  description: description.optional(),
  user: userInput,
  action: ref,
  resource: resourceInput,
  context: boundedJson.optional(),
  expected,
});
export type AssertionInput = z.infer<typeof assertionCreateSchema>;

/** A change: the fields given replace the stored ones (`name`/`description` null clears them). */
export const assertionUpdateSchema = z.object({
  name: name.nullable().optional(),
  description: description.nullable().optional(),
  user: userInput.optional(),
  action: ref.optional(),
  resource: resourceInput.optional(),
  context: boundedJson.nullable().optional(),
  expected: expected.optional(),
});

const id = z.uuid();
const attributes = z.record(z.string(), z.unknown()).nullable();

export const assertionSchema = z
  .strictObject({
    id,
    name: z.string().nullable(),
    description: z.string().nullable(),
    user: z.strictObject({ key: z.string(), attributes }),
    action: z.string(),
    resource: z.strictObject({ type: z.string(), key: z.string().nullable(), tenant: z.string().nullable(), attributes }),
    context: attributes,
    expected: z.enum(['allow', 'deny']),
  })
  .meta({ id: 'Assertion' });
export type AssertionAnswer = z.infer<typeof assertionSchema>;

/** The file a team keeps in git: `GET …/assertions/export` answers it, `PUT …/assertions/import` takes it. */
export const ASSERTIONS_FILE_VERSION = 1;
export const assertionsFileSchema = z
  .strictObject({
    version: z.literal(ASSERTIONS_FILE_VERSION).describe('The file format (1)'),
    assertions: z
      .array(assertionCreateSchema.extend({ id: id.optional() }).strict())
      .max(10_000)
      .describe('An `id` keeps (or, merged, updates) that assertion; without one a new assertion is made'),
  })
  .meta({ id: 'AssertionsFile' });
export const assertionsFileAnswerSchema = z
  .strictObject({ version: z.literal(ASSERTIONS_FILE_VERSION), assertions: z.array(assertionSchema) })
  .meta({ id: 'AssertionsExport' });

export const importQuery = z.object({
  mode: z.enum(['replace', 'merge']).default('replace').describe('replace (default): the set becomes the file; merge: nothing is deleted'),
});
export const importAnswerSchema = z
  .strictObject({
    created: z.number().int().min(0),
    updated: z.number().int().min(0),
    deleted: z.number().int().min(0),
    unchanged: z.number().int().min(0),
    assertions: z.array(assertionSchema),
  })
  .meta({ id: 'AssertionsImport' });

/** Optional, as a whole: no body runs every assertion now. */
export const runBodySchema = z
  .object({
    as_of: asOfSchema.optional().describe('Run as of this log position or time (docs/audit.md, "Time travel")'),
    ids: z.array(id).min(1).max(10_000).optional().describe('Run only these assertions (all by default)'),
  })
  .optional();
export const runQuery = z.object({
  fail_on_mismatch: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional()
    .describe(
      'true: a run with a failing assertion answers 409 in the error shape (reason ASSERTIONS_FAILED, the report in `additional_info.report`), so `curl --fail` fails a CI job',
    ),
});

export const assertionResultSchema = z
  .strictObject({
    assertion: assertionSchema,
    expected: z.enum(['allow', 'deny']),
    actual: z.enum(['allow', 'deny']),
    passed: z.boolean(),
  })
  .meta({ id: 'AssertionResult' });
export const runReportSchema = z
  .strictObject({
    passed: z.boolean().describe('Every assertion got the answer it expects (true for none)'),
    position: z.number().int().min(0).describe('The log position the checks were decided at'),
    total: z.number().int().min(0),
    failed: z.number().int().min(0),
    results: z.array(assertionResultSchema),
  })
  .meta({ id: 'AssertionsRun' });
export type RunReport = z.infer<typeof runReportSchema>;

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** The stored definition of an assertion given as input (`id` chosen by the caller). */
export function definitionOf(id: string, input: AssertionInput): AssertionDefinition {
  const user = typeof input.user === 'string' ? { key: input.user } : input.user;
  let resource: AssertionDefinition['resource'];
  if (typeof input.resource === 'string') {
    const colon = input.resource.indexOf(':');
    resource =
      colon < 0
        ? { type: input.resource, key: null, tenant: null, attributes: null }
        : { type: input.resource.slice(0, colon), key: input.resource.slice(colon + 1) || null, tenant: null, attributes: null };
  } else {
    const r = input.resource;
    resource = { type: r.type, key: r.key ?? null, tenant: r.tenant ?? null, attributes: r.attributes ?? null };
  }
  return {
    id,
    name: input.name ?? null,
    description: input.description ?? null,
    user: user.key,
    userAttributes: user.attributes ?? null,
    action: input.action,
    resource,
    context: input.context ?? null,
    expected: input.expected,
  };
}

/** The definition after a change (assertionUpdateSchema) of the stored one. */
export function updatedDefinition(stored: AssertionDefinition, change: z.infer<typeof assertionUpdateSchema>): AssertionDefinition {
  const asInput = inputOf(stored);
  const merged: AssertionInput = {
    user: change.user ?? asInput.user,
    action: change.action ?? asInput.action,
    resource: change.resource ?? asInput.resource,
    expected: change.expected ?? asInput.expected,
  };
  const nameAfter = change.name === undefined ? stored.name : change.name;
  const descriptionAfter = change.description === undefined ? stored.description : change.description;
  const contextAfter = change.context === undefined ? stored.context : change.context;
  if (nameAfter !== null) merged.name = nameAfter;
  if (descriptionAfter !== null) merged.description = descriptionAfter;
  if (contextAfter !== null) merged.context = contextAfter;
  return definitionOf(stored.id, merged);
}

function inputOf(d: AssertionDefinition): AssertionInput {
  return {
    user: d.userAttributes === null ? d.user : { key: d.user, attributes: d.userAttributes },
    action: d.action,
    resource: {
      type: d.resource.type,
      ...(d.resource.key !== null ? { key: d.resource.key } : {}),
      ...(d.resource.tenant !== null ? { tenant: d.resource.tenant } : {}),
      ...(d.resource.attributes !== null ? { attributes: d.resource.attributes } : {}),
    },
    expected: d.expected,
  };
}

/** The API's form of a stored assertion (also what the audit log shows of `AssertionSaved`). */
export function presentAssertion(d: AssertionDefinition): AssertionAnswer {
  return {
    id: d.id,
    name: str(d.name),
    description: str(d.description),
    user: { key: d.user, attributes: d.userAttributes },
    action: d.action,
    resource: { ...d.resource },
    context: d.context,
    expected: d.expected,
  };
}
