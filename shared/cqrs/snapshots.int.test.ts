import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import pino from 'pino';
import { SqliteEventStore } from '../eventstore/sqlite-event-store';
import type { EventData, EventMetadata } from '../events/envelope';
import { CommandPipeline, snapshotInterval } from './command-pipeline';
import type { Decider } from './decider';
import { CHUNK_ENTRIES, decodeSnapshot, encodeSnapshot, FileSnapshotStore, SNAPSHOT_FORMAT } from './snapshot-store';

type Added = EventData<'Added', { item: string }>;
let folded = 0;
/** Collects items into a Set; counts how many events it folds. */
const items: Decider<{ item: string }, { items: Set<string> }, Added> = {
  initialState: () => ({ items: new Set() }),
  evolve: (state, event) => {
    folded++;
    state.items.add(event.data.item);
    return state;
  },
  decide: (command) => [{ type: 'Added', data: { item: command.item } }],
};
const meta: EventMetadata = { actor: null, timestamp: '2026-01-01T00:00:00.000Z', schemaVersion: 1 };
const silent = pino({ level: 'silent' });

describe('command-state snapshots', () => {
  const dir = mkdtempSync(join(tmpdir(), 'snapshots-'));
  const store = new SqliteEventStore({ path: join(dir, 'events.sqlite') });
  const snapshots = new FileSnapshotStore(join(dir, 'snapshots'));
  afterAll(() => store.close());

  /** Periodic saves run in the background; wait until the file holds `version`. */
  async function waitForSnapshotVersion(streamId: string, version: number) {
    for (let i = 0; i < 500 && (await snapshots.load(streamId))?.version !== version; i++) await new Promise((r) => setTimeout(r, 10));
    expect((await snapshots.load(streamId))?.version).toBe(version);
  }

  it('a new process folds only the events after the latest snapshot', async () => {
    const writer = new CommandPipeline(store, items, silent, null, { store: snapshots, every: 10 });
    for (let i = 0; i < 25; i++) await writer.execute('items-1', { item: `i${i}` }, meta);
    // Periodic snapshots at versions 9 and 19 (written in the background); 5 events after the last one.
    await waitForSnapshotVersion('items-1', 19);
    const restarted = new CommandPipeline(store, items, silent, null, { store: snapshots, every: 10 });
    folded = 0;
    const state = await restarted.currentState('items-1');
    expect(folded).toBe(5);
    expect([...state.items].sort()).toEqual(Array.from({ length: 25 }, (_, i) => `i${i}`).sort());
  });

  it('flushes on shutdown so the next start folds nothing', async () => {
    const writer = new CommandPipeline(store, items, silent, null, { store: snapshots, every: 1000 });
    for (let i = 0; i < 3; i++) await writer.execute('items-2', { item: `j${i}` }, meta);
    await writer.flushSnapshots();
    const restarted = new CommandPipeline(store, items, silent, null, { store: snapshots, every: 1000 });
    folded = 0;
    expect((await restarted.currentState('items-2')).items.size).toBe(3);
    expect(folded).toBe(0);
  });

  it('ignores a snapshot that is ahead of the log (it belongs to another log)', async () => {
    await snapshots.save('items-3', 99, { items: new Set(['ghost']) });
    const pipeline = new CommandPipeline(store, items, silent, null, { store: snapshots, every: 1000 });
    await pipeline.execute('items-3', { item: 'real' }, meta);
    expect([...(await pipeline.currentState('items-3')).items]).toEqual(['real']);
  });

  it('ignores a snapshot of an older format (a state of another shape) and folds the log instead', async () => {
    const pipeline = new CommandPipeline(store, items, silent, null, { store: snapshots, every: 1000 });
    await pipeline.execute('items-4', { item: 'real' }, meta);
    writeFileSync(
      join(dir, 'snapshots', 'items-4.snapshot'),
      serialize({ format: SNAPSHOT_FORMAT - 1, streamId: 'items-4', version: 0, state: { items: new Set(['old shape']) } }),
    );
    expect(await snapshots.load('items-4')).toBeNull();
    const restarted = new CommandPipeline(store, items, silent, null, { store: snapshots, every: 1000 });
    expect([...(await restarted.currentState('items-4')).items]).toEqual(['real']);
  });

  it("saves and loads through the decider's own snapshot form when it has one", async () => {
    type Boxed = { box: { items: Set<string> } };
    const boxed: Decider<{ item: string }, Boxed, Added> = {
      initialState: () => ({ box: { items: new Set() } }),
      evolve: (state, event) => (state.box.items.add(event.data.item), state),
      decide: (command) => [{ type: 'Added', data: { item: command.item } }],
      snapshot: { toData: (state) => [...state.box.items], fromData: (data) => ({ box: { items: new Set(data as string[]) } }) },
    };
    const writer = new CommandPipeline(store, boxed, silent, null, { store: snapshots, every: 1000 });
    await writer.execute('items-5', { item: 'a' }, meta);
    await writer.flushSnapshots();
    expect((await snapshots.load('items-5'))?.state).toEqual(['a']);
    const restarted = new CommandPipeline(store, boxed, silent, null, { store: snapshots, every: 1000 });
    expect([...(await restarted.currentState('items-5')).box.items]).toEqual(['a']);
  });
});

