import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  START,
  StreamNotFoundError,
  excludeSystemEvents,
  jsonEvent,
  streamNameFilter,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type JSONType,
} from '@eventstore/db-client';
import { randomUUID } from 'node:crypto';
import { StreamVersionConflictError } from '../errors';
import type { NewEvent, RecordedEvent } from '../events/envelope';
import {
  inCategories,
  isTransient,
  positionOf,
  toExpectedRevision,
  toPosition,
  toRecorded,
  translateError,
  versionNumber,
} from './eventstoredb-mapping';
import type { AppendObserver, AppendResult, EventStore, ExpectedVersion, SubscribeOptions, Subscription } from './port';
import { batchSizeAfter } from './catch-up-subscription';

export interface EventStoreDbOptions {
  /** e.g. `esdb://localhost:2113?tls=false` (this client takes the `esdb://` and `esdb+discover://` schemes). */
  connectionString: string;
  /** Tries per read or append when the server is unreachable (with backoff). Default 4. */
  attempts?: number;
  /** Told each append's latency and size (metrics; each append is its own write on EventStoreDB). */
  observer?: AppendObserver;
}

const RESUBSCRIBE_MIN_MS = 100;
const RESUBSCRIBE_MAX_MS = 5000;

/**
 * The event store on EventStoreDB / KurrentDB (`@eventstore/db-client`).
 *
 * - `append` sends the expected revision (ESDB revisions start at 0 like our
 *   versions) and translates `WrongExpectedVersionError` into our
 *   StreamVersionConflictError. Event ids are chosen here and reused when an
 *   append is retried after a connection failure, so ESDB's idempotent-write
 *   check stops a retry from appending twice.
 * - Positions are ESDB commit positions (see eventstoredb-mapping.ts). They
 *   are reported on stream reads by EventStoreDB 22.10+ and KurrentDB; an older
 *   server is refused with an error that says so.
 * - `readAll`/`headPosition` skip system streams (`$…`); `subscribe` is a
 *   catch-up subscription to `$all`, filtered on the server (stream-name
 *   prefixes for categories, no system events otherwise), resubscribing from
 *   the last delivered position with backoff when the connection drops.
 */
export class EventStoreDbEventStore implements EventStore {
  private readonly attempts: number;
  private readonly observer: AppendObserver | null;

  private constructor(
    private readonly client: EventStoreDBClient,
    options: EventStoreDbOptions,
  ) {
    this.attempts = options.attempts ?? 4;
    this.observer = options.observer ?? null;
  }

  /** Connects and checks the server answers (reads the head of `$all`). */
  static async connect(options: EventStoreDbOptions): Promise<EventStoreDbEventStore> {
    return EventStoreDbEventStore.withClient(EventStoreDBClient.connectionString(options.connectionString), options);
  }

  /** Over a given client (tests pass a stand-in that behaves like the server). */
  static async withClient(
    client: EventStoreDBClient,
    options: Omit<EventStoreDbOptions, 'connectionString'> = {},
  ): Promise<EventStoreDbEventStore> {
    const store = new EventStoreDbEventStore(client, { connectionString: '', ...options });
    try {
      await store.headPosition();
    } catch (error) {
      await store.close();
      throw error;
    }
    return store;
  }

  async append(streamId: string, events: NewEvent[], expected: ExpectedVersion): Promise<AppendResult> {
    if (events.length === 0) {
      const current = await this.streamVersion(streamId);
      const wanted = expected === 'no_stream' ? -1 : expected;
      if (wanted !== 'any' && wanted !== current) throw new StreamVersionConflictError(streamId, wanted, current);
      return { streamVersion: current, position: 0 };
    }
    if (!this.observer) return this.appendEvents(streamId, events, expected);
    const asked = performance.now();
    try {
      const result = await this.appendEvents(streamId, events, expected);
      this.observer.committed(1, events.length);
      return result;
    } finally {
      this.observer.appended((performance.now() - asked) / 1000);
    }
  }

  private async appendEvents(streamId: string, events: NewEvent[], expected: ExpectedVersion): Promise<AppendResult> {
    const data = events.map((e) => jsonEvent({ id: randomUUID(), type: e.type, data: e.data as JSONType, metadata: e.metadata }));
    const result = await this.retrying(streamId, expected, () =>
      this.client.appendToStream(streamId, data, { expectedRevision: toExpectedRevision(expected) }),
    );
    const streamVersion = versionNumber(result.nextExpectedRevision);
    // One event: the append's position is the event's. Several: read the last one back (its own position).
    let position = events.length === 1 && result.position ? Number(result.position.commit) : null;
    if (position === null) position = (await this.readStream(streamId, streamVersion, 1))[0]?.position ?? 0;
    return { streamVersion, position };
  }

  async readStream(streamId: string, fromVersion = 0, limit = Number.MAX_SAFE_INTEGER): Promise<RecordedEvent[]> {
    if (limit <= 0) return [];
    return this.retrying(streamId, undefined, async () => {
      const out: RecordedEvent[] = [];
      try {
        for await (const resolved of this.client.readStream(streamId, {
          fromRevision: BigInt(fromVersion),
          maxCount: limit,
          direction: FORWARDS,
        })) {
          if (!resolved.event) continue;
          const position = positionOf(resolved.event);
          if (position === null) {
            throw new Error(
              'EventStoreDB did not report the position of an event read from its stream: this adapter needs EventStoreDB 22.10 or later, or KurrentDB',
            );
          }
          out.push(toRecorded(resolved.event, position));
        }
      } catch (error) {
        if (error instanceof StreamNotFoundError) return [];
        throw error;
      }
      return out;
    });
  }

