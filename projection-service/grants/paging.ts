import type { FieldValue, Filter } from '../../shared/docstore/port';
import type { GrantStore } from '../../shared/read-stores/grants/port';
import type { GrantDoc } from '../../shared/read-models/grants/model';
import type { Finder } from '../../shared/read-models/grants/fact-finders';
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

/**
 * The holders of roles on one instance, in pages of about `pageSize` in user order (then role), a
 * user's grants never split between two pages (the last user of a full page is read whole). Most
 * instances have few holders: one read, which asks for one more than a page to know.
 */
export async function* holderPages(
  grants: GrantStore,
  environmentId: string,
  instance: string,
  pageSize = PAGE_SIZE,
): AsyncGenerator<GrantDoc[]> {
  let afterUser: string | undefined;
  for (;;) {
    const page = await grants.holders(environmentId, instance, { afterUser, limit: pageSize + 1 });
    if (page.length <= pageSize) {
      if (page.length > 0) yield page;
      return;
    }
    const last = page[pageSize - 1]!.user;
    const head = page.filter((g) => g.user < last);
    yield [...head, ...(await grants.holders(environmentId, instance, { users: [last] }))];
    afterUser = last;
  }
}

/**
 * The holders of roles on any of `instances`, in pages: KEY_CHUNK instances a read, and an
 * instance of a chunk whose answer would exceed a page read on its own in holderPages.
 */
export async function* holderPagesOf(
  grants: GrantStore,
  environmentId: string,
  instances: string[],
  pageSize = PAGE_SIZE,
): AsyncGenerator<GrantDoc[]> {
  for (const chunk of chunks(instances, KEY_CHUNK)) {
    const found = await grants.onInstances(environmentId, chunk, pageSize + 1);
    if (found.length <= pageSize) {
      if (found.length > 0) yield found;
      continue;
    }
    for (const instance of chunk) yield* holderPages(grants, environmentId, instance, pageSize);
  }
}

/** Deletes grants by id in chunks, yielding between them (a large retraction deletes a lot); returns how many were stored. */
export async function deleteByIds(grants: GrantStore, ids: string[], yielder: Yielder): Promise<number> {
  let deleted = 0;
  for (let i = 0; i < ids.length; i += WRITE_CHUNK) {
    deleted += await grants.delete(ids.slice(i, i + WRITE_CHUNK));
    await yielder.maybeYield();
  }
  return deleted;
}

/** Writes grants in chunks, yielding between them. */
export async function putInChunks(grants: GrantStore, docs: GrantDoc[], yielder: Yielder): Promise<void> {
  for (let i = 0; i < docs.length; i += WRITE_CHUNK) {
    await grants.put(docs.slice(i, i + WRITE_CHUNK));
    await yielder.maybeYield();
  }
}

/** Inserts the grants whose id is not stored yet, in chunks, yielding between them; returns the inserted ones. */
export async function insertMissingInChunks(grants: GrantStore, docs: GrantDoc[], yielder: Yielder): Promise<GrantDoc[]> {
  const inserted: GrantDoc[] = [];
  for (let i = 0; i < docs.length; i += WRITE_CHUNK) {
    inserted.push(...(await grants.insertMissing(docs.slice(i, i + WRITE_CHUNK))));
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
