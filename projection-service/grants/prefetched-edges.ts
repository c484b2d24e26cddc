import type { EnvEvent, RecordedEvent } from '../../shared/events';
import { streamCategory } from '../../shared/events';
import type { Finder } from './collections';
import type { EdgeDoc } from './model';
import { KEY_CHUNK, PAGE_SIZE } from './paging';

/**
 * A new direct grant derives along the tuples of its instance, and a bulk
 * import of assignments asked for them once per assignment. Before a batch,
 * this reads the tuples of every instance the batch assigns a resource role on,
 * 500 instances a query; a derivation from one such instance then uses them
 * instead of asking, until the batch changes a tuple (the facts projection
 * has then changed what was read, so the rest of the batch asks again).
 *
 * Each instance's list is what asking would have returned, in the same order
 * (one index, subject then object), and only complete lists of at most a page
 * are kept: an instance with more tuples is paged as before.
 */
export class PrefetchedEdges {
  private edges = new Map<string, EdgeDoc[]>();
  private from = 0;
  private to = -1;

  constructor(private readonly tuples: Finder<EdgeDoc>) {}

  /** Call at the start of a batch, before any of its events is applied. */
  async prepare(batch: RecordedEvent[]): Promise<void> {
    this.edges = new Map();
    this.from = batch[0]?.position ?? 0;
    this.to = batch.at(-1)?.position ?? -1;
    const instancesByEnv = new Map<string, Set<string>>();
    for (const event of batch) {
      const e = event as unknown as EnvEvent;
      if (e.type !== 'RoleAssigned' || e.data.resourceInstance === null) continue;
      const env = streamCategory(event.streamId).id;
      let instances = instancesByEnv.get(env);
      if (!instances) instancesByEnv.set(env, (instances = new Set()));
      instances.add(e.data.resourceInstance);
    }
    for (const [env, instances] of instancesByEnv) {
      const list = [...instances];
      for (let i = 0; i < list.length; i += KEY_CHUNK) {
        const chunk = list.slice(i, i + KEY_CHUNK);
        // Bounded: a chunk holding a large fan-out is left to the paged reads.
        const found = await this.tuples.find({ environment_id: env, subject: { $in: chunk } }, { limit: CHUNK_LIMIT + 1 });
        if (found.length > CHUNK_LIMIT) continue;
        const bySubject = new Map<string, EdgeDoc[]>(chunk.map((subject) => [subject, []]));
        for (const edge of found) bySubject.get(edge.subject)?.push(edge);
        for (const [subject, edges] of bySubject) if (edges.length <= PAGE_SIZE) this.edges.set(key(env, subject), edges);
      }
    }
  }

  /** The tuples whose subject is `instance`, if known while applying the event at `position`; else undefined. */
  of(environmentId: string, instance: string, position: number): EdgeDoc[] | undefined {
    if (position < this.from || position > this.to) return undefined;
    return this.edges.get(key(environmentId, instance));
  }

  /** A tuple changed: what was read may no longer hold. */
  forget(): void {
    if (this.edges.size > 0) this.edges = new Map();
  }
}

/** Most tuples one prefetch query may read (500 instances × their tuples). */
const CHUNK_LIMIT = 20_000;

const key = (environmentId: string, subject: string) => `${environmentId}\u0000${subject}`;
