import { StreamVersionConflictError } from '../errors';
import type { NewEvent, RecordedEvent } from '../events/envelope';
import type { EventStore } from '../eventstore/port';

export interface EventStoreHarness {
  /** A fresh, empty store (or one whose stream ids are unique to this test). */
  create(): Promise<EventStore>;
  /** Called after each test with the store create() returned. */
  dispose?(store: EventStore): Promise<void>;
}

let counter = 0;
/** Stream ids unique per test, so engines whose stores cannot be emptied still run the suite. */
const uniqueStream = (category: string) => `${category}-${process.pid}-${Date.now()}-${++counter}`;

const event = (type: string, n: number): NewEvent => ({
  type,
  data: { n },
  metadata: { actor: 'key-1', requestId: `req-${n}`, correlationId: 'corr', timestamp: '2026-01-01T00:00:00.000Z', schemaVersion: 1 },
});

/**
 * The behaviour every EventStore adapter must have. An adapter's test file runs
 * it in a few lines: `describeEventStoreContract('sqlite', harness)`.
 */
export function describeEventStoreContract(name: string, harness: EventStoreHarness): void {
  describe(`EventStore contract: ${name}`, () => {
    let store: EventStore;
    beforeEach(async () => {
      store = await harness.create();
    });
    afterEach(async () => {
      await harness.dispose?.(store);
    });

    it('appends to a new stream and reads it back in order with versions from 0', async () => {
      const stream = uniqueStream('env');
      const result = await store.append(stream, [event('A', 1), event('B', 2)], 'no_stream');
      expect(result.streamVersion).toBe(1);
      const read = await store.readStream(stream);
      expect(read.map((e) => [e.type, e.streamVersion, e.data])).toEqual([
        ['A', 0, { n: 1 }],
        ['B', 1, { n: 2 }],
      ]);
      expect(read[1]!.position).toBe(result.position);
      expect(read[0]!.position).toBeLessThan(read[1]!.position);
      expect(read[0]!.metadata).toEqual(event('A', 1).metadata);
      expect(await store.streamVersion(stream)).toBe(1);
    });

    it('refuses an append at the wrong expected version and appends nothing', async () => {
      const stream = uniqueStream('env');
      await store.append(stream, [event('A', 1)], 'no_stream');
      await expect(store.append(stream, [event('B', 2)], 5)).rejects.toBeInstanceOf(StreamVersionConflictError);
      await expect(store.append(stream, [event('B', 2)], 'no_stream')).rejects.toBeInstanceOf(StreamVersionConflictError);
      await expect(store.append(uniqueStream('env'), [event('B', 2)], 0)).rejects.toBeInstanceOf(StreamVersionConflictError);
      expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['A']);
    });

    it('appends at the expected version and with any', async () => {
      const stream = uniqueStream('env');
      await store.append(stream, [event('A', 1)], 'no_stream');
      await store.append(stream, [event('B', 2)], 0);
      await store.append(stream, [event('C', 3)], 'any');
      expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['A', 'B', 'C']);
      expect(await store.streamVersion(uniqueStream('env'))).toBe(-1);
    });

    it('lets exactly one of two concurrent appends at the same version win', async () => {
      const stream = uniqueStream('env');
      await store.append(stream, [event('A', 1)], 'no_stream');
      const results = await Promise.allSettled([store.append(stream, [event('B', 2)], 0), store.append(stream, [event('C', 3)], 0)]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(rejected.reason).toBeInstanceOf(StreamVersionConflictError);
      expect(await store.readStream(stream)).toHaveLength(2);
    });

    it('reads a stream from a version with a limit', async () => {
      const stream = uniqueStream('env');
      await store.append(
        stream,
        [1, 2, 3, 4, 5].map((n) => event('E', n)),
        'no_stream',
      );
      const read = await store.readStream(stream, 2, 2);
      expect(read.map((e) => (e.data as { n: number }).n)).toEqual([3, 4]);
    });

    it('reads all streams from a global position in order, and knows the head', async () => {
      const before = await store.headPosition();
      const s1 = uniqueStream('env');
      const s2 = uniqueStream('org');
      await store.append(s1, [event('A', 1)], 'no_stream');
      await store.append(s2, [event('B', 2)], 'no_stream');
      const last = await store.append(s1, [event('C', 3)], 0);
      expect(await store.headPosition()).toBe(last.position);
      const all = (await store.readAll(before, 1000)).filter((e) => e.streamId === s1 || e.streamId === s2);
      expect(all.map((e) => e.type)).toEqual(['A', 'B', 'C']);
      const positions = all.map((e) => e.position);
      expect([...positions].sort((a, b) => a - b)).toEqual(positions);
      const afterFirst = await store.readAll(all[0]!.position, 1000);
      expect(afterFirst.map((e) => e.position)).not.toContain(all[0]!.position);
      expect(await store.readAll(before, 1)).toHaveLength(1);
    });

    it('subscribes: delivers past events after the position, then new ones, in order', async () => {
      const stream = uniqueStream('env');
      await store.append(stream, [event('A', 1), event('B', 2)], 'no_stream');
      const start = (await store.readStream(stream))[0]!.position;
      const seen: RecordedEvent[] = [];
      const subscription = store.subscribe({ fromPosition: start }, async (batch) => {
        seen.push(...batch.filter((e) => e.streamId === stream));
      });
      await store.append(stream, [event('C', 3)], 1);
      await waitFor(() => seen.length >= 2);
      await subscription.stop();
      expect(seen.map((e) => e.type)).toEqual(['B', 'C']);
    });

    it('subscribes to chosen stream categories only', async () => {
      const taskStream = uniqueStream('task');
      const envStream = uniqueStream('env');
      const from = await store.headPosition();
      const seen: string[] = [];
      const subscription = store.subscribe({ fromPosition: from, categories: ['task'] }, async (batch) => {
        seen.push(...batch.map((e) => e.streamId));
      });
      await store.append(envStream, [event('E', 1)], 'no_stream');
      await store.append(taskStream, [event('T', 2)], 'no_stream');
      await waitFor(() => seen.includes(taskStream));
      await subscription.stop();
      expect(seen).not.toContain(envStream);
    });
  });
}

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
