import { z } from 'zod';
import type { Clock } from '../../shared/clock';
import { inForceAt } from '../../shared/read-models/in-force';
import type { Config } from '../../shared/config';
import type { DocumentStore } from '../../shared/docstore/port';
import { NotFoundError, UnavailableError, ValidationError } from '../../shared/errors';
import { isEventOf, streams } from '../../shared/events';
import type { EventStore } from '../../shared/eventstore/port';
import { AsOfDocumentStore, HistoryCollections } from '../../shared/read-models/history/history';
import { ReadModels, type EnvironmentDoc } from '../../shared/read-models/read-models';

/**
 * `as_of`: a global log position (an integer) or a time (ISO 8601 with an
 * offset), the grammar of the environment copy's `as_of`. A time means the
 * environment's longest prefix of events accepted at or before it.
 */
export const asOfSchema = z.union([z.number().int().min(0), z.iso.datetime({ offset: true })]);
/** The same in a query string, where a position arrives as digits. */
export const asOfQueryValue = z.union([
  z
    .string()
    .regex(/^\d{1,15}$/)
    .transform(Number),
  z.iso.datetime({ offset: true }),
]);
export const asOfQuery = z.object({ as_of: asOfQueryValue.optional() });
export type AsOf = z.infer<typeof asOfSchema>;

/** How far the read models are (the command service's Freshness). */
interface Position {
  readonly position: number;
  waitForPosition(position: number, timeoutMs: number): Promise<boolean>;
}

/** The read side of one environment as it was at a log position. */
export interface PastReads {
  /** The global log position the answers are as of (a time is resolved to one). */
  position: number;
  /** The read models at `position`, with the current API (read-only). */
  readModels: ReadModels;
  /** Their document store (history collections as of `position`). */
  store: DocumentStore;
}

/**
 * Resolves `as_of` for reads and checks, and gives the read models as of then.
 *
 * - A position beyond the log's head is a 422 (as for a copy); one the log has
 *   but the read models have not reached yet is waited for, as with
 *   `X-Min-Event-Position` (503 after `READ_YOUR_WRITES_TIMEOUT_MS`).
 * - A time later than now is a 422 (later events could still be accepted at or
 *   before it); an earlier one is resolved once the read models reached the
 *   log's head.
 * - Before the environment existed (its creation in the organisation's log),
 *   the environment is not found: 404, as for a copy `as_of` then.
 * - Before the history starts, a 422 naming where it starts: only read models an older release
 *   wrote could have a history that starts later than the log (one added to read models already
 *   further); this release rebuilds those (shared/read-models/layout.ts).
 */
export class TimeTravel {
  readonly history: HistoryCollections;
  private readonly created = new Map<string, number>();

  constructor(
    private readonly deps: {
      documentStore: DocumentStore;
      eventStore: EventStore;
      freshness: Position;
      config: Pick<Config, 'READ_YOUR_WRITES_TIMEOUT_MS'>;
      /** The service's clock: "now", beyond which no `as_of` time may be. */
      clock: Clock;
    },
  ) {
    this.history = new HistoryCollections(deps.documentStore);
  }

  /** `where`: where `as_of` came from, for the 422's `loc` (`['query', 'as_of']`, `['body', 'since']`…). */
  async at(env: EnvironmentDoc, asOf: AsOf, where: Array<string | number> = ['query', 'as_of']): Promise<PastReads> {
    const position = await this.resolve(env, asOf, where);
    return this.readsAt(position, typeof asOf === 'number' ? undefined : Date.parse(asOf));
  }

  /**
   * The read models of `env` at an already resolved position, with what was in force at `instant`
   * (docs/expiring-access.md): the time asked for, or by default the time the event at `position`
   * was appended (the instant the log was at that position).
   */
  readsAt(position: number, instant?: number): PastReads {
    const store = new AsOfDocumentStore(this.deps.documentStore, position);
    const at = instant ?? memoized(() => this.appendedAt(position));
    return { position, store, readModels: inForceAt(new ReadModels(store), typeof at === 'number' ? () => at : at) };
  }

  /** When the event at `position` was appended (the clock's now past the log's head, and for an empty log). */
  private async appendedAt(position: number): Promise<number> {
    const [event] = position > 0 ? await this.deps.eventStore.readAll(position - 1, 1) : [];
    return event ? Date.parse(event.metadata.timestamp) : this.deps.clock.now();
  }

  /** The log position `as_of` means for `env`, checked as described above. */
  async resolve(env: EnvironmentDoc, asOf: AsOf, where: Array<string | number>): Promise<number> {
    const invalid = (msg: string) => new ValidationError([{ loc: where, msg, type: 'value_error' }]);
    const since = await this.history.since();
    if (since === null) throw invalid('as_of needs the history read model, which this deployment does not keep (the time-travel feature)');
    let position: number;
    if (typeof asOf === 'number') {
      position = asOf;
      if (position > this.deps.freshness.position) {
        const head = await this.deps.eventStore.headPosition();
        if (position > head) throw invalid(`the log only reaches position ${head}`);
        await this.reach(position);
      }
    } else {
      const time = new Date(asOf).toISOString();
      const now = new Date(this.deps.clock.now()).toISOString();
      if (time > now) throw invalid(`${asOf} is in the future (the time now is ${now})`);
      if (time < utc(env.created_at)) {
        throw new NotFoundError(`Environment '${env.key}' did not exist yet at ${asOf} (it was created at ${env.created_at})`, {
          environment: env.key,
        });
      }
      await this.reach(await this.deps.eventStore.headPosition());
      position = (await this.history.positionAtTime(env.id, time)) ?? this.deps.freshness.position;
    }
    const created = await this.createdAt(env);
    if (position < created) {
      throw new NotFoundError(
        `Environment '${env.key}' did not exist yet at log position ${position} (it was created at position ${created})`,
        { environment: env.key },
      );
    }
    if (position < since) {
      throw invalid(
        `the history read model starts at position ${since} (it was added later; rebuilding the read models from the log keeps all of it)`,
      );
    }
    return position;
  }

  /** The log's head: the position of its last event (0 when empty), which no read model is ever beyond. */
  headPosition(): Promise<number> {
    return this.deps.eventStore.headPosition();
  }

  /** The first position `env` can be read as of: its creation, or the start of the history if later. */
  async earliest(env: EnvironmentDoc): Promise<number> {
    return Math.max(await this.createdAt(env), (await this.history.since()) ?? 0);
  }

  private async reach(position: number): Promise<void> {
    const { freshness, config } = this.deps;
    if (position <= freshness.position) return;
    if (!(await freshness.waitForPosition(position, config.READ_YOUR_WRITES_TIMEOUT_MS))) {
      throw new UnavailableError(`The read models have not reached position ${position} yet; retry shortly`);
    }
  }

  /** The position of the event that created the environment (in its organisation's stream); it never changes. */
  private async createdAt(env: EnvironmentDoc): Promise<number> {
    const known = this.created.get(env.id);
    if (known !== undefined) return known;
    const events = await this.deps.eventStore.readStream(streams.organization(env.organization_id));
    const created = events.find((e) => isEventOf('org', e) && e.type === 'EnvironmentCreated' && e.data.id === env.id);
    const position = created?.position ?? 0;
    if (this.created.size >= 10_000) this.created.clear();
    this.created.set(env.id, position);
    return position;
  }
}

/** `compute`'s value, computed once, on the first call. */
function memoized<T>(compute: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => (value ??= compute());
}

const utc = (time: string): string => {
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? time : new Date(ms).toISOString();
};
