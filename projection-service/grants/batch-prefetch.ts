import type { EnvEvent, RecordedEvent } from '../../shared/events';
import { isEventOf, streamCategory } from '../../shared/events';
import { KEY_CHUNK, PAGE_SIZE } from './paging';

/** What a BatchPrefetch reads, and for which keys of a batch. */
export interface PrefetchSpec<T> {
  /** The key (an instance ref) an event of the batch will ask about, or null. */
  keyOf(event: EnvEvent): string | null;
  /** The documents of up to KEY_CHUNK keys of one environment, at most `limit`. */
  read(environmentId: string, keys: string[], limit: number): Promise<T[]>;
  /** The key a read document belongs to. */
  keyOfDoc(doc: T): string;
  /** Puts one key's documents in the order the paged read would give them. */
  order?(docs: T[]): T[];
}

/** Most documents one prefetch query may read (KEY_CHUNK keys × their documents). */
const CHUNK_LIMIT = 20_000;

/**
 * Reads, before a projection batch, what its events would each ask for one at
 * a time: the keys of the batch, KEY_CHUNK a query. Each kept list is what the
 * paged read would have returned: complete, at most a page, in its order; a
 * chunk or key with more is left to the paged reads. Lists hold only for the
 * batch they were read for, and until their owner drops them (`drop`, `clear`)
 * because the batch changed what was read.
 */
export class BatchPrefetch<T> {
  private lists = new Map<string, T[]>();
  private from = 0;
  private to = -1;

  constructor(private readonly spec: PrefetchSpec<T>) {}

  /** Call at the start of a batch, before any of its events is applied. */
  async prepare(batch: RecordedEvent[]): Promise<void> {
    this.lists = new Map();
    this.from = batch[0]?.position ?? 0;
    this.to = batch.at(-1)?.position ?? -1;
    const keysByEnv = new Map<string, Set<string>>();
    for (const event of batch) {
      const key = isEventOf('env', event) ? this.spec.keyOf(event) : null;
      if (key === null) continue;
      const env = streamCategory(event.streamId).id;
      let keys = keysByEnv.get(env);
      if (!keys) keysByEnv.set(env, (keys = new Set()));
      keys.add(key);
    }
    for (const [env, keys] of keysByEnv) {
      const list = [...keys];
      for (let i = 0; i < list.length; i += KEY_CHUNK) {
        const chunk = list.slice(i, i + KEY_CHUNK);
        const found = await this.spec.read(env, chunk, CHUNK_LIMIT + 1);
        if (found.length > CHUNK_LIMIT) continue;
        const byKey = new Map<string, T[]>(chunk.map((key) => [key, []]));
        for (const doc of found) byKey.get(this.spec.keyOfDoc(doc))?.push(doc);
        for (const [key, docs] of byKey) {
          if (docs.length <= PAGE_SIZE) this.lists.set(listKey(env, key), this.spec.order ? this.spec.order(docs) : docs);
        }
      }
    }
  }

  /** The documents of `key` while applying the event at `position`, if known; else undefined. */
  of(environmentId: string, key: string, position: number): T[] | undefined {
    if (position < this.from || position > this.to) return undefined;
    return this.lists.get(listKey(environmentId, key));
  }

  /** These keys' lists no longer hold (asked again from now on). */
  drop(environmentId: string, keys: Iterable<string>): void {
    if (this.lists.size === 0) return;
    for (const key of keys) this.lists.delete(listKey(environmentId, key));
  }

  /** Nothing read holds any more. */
  clear(): void {
    if (this.lists.size > 0) this.lists = new Map();
  }
}

const listKey = (environmentId: string, key: string) => `${environmentId}\u0000${key}`;
