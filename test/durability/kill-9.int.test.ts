import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient, FACTS } from '../support/embedded-server';
import { startChildServer, type ChildServer } from '../support/child-server';

const ADMIN_API_KEY = 'permit_key_durability-test-admin-key';

describe('a killed process loses no acknowledged write', () => {
  let dataDir: string;
  let server: ChildServer | null = null;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'rebac-kill9-'));
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every write answered 200 before kill -9, and restarts cleanly', async () => {
    server = await startChildServer({ DATA_DIR: dataDir, ADMIN_API_KEY });
    const api = await new ApiClient(server.url, ADMIN_API_KEY).environmentClient();
    expect((await api.post(`/v2/schema/default/production/resources`, { key: 'doc', name: 'Doc', actions: { read: {} } })).status).toBe(
      200,
    );

    // Writers keep creating tenants; each records the keys the server acknowledged.
    const acknowledged: string[] = [];
    let stop = false;
    const writer = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const key = `t-${w}-${i}`;
        const response = await api.post(`${FACTS}/tenants`, { key, name: key }).catch(() => null);
        if (response?.status === 200) acknowledged.push(key);
        else if (response === null) return; // connection cut by the kill
      }
    };
    const writers = Array.from({ length: 16 }, (_, w) => writer(w));
    while (acknowledged.length < 150) await new Promise((r) => setTimeout(r, 5));
    await server.kill9();
    stop = true;
    await Promise.all(writers);

    server = await startChildServer({ DATA_DIR: dataDir, ADMIN_API_KEY });
    const after = new ApiClient(server.url, api.key);
    const stored = new Set<string>();
    for (let page = 1; ; page++) {
      const listed = await after.get(`${FACTS}/tenants?per_page=100&page=${page}`);
      expect(listed.status).toBe(200);
      for (const t of listed.body as Array<{ key: string }>) stored.add(t.key);
      if (listed.body.length < 100) break;
    }
    const lost = acknowledged.filter((key) => !stored.has(key));
    expect(lost).toEqual([]);
    expect(acknowledged.length).toBeGreaterThanOrEqual(150);
    // The service keeps working after the crash.
    expect((await after.post(`${FACTS}/tenants`, { key: 'after-crash', name: 'After' })).status).toBe(200);
  }, 60_000);
});