  async streamVersion(streamId: string): Promise<number> {
    return this.retrying(streamId, undefined, async () => {
      try {
        for await (const resolved of this.client.readStream(streamId, { fromRevision: END, direction: BACKWARDS, maxCount: 1 })) {
          if (resolved.event) return Number(resolved.event.revision);
        }
      } catch (error) {
        if (error instanceof StreamNotFoundError) return -1;
        throw error;
      }
      return -1;
    });
  }

  async readAll(fromPosition: number, limit: number): Promise<RecordedEvent[]> {
    if (limit <= 0) return [];
    return this.retrying('$all', undefined, async () => {
      const out: RecordedEvent[] = [];
      const read = this.client.readAll({
        fromPosition: fromPosition > 0 ? toPosition(fromPosition) : START,
        direction: FORWARDS,
        maxCount: Number.MAX_SAFE_INTEGER,
      });
      for await (const resolved of read) {
        const recorded = ours(resolved, null);
        // A read from a position includes the event at that position; ours is exclusive.
        if (recorded && recorded.position > fromPosition) out.push(recorded);
        if (out.length >= limit) break;
      }
      return out;
    });
  }

  async headPosition(): Promise<number> {
    return this.retrying('$all', undefined, async () => {
      for await (const resolved of this.client.readAll({ fromPosition: END, direction: BACKWARDS, maxCount: Number.MAX_SAFE_INTEGER })) {
        const recorded = ours(resolved, null);
        if (recorded) return recorded.position;
      }
      return 0;
    });
  }

  subscribe(options: SubscribeOptions, handler: (events: RecordedEvent[]) => Promise<void>): Subscription {
    const categories = options.categories ? new Set(options.categories) : null;
    const filter = options.categories ? streamNameFilter({ prefixes: options.categories.map((c) => `${c}-`) }) : excludeSystemEvents();
    let position = options.fromPosition;
    let stopped = false;
    let current: AllStreamSubscription | null = null;

    const running = (async () => {
      for (let backoff = RESUBSCRIBE_MIN_MS; !stopped; backoff = Math.min(backoff * 2, RESUBSCRIBE_MAX_MS)) {
        const subscription = this.client.subscribeToAll({ fromPosition: position > 0 ? toPosition(position) : START, filter });
        // Errors reach the loop through the iterator; this keeps a late one (after the loop left) from crashing the process.
        subscription.on('error', () => undefined);
        current = subscription;
        try {
          for await (const first of subscription) {
            if (stopped) break;
            backoff = RESUBSCRIBE_MIN_MS;
            const batch = [first, ...drain(subscription, batchSizeAfter(options, position) - 1)];
            const events = batch.flatMap((r) => {
              const recorded = ours(r, categories);
              return recorded && recorded.position > position ? [recorded] : [];
            });
            if (events.length === 0) continue;
            try {
              await handler(events);
            } catch (error) {
              // A failing handler ends the subscription (the port's rule); its owner decides what next.
              stopped = true;
              options.onError?.(error);
              break;
            }
            position = events.at(-1)!.position;
          }
          if (!stopped) throw new Error('the EventStoreDB subscription ended');
        } catch (error) {
          if (stopped) break;
          options.onError?.(translateError(error, '$all'));
          await sleep(backoff, () => stopped);
        } finally {
          current = null;
          await subscription.unsubscribe().catch(() => undefined);
          subscription.destroy();
        }
      }
    })();

    return {
      async stop() {
        stopped = true;
        const live = current;
        if (live) {
          await live.unsubscribe().catch(() => undefined);
          live.destroy();
        }
        await running;
      },
    };
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }

  /** Runs an operation, retrying with backoff while the server is unreachable; translates the final error. */
  private async retrying<R>(streamId: string, expected: ExpectedVersion | undefined, operation: () => Promise<R>): Promise<R> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await operation();
      } catch (error) {
        if (!isTransient(error) || attempt >= this.attempts) throw translateError(error, streamId, expected);
        await sleep(100 * 2 ** (attempt - 1), () => false);
      }
    }
  }
}

/** Our event, or null for what is not ours (system streams, other categories, unresolved links). */
function ours(resolved: AllStreamResolvedEvent, categories: Set<string> | null): RecordedEvent | null {
  const event = resolved.event;
  if (!event || !inCategories(event.streamId, categories)) return null;
  const position = positionOf(event);
  return position === null ? null : toRecorded(event, position);
}

/** What the subscription already holds in its buffer, without waiting. */
function drain(subscription: AllStreamSubscription, max: number): AllStreamResolvedEvent[] {
  const out: AllStreamResolvedEvent[] = [];
  while (out.length < max && subscription.readableLength > 0) {
    const next = subscription.read() as AllStreamResolvedEvent | null;
    if (next === null) break;
    out.push(next);
  }
  return out;
}

function sleep(ms: number, cancelled: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const started = Date.now();
    const tick = () => (cancelled() || Date.now() - started >= ms ? resolve() : setTimeout(tick, Math.min(50, ms)));
    tick();
  });
}