describe('snapshot interval', () => {
  it('is `every` on a short stream and a quarter of the stream on a long one', () => {
    expect(snapshotInterval(20_000, -1)).toBe(20_000);
    expect(snapshotInterval(20_000, 79_999)).toBe(20_000);
    expect(snapshotInterval(20_000, 399_999)).toBe(100_000);
    expect(snapshotInterval(10, 19)).toBe(10);
  });
});

describe('snapshot saves', () => {
  it('write one file per stream at a time; a save waiting behind a slow write is replaced by a newer one and resolves with it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'snapshots-slow-'));
    const written: number[] = [];
    let writing = 0;
    let mostAtOnce = 0;
    const gates: Array<() => void> = [];
    class SlowDisk extends FileSnapshotStore {
      protected override async write(streamId: string, bytes: Buffer[]): Promise<void> {
        writing++;
        mostAtOnce = Math.max(mostAtOnce, writing);
        await new Promise<void>((resolve) => gates.push(resolve));
        await super.write(streamId, bytes);
        written.push((deserialize(bytes[0]!) as { version: number }).version);
        writing--;
      }
    }
    const store = new SlowDisk(dir);
    const saves = [0, 1, 2, 3].map((version) => store.save('items-slow', version, { items: new Set([`v${version}`]) }));
    await new Promise((r) => setTimeout(r, 20));
    expect(gates).toHaveLength(1); // version 0 is being written; 3 waits, having replaced 1 and 2
    gates.shift()!();
    for (let i = 0; i < 100 && gates.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    gates.shift()!();
    await Promise.all(saves);
    expect(written).toEqual([0, 3]);
    expect(mostAtOnce).toBe(1);
    expect((await store.load('items-slow'))?.version).toBe(3);
    expect(readdirSync(dir)).toEqual(['items-slow.snapshot']);
  });
});

describe('large states', () => {
  const large = () => ({
    small: new Map([['a', 1]]),
    big: new Map(Array.from({ length: 2 * CHUNK_ENTRIES + 7 }, (_, i) => [`k${i}`, { n: i }] as const)),
    set: new Set(['x']),
    bytes: Buffer.from('slab'),
  });

  it('load a large Map a chunk at a time, letting the event loop run between chunks, and get back the same state', async () => {
    const state = large();
    const bytes = Buffer.concat(encodeSnapshot('items-big', 7, state));
    let turns = 0;
    const loaded = await decodeSnapshot(bytes, 'items-big', async () => {
      turns++;
      await new Promise((resolve) => setImmediate(resolve));
    });
    expect(turns).toBe(3);
    expect(loaded?.version).toBe(7);
    const back = loaded!.state as ReturnType<typeof large>;
    expect([...back.big]).toEqual([...state.big]);
    expect(back.small).toEqual(state.small);
    expect(back.set).toEqual(state.set);
    expect(Buffer.from(back.bytes).toString()).toBe('slab');
  });

  it('round-trip through the file store, and a file cut short is no snapshot', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'snapshots-big-'));
    const store = new FileSnapshotStore(dir);
    await store.save('items-big', 3, large());
    expect(((await store.load('items-big'))?.state as ReturnType<typeof large>).big.size).toBe(2 * CHUNK_ENTRIES + 7);
    const parts = encodeSnapshot('items-big', 4, large());
    const whole = Buffer.concat(parts);
    // The last chunk's bytes gone, the trailer kept; then the trailer gone too.
    writeFileSync(
      join(dir, 'items-big.snapshot'),
      Buffer.concat([whole.subarray(0, whole.length - 100), whole.subarray(whole.length - 4)]),
    );
    expect(await store.load('items-big')).toBeNull();
    writeFileSync(join(dir, 'items-big.snapshot'), whole.subarray(0, whole.length - 1));
    expect(await store.load('items-big')).toBeNull();
    writeFileSync(join(dir, 'items-big.snapshot'), whole);
    expect((await store.load('items-big'))?.version).toBe(4);
  });
});
