import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../shared/config';
import { createDocumentStore } from './stores';

/**
 * Services composed in one process (the tests start the command, projection
 * and task services together) open the read-model file through
 * createDocumentStore each: they share one store, so a write from one of them
 * waits for another's open batch transaction instead of sleeping the thread in
 * SQLite's busy handler (which the batch could never end meanwhile).
 */
describe('SQLite read-model stores opened in one process', () => {
  const spec = { name: 'items', fields: [], indexes: [] };
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'shared-store-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('share one store: a write from one waits for the batch the other has open, and the file stays open until the last closes', async () => {
    const config = loadConfig({ DATA_DIR: dir, ADMIN_API_KEY: 'shared-store-admin-key-0123' });
    const projections = await createDocumentStore(config);
    const tasks = await createDocumentStore(config);
    const items = tasks.collection<{ id: string }>(spec);

    let resume!: () => void;
    const resumed = new Promise<void>((resolve) => (resume = resolve));
    const writer = projections.writerView();
    const batch = writer.transaction(async () => {
      await writer.collection<{ id: string }>(spec).put({ id: 'batch' });
      // A batch gives the event loop back with its transaction open.
      await resumed;
    });
    await new Promise((resolve) => setImmediate(resolve));
    const started = performance.now();
    const elsewhere = items.put({ id: 'relay' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    resume();
    await Promise.all([batch, elsewhere]);
    // Well under SQLite's 10 s busy timeout: the write waited for the batch, not for the busy handler.
    expect(performance.now() - started).toBeLessThan(2_000);
    expect((await items.find({}, { sortBy: 'id' })).map((d) => d.id)).toEqual(['batch', 'relay']);

    await projections.close();
    await projections.close();
    expect(await items.get('relay')).toEqual({ id: 'relay' });
    await tasks.close();
    await expect(items.get('relay')).rejects.toThrow();
  });
});
