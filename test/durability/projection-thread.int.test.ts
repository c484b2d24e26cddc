import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { startEmbedded } from '../../app/embedded';
import { grantsFeature } from '../../app/features/grants';
import { ProjectionThread } from '../../app/projection-thread';
import { GrantStats } from '../../projection-service/grants/stats';
import { loadConfig } from '../../shared/config';
import { FACTS, loadFolderFileExample, startTestServer, type TestServer } from '../support/embedded-server';

/**
 * PROJECTION_THREAD=true: the one-process service runs its projections on a thread of their own
 * (app/projection-thread.ts). Writes are visible when answered, the caches follow the thread's
 * positions, a held copy learns its outcome from the read models, and a thread that dies is
 * started again and resumes from its checkpoint.
 */
describe('projections on a thread of their own (PROJECTION_THREAD=true)', () => {
  let server: TestServer;
  let thread: ProjectionThread;
  beforeAll(async () => {
    server = await startTestServer({ env: { PROJECTION_THREAD: 'true', READ_YOUR_WRITES_TIMEOUT_MS: '20000' } });
    thread = server.service.runner as ProjectionThread;
  });
  afterAll(() => server.close());

  it('are the service projections, and each write is visible and checkable when answered', async () => {
    expect(thread).toBeInstanceOf(ProjectionThread);
    const api = await server.api.environmentClient();
    await loadFolderFileExample(api);
    expect(thread.position).toBe(await server.service.eventStore.headPosition());
    expect((await api.get(`${FACTS}/resource_instances/file:readme`)).status).toBe(200);
    expect((await api.post('/allowed', { user: 'alice', action: 'write', resource: 'file:readme' })).body).toEqual({ allow: true });

    // A role's permissions change: the cached decision follows (the schema's position moved with it).
    const schemaBefore = thread.lastAppliedBy('schema');
    expect((await api.patch('/v2/schema/default/production/resources/file/roles/editor', { permissions: ['read'] })).status).toBe(200);
    expect(thread.lastAppliedBy('schema')).toBeGreaterThan(schemaBefore);
    expect((await api.post('/allowed', { user: 'alice', action: 'write', resource: 'file:readme' })).body).toEqual({ allow: false });
    expect(() => thread.lastAppliedBy('derived-grants')).toThrow(/does not publish where 'derived-grants' is/);
  });

  it('let a copy held with wait answer its outcome', async () => {
    const copy = await server.api.post('/v2/projects/default/envs/production/copy/async?wait=20', {
      target_env: { new: { key: 'threaded', name: 'Threaded' } },
      scope: { facts: true },
    });
    expect(copy.status).toBe(202);
    expect(copy.body.status).toBe('success');
    const target = await server.api.environmentClient('default', 'threaded');
    expect((await target.post('/allowed', { user: 'alice', action: 'read', resource: 'file:readme' })).body).toEqual({ allow: true });
  });

  it('start again after the thread dies mid-load, and every acknowledged write is there', async () => {
    const api = await server.api.environmentClient();
    const acknowledged: string[] = [];
    let stop = false;
    const writer = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const key = `k-${w}-${i}`;
        const created = await api.post(`${FACTS}/resource_instances`, { key, resource: 'folder', tenant: 'acme' });
        expect(created.status).toBe(200);
        // Read-your-writes across the restart: visible as soon as it was answered.
        expect((await api.get(`${FACTS}/resource_instances/folder:${key}`)).status).toBe(200);
        acknowledged.push(key);
      }
    };
    const writers = Array.from({ length: 8 }, (_, w) => writer(w));
    while (acknowledged.length < 40) await new Promise((r) => setTimeout(r, 5));
    const startedBefore = thread.startedFrom;
    await thread.kill();
    const killedAt = acknowledged.length;
    while (acknowledged.length < killedAt + 40) await new Promise((r) => setTimeout(r, 5));
    stop = true;
    await Promise.all(writers);

    // The new thread resumed from the checkpoint its predecessor committed, not from the start.
    expect(thread.startedFrom).toBeGreaterThan(startedBefore);
    expect(thread.ready).toBe(true);
    const missing: string[] = [];
    for (const key of acknowledged) if ((await api.get(`${FACTS}/resource_instances/folder:${key}`)).status !== 200) missing.push(key);
    expect(missing).toEqual([]);
  }, 60_000);
});

describe('PROJECTION_THREAD refuses what it cannot do', () => {
  it('refuses a feature whose projections the thread cannot build as given, naming it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'rebac-thread-'));
    try {
      const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent', HTTP_WORKERS: '1', PROJECTION_THREAD: 'true' });
      const mine = { name: 'my-feature', projections: () => [] };
      await expect(startEmbedded(config, pino({ level: 'silent' }), [mine])).rejects.toThrow(
        /cannot run those of my-feature as given: set PROJECTION_THREAD=false/,
      );
      // A shipped feature whose projection counts into an object of this thread: not silently left uncounted.
      await expect(startEmbedded(config, pino({ level: 'silent' }), [grantsFeature({ stats: new GrantStats() })])).rejects.toThrow(
        /cannot run those of derived-grants as given/,
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses PROJECTION_THREAD=true on engines other than SQLite, and values it does not know', () => {
    expect(() => loadConfig({ PROJECTION_THREAD: 'true', READ_MODEL_STORE: 'mongodb', MONGODB_URL: 'mongodb://x' })).toThrow(
      /PROJECTION_THREAD=true needs the SQLite event log and read models/,
    );
    expect(() => loadConfig({ PROJECTION_THREAD: 'yes' })).toThrow(/PROJECTION_THREAD/);
  });
});
