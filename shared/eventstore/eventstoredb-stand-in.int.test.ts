import {
  StreamNotFoundError,
  UnavailableError as EsdbUnavailableError,
  WrongExpectedVersionError,
  type AppendExpectedRevision,
  type EventData,
  type EventStoreDBClient,
  type Filter,
  type Position,
  type ReadPosition,
  type ReadRevision,
} from '@eventstore/db-client';
import { PassThrough } from 'node:stream';
import { UnavailableError } from '../errors';
import { describeEventStoreContract } from '../testing/event-store-contract';
import { EventStoreDbEventStore } from './eventstoredb-event-store';

/**
 * The EventStoreDB adapter against an in-memory stand-in for the client, as
 * the server behaves: revisions from 0, positions growing by the record size
 * with commit = prepare, system streams (`$…`) interleaved in `$all` (link
 * events of the by-category projection), `$all` reads inclusive of their
 * start position and subscriptions exclusive, a multi-event append answering
 * with the first event's position, errors raised while iterating.
 *
 * This checks the adapter's own logic (translations, filtering, batching,
 * resubscription); it is no substitute for the contract run against a real
 * server (eventstoredb-event-store.e2e.test.ts), which needs one.
 */
interface StoredEvent {
  streamId: string;
  id: string;
  revision: bigint;
  type: string;
  data: unknown;
  metadata: unknown;
  isJson: true;
  created: Date;
  position: Position;
}

class StandInClient {
  readonly log: StoredEvent[] = [];
  private readonly streams = new Map<string, StoredEvent[]>();
  private readonly subscribers = new Set<{ push(e: StoredEvent): void }>();
  private nextPosition = 1000n;
  /** Makes the next `n` calls fail as an unreachable server would. */
  unavailableCalls = 0;

  private write(streamId: string, type: string, data: unknown, metadata: unknown, id: string): StoredEvent {
    const stream = this.streams.get(streamId) ?? [];
    this.streams.set(streamId, stream);
    const position = this.nextPosition;
    this.nextPosition += 137n;
    const event: StoredEvent = {
      streamId,
      id,
      revision: BigInt(stream.length),
      type,
      data,
      metadata,
      isJson: true,
      created: new Date(),
      position: { commit: position, prepare: position },
    };
    stream.push(event);
    this.log.push(event);
    for (const subscriber of this.subscribers) subscriber.push(event);
    return event;
  }

  private failIfDown(): void {
    if (this.unavailableCalls > 0) {
      this.unavailableCalls--;
      throw new EsdbUnavailableError({ code: 14, details: 'connection refused', message: '14 UNAVAILABLE: connection refused' } as never);
    }
  }

  async appendToStream(streamId: string, events: EventData[], options: { expectedRevision: AppendExpectedRevision }) {
    this.failIfDown();
    const stream = this.streams.get(streamId);
    const current = stream ? BigInt(stream.length - 1) : 'no_stream';
    const expected = options.expectedRevision;
    const ok =
      expected === 'any' ||
      (expected === 'no_stream' ? current === 'no_stream' : expected === 'stream_exists' ? current !== 'no_stream' : expected === current);
    if (!ok) throw new WrongExpectedVersionError(undefined, { streamName: streamId, expected, current } as never);
    const written = events.map((e) => this.write(streamId, e.type, e.data, e.metadata, e.id));
    const category = streamId.split('-')[0]!;
    for (const event of written) this.write(`$ce-${category}`, '$>', `${event.revision}@${streamId}`, {}, `link-${event.id}`);
    return { success: true, nextExpectedRevision: written.at(-1)!.revision, position: written[0]!.position };
  }

  readStream(streamId: string, options: { fromRevision?: ReadRevision; maxCount?: number | bigint; direction?: string }) {
    const out = new PassThrough({ objectMode: true });
    setImmediate(() => {
      try {
        this.failIfDown();
      } catch (error) {
        out.destroy(error as Error);
        return;
      }
      const stream = this.streams.get(streamId);
      if (!stream) {
        out.destroy(new StreamNotFoundError(undefined, streamId));
        return;
      }
      const forwards = options.direction !== 'backwards';
      let events = forwards ? [...stream] : [...stream].reverse();
      const from = options.fromRevision ?? (forwards ? 'start' : 'end');
      if (typeof from === 'bigint') events = events.filter((e) => (forwards ? e.revision >= from : e.revision <= from));
      for (const event of events.slice(0, Number(options.maxCount ?? Number.MAX_SAFE_INTEGER))) out.write({ event });
      out.end();
    });
    return out;
  }

  readAll(options: { fromPosition?: ReadPosition; maxCount?: number | bigint; direction?: string }) {
    const out = new PassThrough({ objectMode: true });
    setImmediate(() => {
      try {
        this.failIfDown();
      } catch (error) {
        out.destroy(error as Error);
        return;
      }
      const forwards = options.direction !== 'backwards';
      let events = forwards ? [...this.log] : [...this.log].reverse();
      const from = options.fromPosition ?? (forwards ? 'start' : 'end');
      if (typeof from === 'object')
        events = events.filter((e) => (forwards ? e.position.commit >= from.commit : e.position.commit <= from.commit));
      for (const event of events.slice(0, Number(options.maxCount ?? Number.MAX_SAFE_INTEGER))) out.write({ event });
      out.end();
    });
    return out;
  }

