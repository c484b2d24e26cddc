import { z } from 'zod';
import { canonicalId, isUuid } from '../../shared/ids';
import type { Collection, Filter } from '../../shared/docstore/port';
import type { Pagination } from './validation';

/**
 * List filters as Permit takes them: a filter may be repeated
 * (`?role=a&role=b`), meaning any of the values; `search` is a
 * case-insensitive substring of the fields each list names.
 */

/** One value or a repeated query parameter, as the list of its values. */
export const repeatable = z
  .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
  .transform((v) => (Array.isArray(v) ? v : [v]))
  .meta({ description: 'Repeat the parameter to match any of several values' });

/** Adds `field` ∈ `values` to `filter` (equality for one value). */
export function matchAny(filter: Filter, field: string, values: string[] | undefined): void {
  if (!values) return;
  filter[field] = values.length === 1 ? values[0]! : { $in: values };
}

/** Whether any of `fields` of `doc` holds `search` (case-insensitive). */
export function searchMatches(doc: object, fields: readonly string[], search: string): boolean {
  const needle = search.toLowerCase();
  return fields.some((field) => {
    const value = (doc as Record<string, unknown>)[field];
    return typeof value === 'string' && value.toLowerCase().includes(needle);
  });
}

/**
 * A page of the documents matching `filter` and, when given, `search` over
 * `fields` and `keep`. The document store has no substring operator (nor
 * unbounded `$in` lists), so a search or a `keep` reads the filter's documents
 * in batches and pages the matches here; with neither the store pages.
 */
export async function searchedPage<T extends { id: string }, R = T>(
  collection: Collection<T>,
  filter: Filter,
  page: Pagination,
  search: { text: string | undefined; fields: readonly string[]; keep?: (doc: T) => boolean },
  present: (doc: T) => R = (doc) => doc as unknown as R,
  batchSize = 1000,
): Promise<{ data: R[]; total_count: number; page_count: number }> {
  const skip = (page.page - 1) * page.per_page;
  const { text, fields, keep } = search;
  if (text === undefined && keep === undefined) {
    const docs = await collection.find(filter, { skip, limit: page.per_page });
    const total = await collection.count(filter);
    return { data: docs.map(present), total_count: total, page_count: Math.ceil(total / page.per_page) };
  }
  const matches: T[] = [];
  // Keyset batches in id order: each read resumes after the last id seen, so the walk is stable and linear.
  for (let after: string | undefined; ;) {
    const batch = await collection.find(after === undefined ? filter : { ...filter, id: { $gt: after } }, {
      sortBy: 'id',
      limit: batchSize,
    });
    for (const doc of batch) {
      if ((text === undefined || searchMatches(doc, fields, text)) && (keep === undefined || keep(doc))) matches.push(doc);
    }
    if (batch.length < batchSize) break;
    after = batch.at(-1)!.id;
  }
  return {
    data: matches.slice(skip, skip + page.per_page).map(present),
    total_count: matches.length,
    page_count: Math.ceil(matches.length / page.per_page),
  };
}

/** Longest `$in` list a filter is given; a longer set of values is matched by `keep` (see searchedPage). */
export const MAX_IN_VALUES = 500;

/**
 * `field` ∈ `values`: in the store's filter when the list is short, otherwise
 * as a `keep` predicate (an engine takes only so many bound values).
 */
export function matchMany<T>(filter: Filter, field: string, values: string[]): ((doc: T) => boolean) | undefined {
  if (values.length <= MAX_IN_VALUES) {
    filter[field] = { $in: values };
    return undefined;
  }
  const set = new Set(values);
  return (doc) => set.has((doc as Record<string, unknown>)[field] as string);
}

/** The paged object, or its bare array when the client did not ask for the total (Permit's list shapes). */
export const shaped = <R>(paged: { data: R[]; total_count: number; page_count: number }, page: Pagination) =>
  page.include_total_count ? paged : paged.data;

/** A page of the documents matching `filter`, each page turned into its answer by `present` (which may read more). */
export async function presentedPage<T extends { id: string }, R>(
  collection: Collection<T>,
  filter: Filter,
  page: Pagination,
  present: (docs: T[]) => Promise<R[]>,
): Promise<R[] | { data: R[]; total_count: number; page_count: number }> {
  const docs = await collection.find(filter, { skip: (page.page - 1) * page.per_page, limit: page.per_page });
  const data = await present(docs);
  if (!page.include_total_count) return data;
  const total = await collection.count(filter);
  return { data, total_count: total, page_count: Math.ceil(total / page.per_page) };
}

/**
 * `{$gte, $lt}` bounds of the refs of one resource type's instances (`type:` up
 * to, not including, `type;`: `;` follows `:` in every engine's byte order).
 */
export const refsOfType = (resource: string) => ({ $gte: `${resource}:`, $lt: `${resource};` });

/**
 * Filter values as the documents hold them: a value that is an object's id
 * (a UUID) becomes its key (`type:key` for an instance), as Permit's filters
 * take either. An id that names nothing stays, and matches nothing.
 */
export async function keysOf(
  values: string[] | undefined,
  byId: (id: string) => Promise<{ key: string; resource?: string; environment_id?: string } | null>,
  env: string,
): Promise<string[] | undefined> {
  if (!values) return undefined;
  return Promise.all(
    values.map(async (value) => {
      const id = canonicalId(value);
      if (!isUuid(id)) return value;
      const doc = await byId(id);
      if (!doc || doc.environment_id !== env) return value;
      return doc.resource === undefined ? doc.key : `${doc.resource}:${doc.key}`;
    }),
  );
}
