import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient, FACTS, SCHEMA, loadFolderFileExample, startTestServer } from '../support/embedded-server';

describe('restarting on the same DATA_DIR', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'rebac-restart-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps every object and the keys, and resumes projections from the checkpoint', async () => {
    const first = await startTestServer({ dataDir });
    const api = await first.api.environmentClient();
    await loadFolderFileExample(api);
    const head = await first.service.eventStore.headPosition();
    const before = {
      resources: (await api.get(`${SCHEMA}/resources`)).body,
      roles: (await api.get(`${SCHEMA}/resources/file/roles`)).body,
      instances: (await api.get(`${FACTS}/resource_instances`)).body,
      assignments: (await api.get(`${FACTS}/role_assignments`)).body,
      tuples: (await api.get(`${FACTS}/relationship_tuples`)).body,
    };
    await first.close({ keepData: true });
    // A graceful stop leaves command-state snapshots, so the next start folds no environment from scratch.
    expect(readdirSync(join(dataDir, 'snapshots')).filter((f) => f.startsWith('env-'))).toHaveLength(1);

    const second = await startTestServer({ dataDir });
    try {
      expect(second.service.runner.startedFrom).toBe(head);
      const client = new ApiClient(second.url, api.key);
      expect((await client.get(`${SCHEMA}/resources`)).body).toEqual(before.resources);
      expect((await client.get(`${SCHEMA}/resources/file/roles`)).body).toEqual(before.roles);
      expect((await client.get(`${FACTS}/resource_instances`)).body).toEqual(before.instances);
      expect((await client.get(`${FACTS}/role_assignments`)).body).toEqual(before.assignments);
      expect((await client.get(`${FACTS}/relationship_tuples`)).body).toEqual(before.tuples);
      // The command side rebuilt its state from the log: duplicates are still refused.
      expect((await client.post(`${FACTS}/tenants`, { key: 'acme', name: 'Again' })).status).toBe(409);
      // No second bootstrap happened.
      expect((await second.api.get('/v2/projects')).body).toHaveLength(1);
    } finally {
      await second.close();
    }
  });
});
