import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEventStoreContract } from '../testing/event-store-contract';
import { SqliteEventStore } from './sqlite-event-store';

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

describe('sqlite event store: large appends', () => {
  it('stores an append of many events (several multi-row INSERTs and a remainder) in order, each with its own metadata', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'es-large-'));
    const store = new SqliteEventStore({ path: join(dir, 'events.sqlite') });
    try {
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
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
