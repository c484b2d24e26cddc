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
