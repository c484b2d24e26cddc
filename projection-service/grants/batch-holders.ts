import type { Collection, Filter } from '../../shared/docstore/port';
import type { RecordedEvent } from '../../shared/events';
import { BatchPrefetch } from './batch-prefetch';
import { instanceOfGrantId, type GrantDoc } from '../../shared/read-models/grants/model';
import { sortedLikeKeysetPage } from './paging';

/**
 * A new tuple derives from the holders of roles on its subject, and asked for
 * them once per tuple (a bulk import of tuples, mostly to learn that there are
 * none; single creates, for a folder's few holders). Before a batch, this reads
 * the grants on every subject of the batch's new tuples, 500 subjects a query;
 * a tuple event then takes its subject's holders from here, as long as no grant
 * on that instance has been written or deleted since (`recording` reports
 * every write of the projection; an instance written is read again).
 *
 * Each list is what the paged read would have returned: complete, at most a
 * page, in its order (user, then id). Larger sets are paged as before.
 */
export class BatchHolders {
  private readonly prefetch: BatchPrefetch<GrantDoc>;

  constructor(private readonly grants: Collection<GrantDoc>) {
    this.prefetch = new BatchPrefetch({
      keyOf: (e) => (e.type === 'RelationshipTupleCreated' ? e.data.subject : null),
      read: (env, subjects, limit) => grants.find({ environment_id: env, instance: { $in: subjects } }, { limit }),
      keyOfDoc: (grant) => grant.instance,
      order: (grants) => sortedLikeKeysetPage(grants, 'user'),
    });
  }

  /** Call at the start of a batch, before any of its events is applied. */
  prepare(batch: RecordedEvent[]): Promise<void> {
    return this.prefetch.prepare(batch);
  }

  /** The grants on `instance` while applying the event at `position`, if known; else undefined. */
  of(environmentId: string, instance: string, position: number): GrantDoc[] | undefined {
    return this.prefetch.of(environmentId, instance, position);
  }

  /**
   * The grants collection for one event of `environmentId`, reporting what each write touches so
   * that stale lists are dropped; `written` is told of each write of grants (not of deletes).
   */
  recording(environmentId: string, written: () => void = () => undefined): Collection<GrantDoc> {
    const grants = this.grants;
    const touched = (instances: Iterable<string>) => this.prefetch.drop(environmentId, instances);
    const wrote = (instances: string[]) => {
      if (instances.length > 0) written();
      touched(instances);
    };
    const touchedFilter = (filter: Filter) => {
      const ids = filter.id;
      if (Object.keys(filter).length === 1 && ids !== null && typeof ids === 'object' && '$in' in ids)
        touched(ids.$in.map((id) => instanceOfGrantId(String(id))));
      else this.prefetch.clear();
    };
    return {
      get: (id) => grants.get(id),
      findOne: (filter) => grants.findOne(filter),
      find: (filter, options) => grants.find(filter, options),
      count: (filter) => grants.count(filter),
      put: (doc) => (wrote([doc.instance]), grants.put(doc)),
      putMany: (docs) => (wrote(docs.map((d) => d.instance)), grants.putMany(docs)),
      insertMissing: (docs) => (wrote(docs.map((d) => d.instance)), grants.insertMissing(docs)),
      delete: (id) => (touched([instanceOfGrantId(id)]), grants.delete(id)),
      deleteMany: (filter) => (touchedFilter(filter), grants.deleteMany(filter)),
    };
  }
}
