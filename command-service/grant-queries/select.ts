import type { FieldValue, Filter, FindOptions } from '../../shared/docstore/port';
import type { GrantDoc } from '../../shared/read-models/grants/model';
import { byteOrder } from './cursor';

/** The documents matching `filter`, sorted, paged and projected as a store's `find` would give them. */
export function select(docs: GrantDoc[], filter: Filter, options: FindOptions): GrantDoc[] {
  const matching = docs.filter((doc) => Object.entries(filter).every(([field, condition]) => matches(valueOf(doc, field), condition)));
  const sortBy = options.sortBy ?? 'id';
  matching.sort((a, b) => compare(valueOf(a, sortBy), valueOf(b, sortBy)) || byteOrder(a.id, b.id));
  const from = options.skip ?? 0;
  const page = matching.slice(from, options.limit === undefined ? undefined : from + options.limit);
  if (!options.fields) return page;
  return page.map((doc) => {
    const partial: Record<string, unknown> = { id: doc.id };
    for (const field of options.fields!) partial[field] = valueOf(doc, field) ?? null;
    return partial as unknown as GrantDoc;
  });
}

const valueOf = (doc: GrantDoc, field: string): FieldValue => (doc as unknown as Record<string, FieldValue | undefined>)[field] ?? null;

function matches(value: FieldValue, condition: Filter[string]): boolean {
  if (condition === null) return value === null;
  if (typeof condition !== 'object') return value === condition;
  if ('$in' in condition) return condition.$in.includes(value);
  if (value === null) return false;
  const { $gt, $gte, $lt, $lte } = condition;
  return (
    ($gt === undefined || compare(value, $gt) > 0) &&
    ($gte === undefined || compare(value, $gte) >= 0) &&
    ($lt === undefined || compare(value, $lt) < 0) &&
    ($lte === undefined || compare(value, $lte) <= 0)
  );
}

function compare(a: FieldValue, b: FieldValue): number {
  if (typeof a === 'string' && typeof b === 'string') return byteOrder(a, b);
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : 1;
}
