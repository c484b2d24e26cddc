import type { EnvEvent, RecordedEvent } from '../../shared/events';
import { streamCategory } from '../../shared/events';
import type { GrantCollections } from './collections';
import { KEY_CHUNK } from './paging';

/**
 * A new tuple derives from the holders of roles on its subject, and a bulk
 * import of tuples asks that once per tuple, almost always to learn that there
 * are none. Before a batch, this asks once (per 500 subjects) which of the
 * batch's tuple subjects hold no grant at all; a tuple on such a subject then
 * skips the lookup, as long as no grant has been written since the batch
 * started (any write may have given the subject a holder, so the answers are
 * then dropped for the rest of the batch). The result is exactly what the
 * lookup would have found: nothing.
 */
export class HolderlessSubjects {
  private holderless = new Set<string>();
  /** Positions of the batch the answers belong to; outside it they mean nothing. */
  private from = 0;
  private to = -1;

  constructor(private readonly collections: GrantCollections) {}

  /** Call at the start of a batch, before any of its events is applied. */
  async prepare(batch: RecordedEvent[]): Promise<void> {
    this.holderless = new Set();
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
        const held = await this.collections.grants.find({ environment_id: env, instance: { $in: chunk } }, { fields: ['instance'] });
        const withHolders = new Set(held.map((g) => g.instance));
        for (const subject of chunk) if (!withHolders.has(subject)) this.holderless.add(key(env, subject));
      }
    }
  }

  /** True if `subject` is known to hold no grant while applying the event at `position`. */
  has(environmentId: string, subject: string, position: number): boolean {
    return position >= this.from && position <= this.to && this.holderless.has(key(environmentId, subject));
  }

  /** A grant was written: what was known may no longer hold. */
  forget(): void {
    if (this.holderless.size > 0) this.holderless = new Set();
  }
}

const key = (environmentId: string, subject: string) => `${environmentId}\u0000${subject}`;
