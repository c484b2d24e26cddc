import { createHash } from 'node:crypto';
import { ValidationError } from '../../shared/errors';

/**
 * Opaque keyset cursors: the last key a page returned, plus a fingerprint of
 * the query, so a cursor cannot be replayed against a different question.
 */
export function encodeCursor(after: string, query: unknown): string {
  return Buffer.from(JSON.stringify({ a: after, q: fingerprint(query) })).toString('base64url');
}

/** The key to continue after, or null for the first page. A malformed or foreign cursor is a 422. */
export function decodeCursor(cursor: string | undefined | null, query: unknown): string | null {
  if (cursor === undefined || cursor === null || cursor === '') return null;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { a?: unknown; q?: unknown };
    if (typeof parsed.a === 'string' && parsed.q === fingerprint(query)) return parsed.a;
  } catch {
    // fall through to the validation error
  }
  throw new ValidationError([
    { loc: ['body', 'cursor'], msg: 'Invalid cursor: pass back the next_cursor of the same query unchanged', type: 'value_error' },
  ]);
}

function fingerprint(query: unknown): string {
  return createHash('sha256').update(JSON.stringify(query)).digest('base64url').slice(0, 12);
}
