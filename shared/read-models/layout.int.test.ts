import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { DocumentStore } from '../docstore/port';
import { SqliteDocumentStore } from '../docstore/sqlite-document-store';
import {
  BOOTSTRAP_SEED_CHECKPOINT,
  ensureLayout,
  LAYOUT_CHECKPOINT,
  projectionVersionCheckpoint,
  READ_MODELS_LAYOUT,
  TASK_RELAY_CHECKPOINT,
  type VersionedProjection,
} from './layout';

/**
 * When read models are rebuilt from the log: the store-wide layout and each projection's version,
 * against what the store records. ensureLayout runs on read models one of these wrote (a document
 * and the runner's checkpoint), so "rebuilt" is seen as the document gone and the checkpoint reset.
 */
describe('the read models layout', () => {
  let dir: string;
  let store: DocumentStore;
  const RUNNER = 'read-models';
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'layout-'));
    store = new SqliteDocumentStore(join(dir, 'rm.sqlite')).writerView();
    lines.length = 0;
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const notes = () => store.collection<{ id: string }>({ name: 'notes', fields: [], indexes: [] });
  /** Read models written up to position 42 by a runner of `projections`, as a release recorded them. */
  const written = async (projections: VersionedProjection[]) => {
    expect(await store.transaction(() => ensureLayout(store, RUNNER, projections, logger))).toBe(false);
    await notes().put({ id: 'n1' });
    await store.saveCheckpoint(RUNNER, null, 42);
    await store.saveCheckpoint(TASK_RELAY_CHECKPOINT, null, 7);
    await store.saveCheckpoint(BOOTSTRAP_SEED_CHECKPOINT, null, 99);
  };
  const start = (projections: VersionedProjection[]) => store.transaction(() => ensureLayout(store, RUNNER, projections, logger));
  const emptied = async () => ({
    notes: await notes().count({}),
    runner: await store.loadCheckpoint(RUNNER),
    relay: await store.loadCheckpoint(TASK_RELAY_CHECKPOINT),
    seed: await store.loadCheckpoint(BOOTSTRAP_SEED_CHECKPOINT),
  });

  it('records the layout and each version on new read models, and keeps read models of the same ones', async () => {
    await written([
      { name: 'facts', version: 1 },
      { name: 'grants', version: 3 },
    ]);
    expect(await store.loadCheckpoint(LAYOUT_CHECKPOINT)).toBe(READ_MODELS_LAYOUT);
    expect(await store.loadCheckpoint(projectionVersionCheckpoint('grants'))).toBe(3);
    expect(
      await start([
        { name: 'facts', version: 1 },
        { name: 'grants', version: 3 },
      ]),
    ).toBe(false);
    expect(await emptied()).toEqual({ notes: 1, runner: 42, relay: 7, seed: 99 });
    expect(lines).toEqual([]);
  });

  it('rebuilds every read model when one projection changes version, naming it, and keeps the checkpoints that are not read models', async () => {
    await written([
      { name: 'facts', version: 1 },
      { name: 'grants', version: 1 },
    ]);
    expect(
      await start([
        { name: 'facts', version: 1 },
        { name: 'grants', version: 2 },
      ]),
    ).toBe(true);
    expect(await emptied()).toEqual({ notes: 0, runner: null, relay: 7, seed: 99 });
    expect(lines).toEqual([
      expect.objectContaining({
        msg: 'read models of an older layout: emptying them to rebuild them from the log',
        changed: [{ projection: 'grants', recorded: 1, version: 2 }],
        position: 42,
      }),
    ]);
    expect(await store.loadCheckpoint(projectionVersionCheckpoint('grants'))).toBe(2);
    expect(await store.loadCheckpoint(projectionVersionCheckpoint('facts'))).toBe(1);
  });

  it('rebuilds them when a projection is new to them, so that it sees the whole log', async () => {
    await written([{ name: 'facts', version: 1 }]);
    expect(
      await start([
        { name: 'facts', version: 1 },
        { name: 'expiry', version: 1 },
      ]),
    ).toBe(true);
    expect(lines[0]).toMatchObject({ changed: [{ projection: 'expiry', recorded: null, version: 1 }] });
    expect((await emptied()).notes).toBe(0);
  });

  it('takes read models of layout 2 without recorded versions as written by its projections at version 1', async () => {
    await notes().put({ id: 'n1' });
    await store.saveCheckpoint(RUNNER, null, 42);
    await store.saveCheckpoint(LAYOUT_CHECKPOINT, null, 2);
    expect(
      await start([
        { name: 'facts', version: 1 },
        { name: 'derived-grants', version: 1 },
      ]),
    ).toBe(false);
    expect((await emptied()).notes).toBe(1);
    // A projection that release did not have, or a version past 1, rebuilds them.
    expect(
      await start([
        { name: 'facts', version: 1 },
        { name: 'derived-grants', version: 2 },
      ]),
    ).toBe(true);
    expect((await emptied()).notes).toBe(0);
  });

  it('refuses read models of a newer store-wide layout, changing nothing', async () => {
    await written([{ name: 'facts', version: 1 }]);
    await store.saveCheckpoint(LAYOUT_CHECKPOINT, READ_MODELS_LAYOUT, READ_MODELS_LAYOUT + 1);
    await expect(start([{ name: 'facts', version: 1 }])).rejects.toThrow(/newer than this release's/);
    expect(await emptied()).toEqual({ notes: 1, runner: 42, relay: 7, seed: 99 });
  });
});
