import { z } from 'zod';
import { ValidationError } from '../../shared/errors';
import { OBJECT_KEY_MAX, OBJECT_KEY_PATTERN } from '../../shared/refs';
import { withoutNullOptionals } from './null-as-absent';

/** Object keys: letters, digits, '-' and '_' (Permit's rule). */
export const keySchema = z.string().regex(OBJECT_KEY_PATTERN, `must match ${OBJECT_KEY_PATTERN.source}`).max(OBJECT_KEY_MAX);

/**
 * A resource instance as requests name it: `type:key`, or its id (a UUID, dashed or as 32 hex
 * digits). Other strings name no instance (404), or, where the form is checked, break a rule (400).
 */
export const INSTANCE_REF_PATTERN =
  '^(?:[A-Za-z0-9_-]+:[A-Za-z0-9_-]+|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[0-9a-fA-F]{32})$';

/**
 * JSON Schema for "the body gives these members": present and not null. A null for an optional
 * member means absent (null-as-absent.ts), so a document's presence rules (`anyOf`, `if`/`then`)
 * say `given(name)` where a bare `required: [name]` would also count a null as given.
 */
export const given = (...names: string[]) => ({
  required: names,
  properties: Object.fromEntries(names.map((name) => [name, { not: { type: 'null' } }])),
});

/**
 * Parses a request part with zod, or throws a ValidationError rendered as
 * Permit's 422 `{detail: [{loc, msg, type}]}`. Routes parse once and pass the
 * parsed value on.
 */
export function parse<S extends z.ZodType>(schema: S, value: unknown, location: 'body' | 'query' | 'path'): z.infer<S> {
  // A body's `null` for an optional member means absent (Permit's models; see null-as-absent.ts).
  const given = location === 'body' ? withoutNullOptionals(schema, value ?? undefined) : (value ?? {});
  const result = schema.safeParse(given);
  if (result.success) return result.data;
  throw new ValidationError(
    result.error.issues.flatMap((issue) => {
      const loc = [location, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))];
      // One entry per field that is not taken, named in its `loc`, as Permit's API (pydantic) reports it.
      if (issue.code === 'unrecognized_keys') {
        return issue.keys.map((key) => ({ loc: [...loc, key], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }));
      }
      return [{ loc, msg: issue.message, type: issue.code }];
    }),
  );
}

/**
 * The schema with its top-level object closed: a field it does not declare is
 * refused (422 naming it), never accepted and dropped. Schemas that are not a
 * plain object (arrays, unions, pipes) are returned as they are; their objects
 * close themselves where it matters.
 */
export function refusingUndeclaredFields<S extends z.ZodType | undefined>(schema: S): S {
  if (!closable(schema)) return schema;
  // The closed copy keeps what the document says of the schema (e.g. `anyOf`), but not its
  // component id, which stays with the open original wherever else it is used.
  const { id: _id, ...meta } = schema.meta() ?? {};
  return schema.strict().meta(meta) as unknown as S;
}

/**
 * A plain object schema, which takes only the names it declares once closed.
 * One with a catchall that takes something declares a rule for other names
 * itself (the audit log's `audit_metadata.<path>` filters) and is left as it is.
 */
function closable(schema: z.ZodType | undefined): schema is z.ZodObject {
  return schema instanceof z.ZodObject && (schema.def.catchall === undefined || schema.def.catchall instanceof z.ZodNever);
}

/**
 * Refuses (422, each name in its `loc`, as a closed schema does) the query
 * parameters a query schema does not declare. Checked before the route runs,
 * so a parameter the route does not declare is refused by name even where the
 * handler reads only part of its query (values are still validated where they
 * are read, keeping each route's order of checks). A route that declares no
 * query takes no parameters; one with a catchall rules on other names itself.
 * A set of names, not a schema parse: it runs on every request.
 */
export function undeclaredQueryRefusal(query: z.ZodType | undefined): (received: Record<string, unknown>) => void {
  if (query && !closable(query)) return () => undefined;
  const names = new Set(query ? Object.keys(query.shape) : []);
  return (received) => {
    const undeclared = Object.keys(received).filter((name) => !names.has(name));
    if (undeclared.length > 0) {
      throw new ValidationError(
        undeclared.map((name) => ({ loc: ['query', name], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' })),
      );
    }
  };
}

/**
 * Meta key: the JSON Schema a value is documented with where zod's rendering
 * of its parser would not say what it takes (see `queryInteger`). The OpenAPI
 * rendering puts it in place of zod's.
 */
export const DOCUMENTED_AS = 'x-documented-as';

/**
 * A whole number in a query string, within bounds, `byDefault` when absent:
 * decimal digits only. (`z.coerce.number()` took '' as 0, ' 5' as 5, '0x10'
 * as 16 and '1e1' as 10.) Documented as an integer.
 */
export function queryInteger(min: number, max: number, byDefault: number, tooBig?: string) {
  return z
    .string()
    .regex(/^[0-9]+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max, tooBig))
    .default(byDefault)
    .meta({ [DOCUMENTED_AS]: { type: 'integer', minimum: min, maximum: max, default: byDefault } });
}

/** Query booleans arrive as strings: `true` or `false`, nothing else. */
export const queryBoolean = z.enum(['true', 'false']).transform((v) => v === 'true');

/** The largest `per_page` any list takes. */
export const MAX_PER_PAGE = 100;
/**
 * The largest `page` any list takes: the most whose first item, `(page - 1) * per_page`, is still a
 * safe integer at the largest page size (a later page was a 500 where the stores count past that).
 * No list has so many pages, so every page within it answers, empty past the end.
 */
export const MAX_PAGE = Math.floor(Number.MAX_SAFE_INTEGER / MAX_PER_PAGE);

/** `page`, from 1 and 1 by default (Permit's). */
export const queryPage = () => queryInteger(1, MAX_PAGE, 1, `must be at most ${MAX_PAGE}`);

export const paginationSchema = z.object({
  page: queryPage(),
  per_page: queryInteger(1, MAX_PER_PAGE, 100),
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
