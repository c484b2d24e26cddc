import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tupleEdges } from '../../shared/read-models/grants/fact-finders';
import { readStoresOf } from '../../shared/read-stores/port';
import { EffectiveGrants } from '../../command-service/grant-queries/effective-grants';
import { ReadModels } from '../../shared/read-models/read-models';
import { startTestServer, type TestServer } from '../support/embedded-server';
import { documentSchema, Scenario } from './support/scenario';

describe('consistency of checks with writes', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'grants-consistency-'));
  let server: TestServer;
  let s: Scenario;
  beforeAll(async () => {
    server = await startTestServer({ dataDir, env: { READ_YOUR_WRITES_TIMEOUT_MS: '400' } });
    s = await Scenario.create(server, 'consistency');
    await documentSchema(s);
    await s.instance('folder:f', 'acme');
    await s.instance('document:d', 'acme');
    await s.tuple('folder:f', 'parent', 'document:d');
  });
  afterAll(async () => {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('sees each write in the very next check (read-your-writes), derived grants included', async () => {
    for (let i = 0; i < 10; i++) {
      const assigned = await s.api.post(`${s.facts}/role_assignments`, { user: 'ryw', role: 'editor', resource_instance: 'folder:f' });
      expect(assigned.status).toBe(200);
      expect(Number(assigned.headers.get('x-event-position'))).toBeGreaterThan(0);
      expect(await s.allowed('ryw', 'write', 'document:d')).toBe(true);
      await s.unassign('ryw', 'editor', 'folder:f');
      expect(await s.allowed('ryw', 'write', 'document:d')).toBe(false);
    }
  });

  it('holds a check until the read models reach X-Min-Event-Position; one beyond the log is refused at once', async () => {
    const write = await s.api.post(`${s.facts}/role_assignments`, { user: 'fresh', role: 'viewer', resource_instance: 'folder:f' });
    const position = Number(write.headers.get('x-event-position'));
    const check = (min: number) =>
      s.api.request('POST', '/allowed', { user: 'fresh', action: 'read', resource: 'document:d' }, { 'X-Min-Event-Position': String(min) });
    const reached = await check(position);
    expect(reached.status).toBe(200);
    expect(reached.body.allow).toBe(true);
    const ahead = await check(position + 1_000_000);
    expect(ahead.status).toBe(400);
    expect(ahead.body.error_code).toBe('INVALID_INPUT');
    expect(ahead.body.message).toContain("beyond the log's head");
  });

  it('rebuilds the same grants when the read models are dropped and the log replayed', async () => {
    await s.assign('rebuild', 'editor', 'folder:f');
    await s.instance('folder:g', 'acme');
    await s.tuple('folder:f', 'parent', 'folder:g');
    await s.untuple('folder:f', 'parent', 'folder:g');
    // Every grant, stored or implied (EffectiveGrants), of the environments that have stored ones.
    const grantsOf = async (t: TestServer) => {
      const grants = readStoresOf(t.service.documentStore).grants;
      const effective = new EffectiveGrants(grants, tupleEdges(new ReadModels(t.service.documentStore).tuples));
      const ids = (await new ReadModels(t.service.documentStore).environments.find({})).map((e) => e.id);
      const stored = await Promise.all(ids.map(async (id) => ((await grants.ofEnvironment(id)).length > 0 ? [id] : [])));
      const environments = stored.flat().sort();
      const all = [];
      for (const environment_id of environments) all.push(...(await effective.find({ environment_id }, { sortBy: 'id' })));
      return all;
    };
    const before = await grantsOf(server);
    expect(before.length).toBeGreaterThan(3);

    await server.close({ keepData: true });
    for (const file of readdirSync(dataDir)) if (file.startsWith('read-models.sqlite')) rmSync(join(dataDir, file));
    server = await startTestServer({ dataDir, env: { READ_YOUR_WRITES_TIMEOUT_MS: '400' } });

    expect(await grantsOf(server)).toEqual(before);
    s = s.on(server.url);
    expect(await s.allowed('rebuild', 'write', 'document:d')).toBe(true);
    expect(await s.allowed('rebuild', 'write', 'folder:g')).toBe(false);
  });
});
