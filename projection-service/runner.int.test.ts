import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { SqliteDocumentStore } from '../shared/docstore/sqlite-document-store';
import { SqliteEventStore } from '../shared/eventstore/sqlite-event-store';
import type { Projection } from '../shared/read-models/projection';
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
      projection: { name: 'sizes', handles: new Set(), apply: async () => undefined, prepare: async (b) => void sizes.push(b.length) },
    };
  }

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
    expect(sizes.slice(3).every((size) => size <= 2)).toBe(true);
    expect(sizes.slice(3).reduce((a, b) => a + b, 0)).toBe(5);
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

  it('refuses a batch size that is not a positive integer', () => {
    for (const options of [{ batchSize: 0 }, { catchUpBatchSize: -1 }, { catchUpBatchSize: 2.5 }, { batchSize: Number.NaN }])
      expect(() => new ProjectionRunner(eventStore, documentStore, [], pino({ level: 'silent' }), options)).toThrow(/positive integer/);
  });

  it('knows the position of the last event each projection applied, and where it resumed before any', async () => {
    const typed = (type: string, n: number) => Array.from({ length: n }, (_, i) => ({ type, data: { i }, metadata }));
    await eventStore.append('notes-1', [...typed('Noted', 3), ...typed('Other', 2)], 'no_stream');
    const projection = (name: string, type: string): Projection =>
      ({ name, handles: new Set([type]), apply: async () => undefined }) as unknown as Projection;
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
});
