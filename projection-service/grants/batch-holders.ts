import type { Collection, Filter } from '../../shared/docstore/port';
import type { EnvEvent, RecordedEvent } from '../../shared/events';
import { streamCategory } from '../../shared/events';
import { instanceOfGrantId, type GrantDoc } from './model';
import { KEY_CHUNK, PAGE_SIZE, sortedLikeKeysetPage } from './paging';

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
  private holders = new Map<string, GrantDoc[]>();
  private from = 0;
  private to = -1;

  constructor(private readonly grants: Collection<GrantDoc>) {}

  /** Call at the start of a batch, before any of its events is applied. */
  async prepare(batch: RecordedEvent[]): Promise<void> {
    this.holders = new Map();
    this.from = batch[0]?.position ?? 0;
    this.to = batch.at(-1)?.position ?? -1;
    const subjectsByEnv = new Map<string, Set<string>>();
    for (const event of batch) {
      const e = event as unknown as EnvEvent;
      if (e.type !== 'RelationshipTupleCreated') continue;
      const env = streamCategory(event.streamId).id;
      let subjects = subjectsByEnv.get(env);
      if (!subjects) subjectsByEnv.set(env, (subjects = new Set()));
      subjects.add(e.data.subject);
    }
    for (const [env, subjects] of subjectsByEnv) {
      const list = [...subjects];
      for (let i = 0; i < list.length; i += KEY_CHUNK) {
        const chunk = list.slice(i, i + KEY_CHUNK);
        // Bounded: a chunk holding a subject with very many holders is left to the paged reads.
        const found = await this.grants.find({ environment_id: env, instance: { $in: chunk } }, { limit: CHUNK_LIMIT + 1 });
        if (found.length > CHUNK_LIMIT) continue;
        const bySubject = new Map<string, GrantDoc[]>(chunk.map((subject) => [subject, []]));
        for (const grant of found) bySubject.get(grant.instance)?.push(grant);
        for (const [subject, grants] of bySubject) {
          if (grants.length <= PAGE_SIZE) this.holders.set(key(env, subject), sortedLikeKeysetPage(grants, 'user'));
        }
      }
    }
  }

  /** The grants on `instance` while applying the event at `position`, if known; else undefined. */
  of(environmentId: string, instance: string, position: number): GrantDoc[] | undefined {
    if (position < this.from || position > this.to) return undefined;
    return this.holders.get(key(environmentId, instance));
  }

  /** The grants collection for one event of `environmentId`, reporting what each write touches so that stale lists are dropped. */
  recording(environmentId: string): Collection<GrantDoc> {
    const grants = this.grants;
    const touched = (instances: Iterable<string>) => {
      if (this.holders.size === 0) return;
      for (const instance of instances) this.holders.delete(key(environmentId, instance));
    };
    const touchedFilter = (filter: Filter) => {
      const ids = filter.id;
      if (Object.keys(filter).length === 1 && ids !== null && typeof ids === 'object' && '$in' in ids) touched(ids.$in.map((id) => instanceOfGrantId(String(id))));
      else this.holders = new Map();
    };
    return {
      get: (id) => grants.get(id),
      findOne: (filter) => grants.findOne(filter),
      find: (filter, options) => grants.find(filter, options),
      count: (filter) => grants.count(filter),
      put: (doc) => (touched([doc.instance]), grants.put(doc)),
      putMany: (docs) => (touched(docs.map((d) => d.instance)), grants.putMany(docs)),
      insertMissing: (docs) => (touched(docs.map((d) => d.instance)), grants.insertMissing(docs)),
      delete: (id) => (touched([instanceOfGrantId(id)]), grants.delete(id)),
      deleteMany: (filter) => (touchedFilter(filter), grants.deleteMany(filter)),
    };
  }
}

/** Most grants one prefetch query may read (500 subjects × their holders). */
const CHUNK_LIMIT = 20_000;

const key = (environmentId: string, instance: string) => `${environmentId}\u0000${instance}`;
