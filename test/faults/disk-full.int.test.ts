import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SqliteEventStore } from '../../shared/eventstore/sqlite-event-store';
import { ApiClient, FACTS, loadFolderFileExample, startTestServer, type ApiResponse, type TestServer } from '../support/embedded-server';

/**
 * The event store's disk fills up (simulated with the SQLite log's size limit,
 * SQLite's `max_page_count`, which fails a transaction with SQLITE_FULL exactly
 * as a full disk does) and frees up again, in one embedded process.
 */
describe('a full disk under the event store', () => {
  let dataDir: string;
  let server: TestServer;
  let api: ApiClient;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'rebac-disk-full-'));
    server = await startTestServer({ dataDir });
    api = await server.api.environmentClient();
    await loadFolderFileExample(api);
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Instance keys of one length, so every create appends an event of one size (`pad` makes it larger). */
  const key = (prefix: string, n: number) => `${prefix}-${String(n).padStart(4, '0')}`;
  const create = (k: string, pad = 400) =>
    api.post(`${FACTS}/resource_instances`, { key: k, resource: 'file', tenant: 'acme', attributes: { pad: 'x'.repeat(pad) } });
  const instanceKeys = async (client: ApiClient) => {
    const keys: string[] = [];
    for (let page = 1; ; page++) {
      const r = await client.get(`${FACTS}/resource_instances?per_page=100&page=${page}`);
      expect(r.status).toBe(200);
      keys.push(...(r.body as Array<{ key: string }>).map((i) => i.key));
      if (r.body.length < 100) return keys.sort();
    }
  };
  const expectUnavailable = (r: ApiResponse) =>
    expect({ status: r.status, body: r.body }).toEqual({
      status: 503,
      body: {
        id: expect.any(String),
        error_code: 'UNEXPECTED_ERROR',
        reason: 'SERVICE_UNAVAILABLE',
        title: 'Service unavailable',
        message: expect.stringContaining('full'),
        support_link: expect.any(String),
      },
    });

  it('refuses writes with 503, keeps every acknowledged one, and takes writes again once there is space', async () => {
    const store = server.service.eventStore as SqliteEventStore;
    const acknowledged = ['docs', 'readme'];
    for (let n = 0; n < 5; n++) {
      expect((await create(key('before', n))).status).toBe(200);
      acknowledged.push(key('before', n));
    }

    // The disk fills: the log may not grow past its current size. Writes succeed while they fit in its last pages.
    store.setMaxBytes(0);
    let refused: { key: string; response: ApiResponse } | undefined;
    for (let n = 0; n < 300 && !refused; n++) {
      const response = await create(key('full', n));
      if (response.status === 200) acknowledged.push(key('full', n));
      else refused = { key: key('full', n), response };
    }
    expect(refused).toBeDefined();
    expectUnavailable(refused!.response);

    // Every write that needs space is refused the same way, alone or in one group commit, and stores nothing.
    const head = await store.headPosition();
    const more = await Promise.all(Array.from({ length: 4 }, (_, n) => create(key('more', n), 800)));
    more.forEach(expectUnavailable);
    expectUnavailable(await create(refused!.key));
    expect(await store.headPosition()).toBe(head);

    // Reads and checks go on, and show every acknowledged write and no refused one.
    expect(await instanceKeys(api)).toEqual([...acknowledged].sort());
    const allowed = await api.post('/allowed', {
      user: { key: 'alice' },
      action: 'write',
      resource: { type: 'file', key: 'readme', tenant: 'acme' },
    });
    expect({ status: allowed.status, allow: allowed.body.allow }).toEqual({ status: 200, allow: true });

    // Space returns: the same writes succeed (the refused ones were never stored, so they are not duplicates).
    store.setMaxBytes(null);
    expect((await create(refused!.key)).status).toBe(200);
    acknowledged.push(refused!.key);
    for (let n = 0; n < 4; n++) {
      expect((await create(key('more', n), 800)).status).toBe(200);
      acknowledged.push(key('more', n));
    }
    expect(await instanceKeys(api)).toEqual([...acknowledged].sort());

    // After a restart on the same data, the log holds exactly the acknowledged writes.
    await server.close();
    server = await startTestServer({ dataDir });
    expect(await instanceKeys(new ApiClient(server.url, api.key))).toEqual([...acknowledged].sort());
  });
});
