import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { SqliteDocumentStore } from '../shared/docstore/sqlite-document-store';
import { SqliteEventStore } from '../shared/eventstore/sqlite-event-store';
import type { Projection } from '../shared/read-models/projection';
import { ANSWERS, answersCheckpoint } from '../shared/read-models/answer-changes';
import { ProjectionRunner } from './runner';

const metadata = { actor: 't', timestamp: '2026-01-01T00:00:00.000Z', schemaVersion: 1 };
const events = (n: number) => Array.from({ length: n }, (_, i) => ({ type: 'Noted', data: { i }, metadata }));

describe('projection runner', () => {
  let dir: string;
  let eventStore: SqliteEventStore;
  let documentStore: SqliteDocumentStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'runner-'));
    eventStore = new SqliteEventStore({ path: join(dir, 'events.sqlite'), pollIntervalMs: 20 });
    documentStore = new SqliteDocumentStore(join(dir, 'read-models.sqlite'));
  });
  afterEach(async () => {
    await eventStore.close();
    await documentStore.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A projection that handles nothing but is shown every batch: the sizes the runner took. */
  function recorder(): { projection: Projection; sizes: number[] } {
    const sizes: number[] = [];
    return {
      sizes,
      projection: {
        name: 'sizes',
        version: 1,
        handles: new Set(),
        apply: async () => undefined,
        prepare: async (b) => void sizes.push(b.length),
      },
    };
  }

  it('stops for good, and says so once through onFailed, when another runner moved its checkpoint', async () => {
    await eventStore.append('notes-1', events(3), 'no_stream');
    const failures: unknown[] = [];
    const runner = new ProjectionRunner(eventStore, documentStore, [recorder().projection], pino({ level: 'silent' }), {
      onFailed: (error) => failures.push(error),
    });
    await runner.start();
    expect(await runner.waitForPosition(3, 5000)).toBe(true);
    expect(failures).toEqual([]);
    // A second runner (elsewhere) moves the checkpoint under this one.
    expect((await documentStore.writerView().saveCheckpoint('read-models', 3, 100)).ok).toBe(true);
    await eventStore.append('notes-1', events(1), 2);
    const deadline = Date.now() + 5000;
    while (runner.failure === null && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(failures).toEqual([runner.failure]);
    expect(String(runner.failure)).toMatch(/checkpoint read-models moved to 100 under us/);
    await runner.stop();
  });

  it('replays the log that was there at start in catch-up batches, up to its head, then takes steady batches', async () => {
    await eventStore.append('notes-1', events(12), 'no_stream');
    const { projection, sizes } = recorder();
    const runner = new ProjectionRunner(eventStore, documentStore, [projection], pino({ level: 'silent' }), {
      batchSize: 2,
      catchUpBatchSize: 5,
    });
    await runner.start();
    expect(await runner.waitForPosition(12, 5000)).toBe(true);
    expect(runner.ready).toBe(true);
    // 5, 5, then the 2 left before the start head (a catch-up batch never reaches past it by more than a steady one).
    expect(sizes).toEqual([5, 5, 2]);
    await eventStore.append('notes-1', events(5), 11);
    expect(await runner.waitForPosition(17, 5000)).toBe(true);
    await runner.stop();
    // The first batch after the start head is a steady one.
    expect(sizes[3]).toBeLessThanOrEqual(2);
    expect(sizes.slice(3).reduce((a, b) => a + b, 0)).toBe(5);
  });

  it('takes catch-up batches again while the log is ahead of the read models (the last batch came back full), then steady ones', async () => {
    const { projection, sizes } = recorder();
    const runner = new ProjectionRunner(eventStore, documentStore, [projection], pino({ level: 'silent' }), {
      batchSize: 2,
      catchUpBatchSize: 5,
    });
    await runner.start();
    // A bulk write lands at once.
    await eventStore.append('notes-1', events(12), 'no_stream');
    expect(await runner.waitForPosition(12, 5000)).toBe(true);
    // A steady batch comes back full, so the log is ahead: 5, 5 (full again), then the read finds nothing.
    expect(sizes).toEqual([2, 5, 5]);
    // Long enough for the runner to read the log again (every 20 ms here) and find nothing new.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await eventStore.append('notes-1', events(3), 11);
    expect(await runner.waitForPosition(15, 5000)).toBe(true);
    await runner.stop();
    // Caught up (the last read came back short): steady batches again.
    expect(sizes.slice(3)).toEqual([2, 1]);
  });

  it('a catch-up batch smaller than the steady one is taken as given', async () => {
    await eventStore.append('notes-1', events(6), 'no_stream');
    const { projection, sizes } = recorder();
    const runner = new ProjectionRunner(eventStore, documentStore, [projection], pino({ level: 'silent' }), {
      batchSize: 4,
      catchUpBatchSize: 3,
    });
    await runner.start();
    expect(await runner.waitForPosition(6, 5000)).toBe(true);
    await runner.stop();
    expect(sizes).toEqual([3, 3]);
  });

  it('gives the event loop back during a long batch, whose writes reads see only once it commits', async () => {
    // Of a type the catalogue knows (the runner applies domain events only); the data is not read.
    const created = Array.from({ length: 20 }, () => ({ type: 'ResourceInstanceCreated', data: {}, metadata }));
    await eventStore.append('notes-1', created, 'no_stream');
    const spec = { name: 'notes', fields: [], indexes: [] };
    // The projection writes through the store's writer view (as the runner's projections do); others read the store.
    const notes = documentStore.collection<{ id: string }>(spec);
    const projectionNotes = documentStore.writerView().collection<{ id: string }>(spec);
    let applied = 0;
    // 3 ms of work per event: a 60 ms batch.
    const slow = {
      name: 'slow',
      version: 1,
      handles: new Set(['ResourceInstanceCreated']),
      apply: async (event: { position: number }) => {
        const until = performance.now() + 3;
        while (performance.now() < until);
        await projectionNotes.put({ id: String(event.position) });
        applied += 1;
      },
    } as unknown as Projection;
    const runner = new ProjectionRunner(eventStore, documentStore, [slow], pino({ level: 'silent' }), { catchUpBatchSize: 20 });
    // What a timer read while the batch was half applied.
    const readMidBatch: number[] = [];
    const ticks = setInterval(() => {
      if (applied > 0 && applied < 20) void notes.count({}).then((n) => readMidBatch.push(n));
    }, 1);
    await runner.start();
    expect(await runner.waitForPosition(20, 5000)).toBe(true);
    clearInterval(ticks);
    await runner.stop();
    expect(readMidBatch.length).toBeGreaterThan(0);
    expect(readMidBatch.every((n) => n === 0)).toBe(true);
    expect(await notes.count({})).toBe(20);
  });

  it('refuses a batch size that is not a positive integer', () => {
    for (const options of [{ batchSize: 0 }, { catchUpBatchSize: -1 }, { catchUpBatchSize: 2.5 }, { batchSize: Number.NaN }])
      expect(() => new ProjectionRunner(eventStore, documentStore, [], pino({ level: 'silent' }), options)).toThrow(/positive integer/);
  });

  it('knows the position of the last event each projection applied, and where it resumed before any', async () => {
    const typed = (type: string, n: number) => Array.from({ length: n }, (_, i) => ({ type, data: { i }, metadata }));
    await eventStore.append('notes-1', [...typed('Noted', 3), ...typed('Other', 2)], 'no_stream');
    const projection = (name: string, type: string): Projection =>
      ({ name, version: 1, handles: new Set([type]), apply: async () => undefined }) as unknown as Projection;
    const runner = new ProjectionRunner(
      eventStore,
      documentStore,
      [projection('notes', 'Noted'), projection('others', 'Other'), projection('none', 'Never')],
      pino({ level: 'silent' }),
      {
        batchSize: 2,
        catchUpBatchSize: 2,
      },
    );
    await runner.start();
    expect(await runner.waitForPosition(5, 5000)).toBe(true);
    expect([runner.lastAppliedBy('notes'), runner.lastAppliedBy('others'), runner.lastAppliedBy('none')]).toEqual([3, 5, 0]);
    await eventStore.append('notes-1', typed('Noted', 1), 4);
    expect(await runner.waitForPosition(6, 5000)).toBe(true);
    expect([runner.lastAppliedBy('notes'), runner.lastAppliedBy('others')]).toEqual([6, 5]);
    await runner.stop();
    // A runner that resumes from a checkpoint has applied nothing yet: its projections' last changes are no later than it.
    const resumed = new ProjectionRunner(eventStore, documentStore, [projection('notes', 'Noted')], pino({ level: 'silent' }));
    await resumed.start();
    expect(resumed.lastAppliedBy('notes')).toBe(6);
    await resumed.stop();
  });

  it('moves where answers last changed on every event but an expiry that changed none, and stores it with the batch', async () => {
    const expiries = (n: number) => Array.from({ length: n }, () => ({ type: 'RoleAssignmentExpired', data: {}, metadata }));
    let changed = false;
    const applied: string[] = [];
    const grants: Projection = {
      name: 'grants-like',
      version: 1,
      handles: new Set(['RoleAssignmentExpired']),
      apply: async (event) => void applied.push(event.type),
      changedAnswers: () => changed,
    };
    const start = async () => {
      const runner = new ProjectionRunner(eventStore, documentStore, [grants], pino({ level: 'silent' }));
      await runner.start();
      return runner;
    };
    const stored = () => documentStore.loadCheckpoint(answersCheckpoint('read-models'));
    let runner = await start();
    await eventStore.append('notes-1', events(2), 'no_stream');
    expect(await runner.waitForPosition(2, 5000)).toBe(true);
    expect(runner.lastAppliedBy(ANSWERS)).toBe(2);
    expect(await stored()).toBe(2);

    // Expiries that changed no answer: the read models move, where answers changed does not.
    await eventStore.append('notes-1', expiries(2), 1);
    expect(await runner.waitForPosition(4, 5000)).toBe(true);
    expect(applied).toEqual(['RoleAssignmentExpired', 'RoleAssignmentExpired']);
    expect(runner.lastAppliedBy(ANSWERS)).toBe(2);
    expect(await stored()).toBe(2);

    // One the projection says changed an answer (a guarded role given back) moves it.
    changed = true;
    await eventStore.append('notes-1', expiries(1), 3);
    expect(await runner.waitForPosition(5, 5000)).toBe(true);
    expect(runner.lastAppliedBy(ANSWERS)).toBe(5);
    expect(await stored()).toBe(5);

    // A restarted runner resumes from what it stored, not from its checkpoint.
    changed = false;
    await eventStore.append('notes-1', expiries(1), 4);
    expect(await runner.waitForPosition(6, 5000)).toBe(true);
    await runner.stop();
    runner = await start();
    expect(runner.lastAppliedBy(ANSWERS)).toBe(5);
    await runner.stop();
  });
});
