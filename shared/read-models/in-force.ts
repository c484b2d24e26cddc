import type { Collection, Filter, FindOptions } from '../docstore/port';
import type { ReadModels } from './read-models';

/**
 * The end a fact that never ends is stored with in its `_ends` column: after every instant the API
 * takes (four-digit years), so that "in force at t" is one range a store answers (`_ends > t`),
 * paged and counted exactly, where `expires_at` null would fail every range.
 */
export const NEVER_ENDS = '9999-12-31T23:59:59.999Z';

/** The `_ends` column of an assignment or a tuple (docs/expiring-access.md). */
export const endsColumn = (expiresAt: string | null | undefined): string => expiresAt ?? NEVER_ENDS;

/**
 * The read models as they answer at an instant: their role assignments and relationship tuples
 * without those that ended at or before it, whatever the projections have applied (an expiry's
 * event follows its end by a moment: docs/expiring-access.md). Every read of the API goes through
 * one: `now` is the service's clock for the present, the `as_of` instant for the past. The other
 * collections are the read models' own.
 */
export function inForceAt(rm: ReadModels, instant: () => number | Promise<number>): ReadModels {
  const view = Object.create(rm) as ReadModels;
  const at = async () => new Date(await instant()).toISOString();
  Object.defineProperty(view, 'assignments', { value: inForceCollection(rm.assignments, at), enumerable: true });
  Object.defineProperty(view, 'tuples', { value: inForceCollection(rm.tuples, at), enumerable: true });
  beneath.set(view, rm);
  return view;
}

/** The read models each view reads through. */
const beneath = new WeakMap<ReadModels, ReadModels>();

/**
 * The read models as stored beneath a view (`rm` itself when it is none): ended facts included
 * until their expiry events. For the one read that must see them: the derived grants a direct
 * role that ended still holds back (`no_direct_roles_on_object`) until its expiry event is
 * projected (command-service/grant-queries/ended-direct-roles.ts).
 */
export const storedBeneath = (rm: ReadModels): ReadModels => beneath.get(rm) ?? rm;

/**
 * Reads narrowed to the documents still in force (`_ends` after the instant), and read back without
 * `_ends` (the API's shapes do not have it). Writes go through unchanged: a view is for reading.
 */
export function inForceCollection<T extends { id: string; expires_at?: string | null }>(
  collection: Collection<T>,
  at: () => Promise<string>,
): Collection<T> {
  const narrowed = async (filter: Filter): Promise<Filter> => ({ ...filter, _ends: { $gt: await at() } });
  const shown = (doc: T): T => {
    if (!Object.hasOwn(doc, '_ends')) return doc;
    const { _ends: _hidden, ...rest } = doc as T & { _ends: string };
    return rest as unknown as T;
  };
  return {
    async get(id) {
      const doc = await collection.get(id);
      return doc === null || endsColumn(doc.expires_at) <= (await at()) ? null : shown(doc);
    },
    async findOne(filter) {
      const doc = await collection.findOne(await narrowed(filter));
      return doc && shown(doc);
    },
    async find(filter: Filter, options?: FindOptions) {
      return (await collection.find(await narrowed(filter), options)).map(shown);
    },
    count: async (filter) => collection.count(await narrowed(filter)),
    put: (doc) => collection.put(doc),
    putMany: (docs) => collection.putMany(docs),
    insertMissing: (docs) => collection.insertMissing(docs),
    delete: (id) => collection.delete(id),
    deleteMany: (filter) => collection.deleteMany(filter),
  };
}
