import type { Collection, FieldValue, Filter } from '../../shared/docstore/port';
import type { Finder } from '../../shared/read-models/grants/collections';
import type { Yielder } from '../yielder';
import { withFields } from '../../shared/objects';

/**
 * Keyset pages over a filter, sorted by `field`: each page holds about
 * `pageSize` documents and never splits a group of equal `field` values (the
 * last group of a full page is completed with one equality query), so the next
 * page can start strictly after the last value. Memory stays bounded by the
 * page size (plus the largest group of ties).
 *
 * Most sets are small (the holders of one instance): those are read with one
 * unsorted query and sorted here, the same order the engine would give. A
 * sorted query cost SQLite a temporary sort (the id tiebreak is not in the
 * index) even for three rows, and every tuple written paid it.
 */
export async function* keysetPages<T extends { id: string }>(
  collection: Finder<T>,
  filter: Filter,
  field: string,
  pageSize: number,
): AsyncGenerator<T[]> {
  const probe = await collection.find(filter, { limit: pageSize + 1 });
  if (probe.length <= pageSize) {
    if (probe.length > 0) yield sortedLikeKeysetPage(probe, field);
    return;
  }
  let after: FieldValue | undefined;
  for (;;) {
    const bounded = after === undefined ? filter : withFields(filter, { [field]: { $gt: after } });
    const page = await collection.find(bounded, { sortBy: field, limit: pageSize });
    if (page.length < pageSize) {
      if (page.length > 0) yield page;
      return;
    }
    const last = valueOf(page[page.length - 1]!, field);
    const head = page.filter((doc) => valueOf(doc, field) !== last);
    const ties = await collection.find(withFields(filter, { [field]: last }), { sortBy: 'id' });
    yield [...head, ...ties];
    after = last;
  }
}

/** A whole set sorted as its keyset page would be: by `field`, then id. */
export function sortedLikeKeysetPage<T extends { id: string }>(docs: T[], field: string): T[] {
  return docs.sort((a, b) => compareValues(valueOf(a, field), valueOf(b, field)) || compareValues(a.id, b.id));
}

/**
 * Pages of the documents whose `keyField` is any of `keys`. Keys are asked in
 * chunks with `$in`; a chunk whose answer would exceed a page (one key with a
 * large fan-out) is read again key by key with keyset pages sorted by `sortField`.
 */
export async function* pagesByKeys<T extends { id: string }>(
  collection: Finder<T>,
  base: Filter,
  keyField: string,
  keys: FieldValue[],
  sortField: string,
  pageSize: number,
): AsyncGenerator<T[]> {
  for (let i = 0; i < keys.length; i += KEY_CHUNK) {
    const chunk = keys.slice(i, i + KEY_CHUNK);
    const docs = await collection.find(withFields(base, { [keyField]: { $in: chunk } }), { limit: pageSize + 1 });
    if (docs.length <= pageSize) {
      if (docs.length > 0) yield docs;
      continue;
    }
    for (const key of chunk) yield* keysetPages(collection, withFields(base, { [keyField]: key }), sortField, pageSize);
  }
}

/** Every document of a filter, read in keyset pages (for sets that may be large). */
export async function* allPages<T extends { id: string }>(
  collection: Collection<T>,
  filter: Filter,
  sortField: string,
  pageSize = PAGE_SIZE,
): AsyncGenerator<T[]> {
  yield* keysetPages(collection, filter, sortField, pageSize);
}

/** Documents by id, asked in chunks (engines limit the size of one query). */
export async function findByIds<T extends { id: string }>(collection: Collection<T>, ids: string[]): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < ids.length; i += KEY_CHUNK) out.push(...(await collection.find({ id: { $in: ids.slice(i, i + KEY_CHUNK) } })));
  return out;
}

/** Deletes by id in chunks, yielding between them (a large retraction deletes a lot). */
export async function deleteByIds<T extends { id: string }>(collection: Collection<T>, ids: string[], yielder: Yielder): Promise<number> {
  let deleted = 0;
  for (let i = 0; i < ids.length; i += WRITE_CHUNK) {
    deleted += await collection.deleteMany({ id: { $in: ids.slice(i, i + WRITE_CHUNK) } });
    await yielder.maybeYield();
  }
  return deleted;
}

/** Writes documents in chunks, yielding between them. */
export async function putInChunks<T extends { id: string }>(collection: Collection<T>, docs: T[], yielder: Yielder): Promise<void> {
  for (let i = 0; i < docs.length; i += WRITE_CHUNK) {
    await collection.putMany(docs.slice(i, i + WRITE_CHUNK));
    await yielder.maybeYield();
  }
}

/** Inserts the documents whose id is not stored yet, in chunks, yielding between them; returns the inserted ones. */
export async function insertMissingInChunks<T extends { id: string }>(
  collection: Collection<T>,
  docs: T[],
  yielder: Yielder,
): Promise<T[]> {
  const inserted: T[] = [];
  for (let i = 0; i < docs.length; i += WRITE_CHUNK) {
    inserted.push(...(await collection.insertMissing(docs.slice(i, i + WRITE_CHUNK))));
    await yielder.maybeYield();
  }
  return inserted;
}

export function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Documents per page while the projection walks large sets. */
export const PAGE_SIZE = 500;
/** Keys per `$in` query. */
export const KEY_CHUNK = 500;
/** Documents per write call: each is a few milliseconds, so the loop gets a turn between them. */
export const WRITE_CHUNK = 200;

const valueOf = (doc: object, field: string): FieldValue => (doc as Record<string, FieldValue>)[field] ?? null;

/**
 * The engines' ascending order for the values the projection sorts by: null
 * first, then numbers, then strings. Strings compare by code unit, which is the
 * engines' byte order for the keys this API accepts (ASCII).
 */
function compareValues(a: FieldValue, b: FieldValue): number {
  const rank = (v: FieldValue) => (v === null ? 0 : typeof v === 'string' ? 2 : 1);
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  if (a === b || a === null || b === null) return 0;
  return a < b ? -1 : 1;
}
