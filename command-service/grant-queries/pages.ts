import type { Collection, Filter } from '../../shared/docstore/port';
import { byteOrder } from '../../shared/docstore/value-order';

/** How groupPage reads a collection's documents in the order of their groups. */
export interface GroupReads {
  /** The documents after group `after` (every one when null), to be read sorted by `sortBy`. */
  after(after: string | null): Filter;
  /** Every document of the group `key`. */
  only(key: string): Filter;
  /** A field (or `id`) whose order is the groups' order, each group's documents next to each other. */
  sortBy: string;
  /** The filters' ranges on `id` bound the reads (FindOptions.byId). */
  byId?: boolean;
}

/**
 * One page of up to `limit` groups (documents sharing `field`), in group
 * order, after `after`. Reads `limit + 1` documents; a group cut by that read
 * is completed with one more read, so a group is never split across pages.
 * `more` is true when a later page may hold more groups.
 */
export async function groupPage<T extends { id: string }>(
  collection: Collection<T>,
  reads: GroupReads,
  field: keyof T & string,
  after: string | null,
  limit: number,
): Promise<{ groups: Map<string, T[]>; more: boolean }> {
  const fetch = limit + 1;
  const byId = reads.byId === true;
  const rows = await collection.find(reads.after(after), { sortBy: reads.sortBy, limit: fetch, byId });
  const groups = groupBy(rows, field);
  const truncated = rows.length === fetch;
  if (groups.size > limit) return { groups: new Map([...groups].slice(0, limit)), more: true };
  if (truncated) {
    const last = String(rows[rows.length - 1]![field]);
    groups.set(last, await collection.find(reads.only(last), { sortBy: 'id', byId }));
  }
  return { groups, more: truncated };
}

/**
 * Same as groupPage over two sources merged (e.g. users holding a resource
 * role and users holding a tenant role): only keys known to be complete in both
 * reads are used, and the chosen keys are then read in full from both.
 */
export async function mergedGroupPage<A extends { id: string }, B extends { id: string }>(
  a: { collection: Collection<A>; filter: Filter } | null,
  b: { collection: Collection<B>; filter: Filter } | null,
  field: keyof A & keyof B & string,
  after: string | null,
  limit: number,
): Promise<{ keys: string[]; a: A[]; b: B[]; more: boolean }> {
  const fetch = limit + 1;
  const read = async <T extends { id: string }>(source: { collection: Collection<T>; filter: Filter } | null) =>
    source
      ? source.collection.find(after === null ? source.filter : { ...source.filter, [field]: { $gt: after } }, {
          sortBy: field,
          limit: fetch,
        })
      : [];
  const [rowsA, rowsB] = [await read(a), await read(b)];
  const bounds = [rowsA, rowsB]
    .filter((rows) => rows.length === fetch)
    .map((rows) => String((rows[rows.length - 1] as Record<string, unknown>)[field]));
  const bound = bounds.sort(byteOrder)[0] ?? null;
  const keys = [...new Set([...rowsA, ...rowsB].map((r) => String((r as Record<string, unknown>)[field])))]
    .filter((k) => bound === null || byteOrder(k, bound) <= 0)
    .sort(byteOrder);
  const chosen = keys.slice(0, limit);
  const full = async <T extends { id: string }>(source: { collection: Collection<T>; filter: Filter } | null) =>
    source && chosen.length > 0 ? source.collection.find({ ...source.filter, [field]: { $in: chosen } }, { sortBy: field }) : [];
  return { keys: chosen, a: await full(a), b: await full(b), more: bound !== null || keys.length > limit };
}

export function groupBy<T>(rows: T[], field: keyof T & string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const key = String(row[field]);
    const list = groups.get(key);
    if (list) list.push(row);
    else groups.set(key, [row]);
  }
  return groups;
}
