import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEventStoreContract } from '../testing/event-store-contract';
import { StreamVersionConflictError } from '../errors';
import { SqliteEventStore } from './sqlite-event-store';
import { SerialisedEvent } from './event-json';

const dirs = new Map<object, string>();
describeEventStoreContract('sqlite', {
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'es-contract-'));
    const store = new SqliteEventStore({ path: join(dir, 'events.sqlite'), pollIntervalMs: 20 });
    dirs.set(store, dir);
    return store;
  },
  async dispose(store) {
    await store.close();
    rmSync(dirs.get(store)!, { recursive: true, force: true });
  },
});

/** Runs `test` on a store in a fresh directory, then closes the store and removes the directory. */
async function withStore(prefix: string, test: (store: SqliteEventStore) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const store = new SqliteEventStore({ path: join(dir, 'events.sqlite') });
  try {
    await test(store);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('sqlite event store: large appends', () => {
  it('stores an append of many events (several multi-row INSERTs and a remainder) in order, each with its own metadata', async () => {
    await withStore('es-large-', async (store) => {
      const first = { actor: 'a', timestamp: '2026-01-01T00:00:00.000Z', schemaVersion: 1 };
      const second = { actor: 'b', timestamp: '2026-01-01T00:00:01.000Z', schemaVersion: 1 };
      const events = Array.from({ length: 200 }, (_, i) => ({ type: 'Added', data: { i }, metadata: i < 130 ? first : second }));
      await store.append('items-1', [{ type: 'Added', data: { i: -1 }, metadata: first }], 'no_stream');
      const result = await store.append('items-1', events, 0);
      expect(result).toEqual({ streamVersion: 200, position: 201 });
      const read = await store.readStream('items-1', 1);
      expect(read.map((e) => [e.position, e.streamVersion, (e.data as { i: number }).i, e.metadata.actor])).toEqual(
        events.map((e, i) => [i + 2, i + 1, i, i < 130 ? 'a' : 'b']),
      );
      expect(await store.streamVersion('items-1')).toBe(200);
    });
  });

  it('groups the appends that arrive while a transaction is being written into the next one, each checked alone', async () => {
    const meta = { actor: null, timestamp: '2026-01-01T00:00:00.000Z', schemaVersion: 1 };
    const one = (i: number) => [{ type: 'Added', data: { i }, metadata: meta }];
    await withStore('es-group-', async (store) => {
      const first = store.append('s-0', one(0), 'no_stream');
      await new Promise((resolve) => setImmediate(resolve)); // the first transaction is now with the writer
      const more = Array.from({ length: 20 }, (_, i) => store.append(`s-${i + 1}`, one(i + 1), 'no_stream'));
      const conflicting = store.append('s-0', one(99), 'no_stream');
      await expect(conflicting).rejects.toBeInstanceOf(StreamVersionConflictError);
      const results = await Promise.all([first, ...more]);
      expect(results.map((r) => r.position)).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
      expect(results.every((r) => r.streamVersion === 0)).toBe(true);
    });
  });

  it('close answers every append it had accepted before stopping the writer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'es-close-'));
    const path = join(dir, 'events.sqlite');
    const store = new SqliteEventStore({ path });
    const meta = { actor: null, timestamp: '2026-01-01T00:00:00.000Z', schemaVersion: 1 };
    const appends = Array.from({ length: 5 }, (_, i) =>
      store.append(`c-${i}`, [{ type: 'Added', data: { i }, metadata: meta }], 'no_stream'),
    );
    await store.close();
    await expect(Promise.all(appends)).resolves.toHaveLength(5);
    await expect(store.append('c-9', [], 'any')).rejects.toThrow(/closed/);
    const reopened = new SqliteEventStore({ path });
    expect(await reopened.headPosition()).toBe(5);
    await reopened.close();
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('sqlite event store: events as text', () => {
  it('reads a stream as its stored JSON text, and stores an event given as text as it is', async () => {
    await withStore('es-text-', async (store) => {
      const metadata = { actor: 'a', timestamp: '2026-01-01T00:00:00.000Z', schemaVersion: 1 };
      // Spaced as JSON.stringify would not: the text the writer gave is what the log keeps.
      const text = { data: '{"id": "x1", "n": [1, 2]}', metadata: JSON.stringify(metadata) };
      await store.append(
        'items-1',
        [{ type: 'Added', data: { id: 'x0' }, metadata }, new SerialisedEvent('Added', text, metadata)],
        'no_stream',
      );
      const parsed = await store.readStream('items-1', 1);
      const asText = await store.readStreamText('items-1', 0, 10);
      expect(asText.map((e) => e.json.data)).toEqual(['{"id":"x0"}', text.data]);
      expect(asText[1]).toEqual({ position: parsed[0]!.position, streamId: 'items-1', streamVersion: 1, type: 'Added', json: text });
      expect(parsed[0]!.data).toEqual({ id: 'x1', n: [1, 2] });
      expect(await store.readStreamText('items-1', 1, 0)).toEqual([]);
    });
  });
});

describe('sqlite event store: waking subscribers', () => {
  const meta = { actor: null, timestamp: '2026-01-01T00:00:00.000Z', schemaVersion: 1 };
  const one = (type: string) => [{ type, data: {}, metadata: meta }];

  it("wakes a subscriber to some categories on an append of one of them at once, and not on other categories' appends", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'es-wake-'));
    // A poll far longer than the test: only a wake-up can deliver in time.
    const store = new SqliteEventStore({ path: join(dir, 'events.sqlite'), pollIntervalMs: 60_000 });
    const reads = jest.spyOn(Reflect.get(store, 'statements').head as { get(): unknown }, 'get');
    const seen: string[] = [];
    const subscription = store.subscribe({ fromPosition: 0, categories: ['task'] }, async (batch) => {
      seen.push(...batch.map((e) => e.streamId));
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 50)); // caught up (nothing there), waiting
      const readsWhenWaiting = reads.mock.calls.length;
      for (let i = 0; i < 20; i++) await store.append(`environment-${i}`, one('Fact'), 'no_stream');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(reads.mock.calls.length).toBe(readsWhenWaiting);
      await store.append('task-1', one('CopyRequested'), 'no_stream');
      const deadline = Date.now() + 5_000;
      while (seen.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(seen).toEqual(['task-1']);
    } finally {
      await subscription.stop();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
