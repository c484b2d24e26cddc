import { z } from 'zod';
import { ValidationError } from '../../shared/errors';

/** Object keys: letters, digits, '-' and '_' (Permit's rule). */
export const keySchema = z
  .string()
  .regex(/^[A-Za-z0-9\-_]+$/, 'must match ^[A-Za-z0-9\\-_]+$')
  .max(256);

/**
 * Parses a request part with zod, or throws a ValidationError rendered as
 * Permit's 422 `{detail: [{loc, msg, type}]}`. Routes parse once and pass the
 * parsed value on.
 */
export function parse<S extends z.ZodType>(schema: S, value: unknown, location: 'body' | 'query' | 'path'): z.infer<S> {
  const result = schema.safeParse(value ?? (location === 'body' ? undefined : {}));
  if (result.success) return result.data;
  throw new ValidationError(
    result.error.issues.map((issue) => ({
      loc: [location, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))],
      msg: issue.message,
      type: issue.code,
    })),
  );
}

/** Query booleans arrive as strings. */
export const queryBoolean = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);

export const paginationSchema = z.object({
  page: z.coerce.number().int().min(1).default(1),
  per_page: z.coerce.number().int().min(1).max(100).default(100),
  include_total_count: queryBoolean.optional(),
});
export type Pagination = z.infer<typeof paginationSchema>;

/** Deepest nesting of a free-form JSON field (attributes, context): each object or array is a level. */
export const MAX_JSON_DEPTH = 32;
/** Largest free-form JSON field, in UTF-8 bytes of its JSON. */
export const MAX_JSON_FIELD_BYTES = 64 * 1024;

/**
 * Nesting depth of a JSON value (a scalar: 0, `{}` or `[]`: 1, `{"a": []}`: 2),
 * walked without recursion and given up once past `limit`: a body parsed from
 * 100,000 nested brackets must not overflow the stack here either.
 */
export function jsonDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const pending: Array<[unknown, number]> = [[value, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [node, above] = next;
    if (typeof node !== 'object' || node === null) continue;
    const depth = above + 1;
    if (depth > deepest) deepest = depth;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === 'object' && child !== null) pending.push([child, depth]);
    }
  }
  return deepest;
}

function checkJsonBounds(value: unknown, ctx: z.RefinementCtx): void {
  const depth = jsonDepth(value, MAX_JSON_DEPTH);
  if (depth > MAX_JSON_DEPTH) {
    ctx.addIssue({
      code: 'too_big',
      origin: 'json_depth',
      maximum: MAX_JSON_DEPTH,
      inclusive: true,
      message: `must be nested at most ${MAX_JSON_DEPTH} levels deep`,
    });
    return;
  }
  // Safe to serialise now that the depth is bounded; measured as the log stores it.
  const json = JSON.stringify(value) as string | undefined;
  const bytes = json === undefined ? 0 : json.length * 3 <= MAX_JSON_FIELD_BYTES ? json.length : Buffer.byteLength(json, 'utf8');
  if (bytes > MAX_JSON_FIELD_BYTES) {
    ctx.addIssue({
      code: 'too_big',
      origin: 'json_size',
      maximum: MAX_JSON_FIELD_BYTES,
      inclusive: true,
      message: `must be at most ${MAX_JSON_FIELD_BYTES} bytes of JSON (it is ${bytes})`,
    });
  }
}

const boundsNote = `at most ${MAX_JSON_DEPTH} levels deep and ${MAX_JSON_FIELD_BYTES} bytes of JSON`;

/**
 * A free-form JSON object (`attributes`, `context`): any keys and values, within
 * MAX_JSON_DEPTH and MAX_JSON_FIELD_BYTES; beyond them a 422 naming the field.
 */
export const boundedJson = z
  .record(z.string(), z.unknown())
  .superRefine(checkJsonBounds)
  .meta({ description: `A JSON object, ${boundsNote}` });

/** Any JSON value within the same bounds: a free-form field accepted and passed over (e.g. a check's user attributes). */
export const boundedJsonValue = z
  .unknown()
  .superRefine(checkJsonBounds)
  .meta({ description: `Any JSON, ${boundsNote}` });
