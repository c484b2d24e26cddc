import type { FieldValue, Filter, FindOptions } from '../../shared/docstore/port';
import { byteOrder, compareValues, matches } from '../../shared/docstore/value-order';
import type { GrantDoc } from '../../shared/read-models/grants/model';

/** The documents matching `filter`, sorted, paged and projected as a store's `find` would give them. */
export function select(docs: GrantDoc[], filter: Filter, options: FindOptions): GrantDoc[] {
  const matching = docs.filter((doc) => Object.entries(filter).every(([field, condition]) => matches(valueOf(doc, field), condition)));
  const sortBy = options.sortBy ?? 'id';
  matching.sort((a, b) => compareValues(valueOf(a, sortBy), valueOf(b, sortBy)) || byteOrder(a.id, b.id));
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
