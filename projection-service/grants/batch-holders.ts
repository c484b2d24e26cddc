import type { RecordedEvent } from '../../shared/events';
import type { GrantStore } from '../../shared/read-stores/grants/port';
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

  constructor(private readonly grants: GrantStore) {
    this.prefetch = new BatchPrefetch({
      keyOf: (e) => (e.type === 'RelationshipTupleCreated' ? e.data.subject : null),
      read: (env, subjects, limit) => grants.onInstances(env, subjects, limit),
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
   * The grants' store for one event of `environmentId`, reporting what each write touches so
   * that stale lists are dropped; `written` is told of each write of grants (not of deletes).
   */
  recording(environmentId: string, written: () => void = () => undefined): GrantStore {
    const grants = this.grants;
    const touched = (instances: Iterable<string>) => this.prefetch.drop(environmentId, instances);
    const wrote = (docs: readonly GrantDoc[]) => {
      if (docs.length > 0) written();
      touched(docs.map((d) => d.instance));
    };
    return {
      get: (id) => grants.get(id),
      byIds: (ids) => grants.byIds(ids),
      userRange: (range, narrowing, page) => grants.userRange(range, narrowing, page),
      countUserRange: (range, narrowing, atMost) => grants.countUserRange(range, narrowing, atMost),
      holders: (env, instance, page) => grants.holders(env, instance, page),
      userOn: (env, user, instances, narrowing) => grants.userOn(env, user, instances, narrowing),
      rolesOn: (env, user, instance, roles) => grants.rolesOn(env, user, instance, roles),
      onInstances: (env, instances, limit) => grants.onInstances(env, instances, limit),
      ofEnvironment: (env) => grants.ofEnvironment(env),
      count: () => grants.count(),
      insertMissing: (docs) => (wrote(docs), grants.insertMissing(docs)),
      put: (docs) => (wrote(docs), grants.put(docs)),
      delete: (ids) => (touched(ids.map(instanceOfGrantId)), grants.delete(ids)),
      rules: (env) => grants.rules(env),
      putRules: (rules) => grants.putRules(rules),
    };
  }
}