  subscribeToAll(options: { fromPosition?: ReadPosition; filter?: Filter }) {
    const out = Object.assign(new PassThrough({ objectMode: true }), { unsubscribe: async () => void out.end() });
    const filter = options.filter as { filterOn: string; prefixes?: string[]; regex?: string } | undefined;
    const wanted = (e: StoredEvent) => {
      if (!filter) return true;
      const subject = filter.filterOn === 'streamName' ? e.streamId : e.type;
      return filter.prefixes ? filter.prefixes.some((p) => subject.startsWith(p)) : new RegExp(filter.regex!).test(subject);
    };
    const from = options.fromPosition ?? 'start';
    const subscriber = {
      push: (e: StoredEvent) => {
        if (!out.writableEnded && wanted(e)) out.write({ event: e });
      },
    };
    out.on('close', () => this.subscribers.delete(subscriber));
    setImmediate(() => {
      try {
        this.failIfDown();
      } catch (error) {
        out.destroy(error as Error);
        return;
      }
      for (const e of this.log) if (from === 'start' || (typeof from === 'object' && e.position.commit > from.commit)) subscriber.push(e);
      this.subscribers.add(subscriber);
    });
    return out;
  }

  /** Breaks every live subscription, as a dropped connection would. */
  dropSubscriptions(): void {
    for (const subscriber of [...this.subscribers]) subscriber.push = () => undefined;
    this.subscribers.clear();
    for (const s of this.live)
      s.destroy(new EsdbUnavailableError({ code: 14, details: 'dropped', message: '14 UNAVAILABLE: dropped' } as never));
  }

  readonly live = new Set<PassThrough>();

  async dispose(): Promise<void> {
    this.subscribers.clear();
  }
}

/** A stand-in that also tracks its subscriptions, so a test can drop them. */
function standIn(): StandInClient {
  const client = new StandInClient();
  const subscribe = client.subscribeToAll.bind(client);
  client.subscribeToAll = (options) => {
    const s = subscribe(options);
    client.live.add(s);
    s.on('close', () => client.live.delete(s));
    return s;
  };
  return client;
}

const asClient = (client: StandInClient) => client as unknown as EventStoreDBClient;

describeEventStoreContract('eventstoredb adapter over a client stand-in', {
  create: () => EventStoreDbEventStore.withClient(asClient(standIn())),
  dispose: (store) => store.close(),
});

describe('EventStoreDbEventStore over a client stand-in', () => {
  const metadata = { actor: null, timestamp: '2026-01-01T00:00:00.000Z', schemaVersion: 1 };
  const event = (n: number) => ({ type: 'E', data: { n }, metadata });

  it('reports the position of the last event of a multi-event append (read back), not the first', async () => {
    const client = standIn();
    const store = await EventStoreDbEventStore.withClient(asClient(client));
    const result = await store.append('env-a', [event(1), event(2), event(3)], 'no_stream');
    const read = await store.readStream('env-a');
    expect(result).toEqual({ streamVersion: 2, position: read[2]!.position });
    expect(await store.headPosition()).toBe(read[2]!.position);
  });

  it('never shows system events, and reads $all exclusively of its start position', async () => {
    const client = standIn();
    const store = await EventStoreDbEventStore.withClient(asClient(client));
    await store.append('env-a', [event(1), event(2)], 'no_stream');
    await store.append('task-b', [event(3)], 'no_stream');
    expect(client.log.some((e) => e.streamId.startsWith('$'))).toBe(true);
    const all = await store.readAll(0, 100);
    expect(all.map((e) => e.streamId)).toEqual(['env-a', 'env-a', 'task-b']);
    expect((await store.readAll(all[0]!.position, 1)).map((e) => e.data)).toEqual([{ n: 2 }]);
  });

  it('retries a read while the server is unreachable, and reports UnavailableError when it stays so', async () => {
    const client = standIn();
    const store = await EventStoreDbEventStore.withClient(asClient(client), { attempts: 3 });
    await store.append('env-a', [event(1)], 'no_stream');
    client.unavailableCalls = 2;
    expect(await store.readStream('env-a')).toHaveLength(1);
    client.unavailableCalls = 5;
    await expect(store.readStream('env-a')).rejects.toBeInstanceOf(UnavailableError);
  });

  it('resubscribes from the last delivered position when the connection drops, losing and repeating nothing', async () => {
    const client = standIn();
    const store = await EventStoreDbEventStore.withClient(asClient(client));
    const seen: number[] = [];
    const errors: unknown[] = [];
    const subscription = store.subscribe({ fromPosition: 0, onError: (e) => errors.push(e) }, async (batch) => {
      seen.push(...batch.map((e) => (e.data as { n: number }).n));
    });
    await store.append('env-a', [event(1), event(2)], 'no_stream');
    await waitFor(() => seen.length === 2);
    client.dropSubscriptions();
    await store.append('env-a', [event(3)], 1);
    await waitFor(() => seen.length === 3);
    await store.append('env-a', [event(4)], 2);
    await waitFor(() => seen.length === 4);
    await subscription.stop();
    expect(seen).toEqual([1, 2, 3, 4]);
    expect(errors[0]).toBeInstanceOf(UnavailableError);
  });

  it('stops the subscription when the handler throws, and says why', async () => {
    const client = standIn();
    const store = await EventStoreDbEventStore.withClient(asClient(client));
    const errors: unknown[] = [];
    let calls = 0;
    const subscription = store.subscribe({ fromPosition: 0, onError: (e) => errors.push(e) }, async () => {
      calls++;
      throw new Error('projection failed');
    });
    await store.append('env-a', [event(1)], 'no_stream');
    await waitFor(() => errors.length === 1);
    await store.append('env-a', [event(2)], 0);
    await new Promise((r) => setTimeout(r, 100));
    await subscription.stop();
    expect(calls).toBe(1);
    expect((errors[0] as Error).message).toBe('projection failed');
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
