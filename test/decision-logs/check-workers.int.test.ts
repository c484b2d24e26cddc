import http from 'node:http';
import { loadFolderFileExample, startTestServer, type TestServer } from '../support/embedded-server';

/**
 * HTTP_WORKERS=2: checks answered by the check worker (another process) are logged too, into the
 * same store, and read by the main process's API once the worker has written its batch.
 */
describe('decision logs with check workers (HTTP_WORKERS=2)', () => {
  let server: TestServer;
  let envKey: string;
  beforeAll(async () => {
    server = await startTestServer({ env: { HTTP_WORKERS: '2' } });
    await loadFolderFileExample(server.api);
    envKey = (await server.api.environmentClient()).key;
  });
  afterAll(() => server.close());

  /** A check on a connection of its own: the front door sends each to the processes in turn. */
  const check = (user: string) =>
    new Promise<boolean>((resolve, reject) => {
      const payload = JSON.stringify({ user, action: 'read', resource: 'file:readme' });
      const req = http.request(
        `${server.url}/allowed`,
        {
          method: 'POST',
          agent: false,
          headers: { authorization: `Bearer ${envKey}`, 'content-type': 'application/json', 'content-length': String(payload.length) },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve((JSON.parse(text) as { allow: boolean }).allow));
        },
      );
      req.on('error', reject);
      req.end(payload);
    });

  it("logs the worker's checks beside this process's", async () => {
    const users = Array.from({ length: 10 }, (_, i) => (i === 0 ? 'alice' : `user-${i}`));
    for (const user of users) await check(user);
    // The worker answered some of them (this process counts only its own).
    let here = 0;
    for (const cell of server.service.metrics.http.cells()) if (cell.labels.route === '/allowed') here += cell.count;
    expect(here).toBeGreaterThan(0);
    expect(here).toBeLessThan(users.length);
    // The worker writes its batch within DECISION_LOG_FLUSH_MS (100 ms).
    const deadline = Date.now() + 10_000;
    let logged: string[] = [];
    while (Date.now() < deadline) {
      const page = await server.api.get('/v2/pdps/default/production/audit_logs?per_page=100');
      logged = (page.body.data as Array<{ user_key: string }>).map((e) => e.user_key);
      if (logged.length >= users.length) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(logged.sort()).toEqual([...users].sort());
  });
});
