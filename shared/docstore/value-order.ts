import type { FieldValue, Filter, FindOptions } from './port';

/**
 * The port's order of field values and its filter conditions, evaluated in memory: for code that
 * sorts, merges or filters documents it read (a read as of a position merging two collections,
 * the grant queries' pages), so that its lists split and order where an engine's would.
 */

/** Strings in the order of their UTF-8 bytes (the port's order for strings): code point order. */
export function byteOrder(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/** Two field values in the engines' order: null (or absent) first, then numbers (booleans as 0 and 1), then strings (by their bytes). */
export function compareValues(a: unknown, b: unknown): number {
  const rank = (v: unknown) => (v === null || v === undefined ? 0 : typeof v === 'boolean' ? 1 : typeof v === 'number' ? 1 : 2);
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (ra === 0) return 0;
  if (ra === 1) return Number(a) - Number(b);
  return byteOrder(String(a), String(b));
}

/** Whether `value` meets one field's condition of a filter; a null value meets no range, as on the engines. */
export function matches(value: FieldValue, condition: Filter[string]): boolean {
  if (condition === null || typeof condition !== 'object') return value === condition;
  if ('$in' in condition) return condition.$in.includes(value);
  if (value === null) return false;
  const { $gt, $gte, $lt, $lte } = condition;
  return (
    ($gt === undefined || compareValues(value, $gt) > 0) &&
    ($gte === undefined || compareValues(value, $gte) >= 0) &&
    ($lt === undefined || compareValues(value, $lt) < 0) &&
    ($lte === undefined || compareValues(value, $lte) <= 0)
  );
}

/**
 * The documents of `docs` matching `filter`, sorted (by `sortBy`, `id` by default, then id; in
 * descending order when asked), paged and projected as a store's `find` gives them.
 */
export function findInMemory<T extends { id: string }>(docs: readonly T[], filter: Filter, options: FindOptions = {}): T[] {
  const valueOf = (doc: T, field: string): FieldValue => (doc as unknown as Record<string, FieldValue | undefined>)[field] ?? null;
  const matching = docs.filter((doc) => Object.entries(filter).every(([field, condition]) => matches(valueOf(doc, field), condition)));
  const sortBy = options.sortBy ?? 'id';
  const direction = options.descending ? -1 : 1;
  matching.sort((a, b) => direction * (compareValues(valueOf(a, sortBy), valueOf(b, sortBy)) || byteOrder(a.id, b.id)));
  const from = options.skip ?? 0;
  const page = matching.slice(from, options.limit === undefined ? undefined : from + options.limit);
  if (!options.fields) return page;
  return page.map((doc) => {
    const partial: Record<string, unknown> = { id: doc.id };
    for (const field of options.fields!) partial[field] = valueOf(doc, field);
    return partial as unknown as T;
  });
}
