import type { RecordedEvent } from '../../shared/events';
import { BatchPrefetch } from './batch-prefetch';
import type { Finder } from '../../shared/read-models/grants/fact-finders';
import type { EdgeDoc } from '../../shared/read-models/grants/model';

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
  private readonly prefetch: BatchPrefetch<EdgeDoc>;

  constructor(tuples: Finder<EdgeDoc>) {
    this.prefetch = new BatchPrefetch({
      keyOf: (e) => (e.type === 'RoleAssigned' && e.data.resourceInstance !== null ? e.data.resourceInstance : null),
      read: (env, instances, limit) => tuples.find({ environment_id: env, subject: { $in: instances } }, { limit }),
      keyOfDoc: (edge) => edge.subject,
    });
  }

  /** Call at the start of a batch, before any of its events is applied. */
  prepare(batch: RecordedEvent[]): Promise<void> {
    return this.prefetch.prepare(batch);
  }

  /** The tuples whose subject is `instance`, if known while applying the event at `position`; else undefined. */
  of(environmentId: string, instance: string, position: number): EdgeDoc[] | undefined {
    return this.prefetch.of(environmentId, instance, position);
  }

  /** A tuple changed: what was read may no longer hold. */
  forget(): void {
    this.prefetch.clear();
  }
}
