import http from 'node:http';
import net from 'node:net';
import { ApiClient, FACTS, SCHEMA, startTestServer, type TestServer } from '../support/embedded-server';
import { loadAuthzenFixture } from '../pdp/support/authzen-fixture';
import { Scrape } from '../support/prometheus';

/**
 * HTTP_WORKERS=2: the one-process service answers on two processes, this one and a check worker
 * (app/check-worker.ts) that reads the same SQLite read models. Most requests here go over a new
 * connection. Connections that begin with a check go to the processes in turn, so consecutive
 * checks land on different processes; any other connection is served by this process, so the
 * check that follows a write is on the other process every second time.
 */
describe('check workers (HTTP_WORKERS=2)', () => {
  let server: TestServer;
  let envKey: string;

  /** One request, on a connection of its own unless `agent` holds one. */
  const send = (method: string, path: string, body?: unknown, key = envKey, agent: http.Agent | false = false) =>
    new Promise<{ status: number; body: any; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = http.request(
        `${server.url}${path}`,
        {
          method,
          agent,
          headers: {
            authorization: `Bearer ${key}`,
            // Node's client frames no DELETE body by itself.
            ...(payload ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } : {}),
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined, headers: res.headers }));
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  const allowed = async (user: string, action: string, doc: string, agent: http.Agent | false = false) => {
    const answer = await send(
      'POST',
      '/allowed',
      { user: { key: user }, action, resource: { type: 'doc', key: doc, tenant: 'default' } },
      envKey,
      agent,
    );
    expect(answer.status).toBe(200);
    return answer.body.allow as boolean;
  };
  /** /allowed answers of this (the main) process, from its own counters: the workers keep theirs. */
  const answeredHere = async (route = '/allowed') => {
    let count = 0;
    for (const cell of server.service.metrics.http.cells())
      if (cell.labels.route === route && cell.labels.method === 'POST') count += cell.count;
    return count;
  };
  /** /allowed answers of every process, as GET /metrics reports them. */
  const answeredInAll = async () => (await Scrape.of(server.url)).sum('rebac_http_requests_total', { route: '/allowed', method: 'POST' });
  /** Requests the worker forwarded to this process. */
  const forwarded = async () => (await Scrape.of(server.url)).sum('rebac_http_forwarded_requests_total', {});
  /**
   * A keep-alive connection the check worker holds: one whose first request, a check, the worker
   * answered (connections that begin with a check alternate between the processes).
   */
  const workerConnection = async (): Promise<http.Agent> => {
    for (let attempt = 0; attempt < 4; attempt++) {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const before = await answeredHere();
      expect(await allowed('alice', 'write', 'd1', agent)).toBe(true);
      if ((await answeredHere()) === before) return agent;
      agent.destroy();
    }
    throw new Error('no connection that began with a check reached the worker');
  };

  beforeAll(async () => {
    server = await startTestServer({ env: { HTTP_WORKERS: '2' } });
    envKey = (await server.api.environmentClient()).key;
    const admin = server.api;
    await admin.post(`${SCHEMA}/resources`, { key: 'doc', name: 'Doc', actions: { read: {}, write: {} } });
    await admin.post(`${SCHEMA}/resources/doc/roles`, { key: 'owner', name: 'Owner', permissions: ['read', 'write'] });
    for (const key of ['d1', 'd2']) await admin.post(`${FACTS}/resource_instances`, { key, resource: 'doc', tenant: 'default' });
    await admin.post(`${FACTS}/role_assignments`, { user: 'alice', role: 'owner', resource_instance: 'doc:d1' });
  }, 60_000);
  afterAll(() => server?.close());

  it('starts a check worker, and both processes answer checks', async () => {
    expect(server.service.checkWorkerPids()).toHaveLength(1);
    const [before, beforeInAll] = [await answeredHere(), await answeredInAll()];
    for (let i = 0; i < 10; i++) {
      expect(await allowed('alice', 'write', 'd1')).toBe(true);
      expect(await allowed('alice', 'write', 'd2')).toBe(false);
    }
    // 20 checks on 20 connections in turn: this process answered half, the worker the rest, and /metrics counts them all.
    expect((await answeredHere()) - before).toBe(10);
    expect((await answeredInAll()) - beforeInAll).toBe(20);
  });

  it('a write answered by one process is seen at once by a check on the other, cached decisions included', async () => {
    for (let round = 0; round < 6; round++) {
      // Both processes hold the decision in their caches (two checks: one each).
      expect(await allowed('bob', 'read', 'd2')).toBe(false);
      expect(await allowed('bob', 'read', 'd2')).toBe(false);
      const assigned = await send('POST', `${FACTS}/role_assignments`, { user: 'bob', role: 'owner', resource_instance: 'doc:d2' });
      expect(assigned.status).toBe(200);
      expect(await allowed('bob', 'read', 'd2')).toBe(true);
      expect(await allowed('bob', 'read', 'd2')).toBe(true);
      const removed = await send('DELETE', `${FACTS}/role_assignments`, { user: 'bob', role: 'owner', resource_instance: 'doc:d2' });
      expect(removed.status).toBe(204);
      expect(await allowed('bob', 'read', 'd2')).toBe(false);
      expect(await allowed('bob', 'read', 'd2')).toBe(false);
    }
  });

  it('a connection that begins with anything but a check is served by this process: nothing is forwarded', async () => {
    const before = await forwarded();
    for (let i = 0; i < 4; i++) {
      const list = await send('GET', `${FACTS}/role_assignments?user=alice`);
      expect(list.status).toBe(200);
      expect(list.body).toEqual([expect.objectContaining({ user: 'alice', role: 'owner', resource_instance: 'doc:d1' })]);
      expect((await send('GET', '/v2/nowhere')).status).toBe(404);
    }
    expect((await forwarded()) - before).toBe(0);
  });

  it('a first request longer than one read reaches its process whole', async () => {
    // ~150 and ~250 KB: the front door reads the first chunk, then hands the socket on with it; the rest is read there.
    const checks = Array.from({ length: 1000 }, (_, i) => ({
      user: { key: i % 2 === 0 ? 'alice' : `stranger-${'x'.repeat(200)}-${i}` },
      action: 'write',
      resource: { type: 'doc', key: 'd1', tenant: 'default' },
    }));
    const bulkAnsweredInAll = async () =>
      (await Scrape.of(server.url)).sum('rebac_http_requests_total', { route: '/allowed/bulk', method: 'POST' });
    const [before, beforeInAll] = [await answeredHere('/allowed/bulk'), await bulkAnsweredInAll()];
    for (let i = 0; i < 4; i++) {
      const answer = await send('POST', '/allowed/bulk', checks);
      expect(answer.status).toBe(200);
      expect(answer.body.allow.map((a: { allow: boolean }) => a.allow)).toEqual(checks.map((_, j) => j % 2 === 0));
      const users = Array.from({ length: 2000 }, (_, j) => ({ key: `bulk-${i}-${j}`, email: `user-${j}-${'y'.repeat(80)}@example.com` }));
      const created = await send('POST', `${FACTS}/bulk/users`, { operations: users });
      expect(created.status).toBe(200);
      expect(created.body).toEqual({ users_created: 2000 });
    }
    // The bulk checks' connections went to the processes in turn: this one answered half, the worker the rest.
    expect((await answeredHere('/allowed/bulk')) - before).toBe(2);
    expect((await bulkAnsweredInAll()) - beforeInAll).toBe(4);
  });

  it('a worker forwards a chunked body as chunked (a DELETE too)', async () => {
    const agent = await workerConnection();
    const before = await forwarded();
    for (let i = 0; i < 2; i++) {
      const answer = await new Promise<number>((resolve, reject) => {
        const req = http.request(`${server.url}${FACTS}/role_assignments`, {
          method: 'DELETE',
          agent,
          headers: { authorization: `Bearer ${envKey}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        });
        req.on('response', (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        });
        req.on('error', reject);
        req.write('{"user":"nobody","role":"owner",');
        req.end('"resource_instance":"doc:d1"}');
      });
      // Read whole on the way through: the assignment it names does not exist (an unframed body would be a 400).
      expect(answer).toBe(404);
    }
    expect((await forwarded()) - before).toBe(2);
    agent.destroy();
  });

  it('a worker forwards what it does not serve, answers and errors unchanged', async () => {
    const agent = await workerConnection();
    const before = await forwarded();
    for (let i = 0; i < 2; i++) {
      const list = await send('GET', `${FACTS}/role_assignments?user=alice`, undefined, envKey, agent);
      expect(list.status).toBe(200);
      expect(list.body).toEqual([expect.objectContaining({ user: 'alice', role: 'owner', resource_instance: 'doc:d1' })]);
      expect(list.headers['x-request-id']).toEqual(expect.any(String));
      const refused = await send(
        'POST',
        `${FACTS}/resource_instances`,
        { key: 'd9', resource: 'doc', tenant: 'default', colour: 'red' },
        envKey,
        agent,
      );
      expect(refused.status).toBe(422);
      expect(refused.body.detail[0]).toEqual(expect.objectContaining({ loc: ['body', 'colour'], type: 'extra_forbidden' }));
      expect((await send('GET', '/v2/nowhere', undefined, envKey, agent)).status).toBe(404);
      // Checks, refused or not, the worker answers itself.
      expect((await send('POST', '/allowed', { user: { key: 'alice' } }, envKey, agent)).status).toBe(422);
      const unknownKey = { user: { key: 'alice' }, action: 'read', resource: { type: 'doc', key: 'd1' } };
      expect((await send('POST', '/allowed', unknownKey, 'nope', agent)).status).toBe(401);
    }
    expect((await forwarded()) - before).toBe(6);
    agent.destroy();
  });

  it('a connection that stays quiet past the front door’s wait is served by this process, and one that closes unheard is dropped', async () => {
    /** A raw TCP connection to the front door, once connected. */
    const connect = async () => {
      const socket = net.connect(Number(new URL(server.url).port), '127.0.0.1');
      await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
      return socket;
    };
    // Opened and closed without a byte: the front door drops it, and the next connections are routed as ever.
    const silent = await connect();
    silent.end();
    await new Promise((resolve) => silent.once('close', resolve));

    // A check sent only after the front door stopped waiting (FIRST_BYTES_TIMEOUT_MS, 5 s) is answered here.
    const before = await answeredHere();
    const quiet = await connect();
    quiet.setEncoding('latin1');
    let answer = '';
    quiet.on('data', (chunk: string) => (answer += chunk));
    await new Promise((resolve) => setTimeout(resolve, 5_500));
    const body = JSON.stringify({ user: { key: 'alice' }, action: 'write', resource: { type: 'doc', key: 'd1', tenant: 'default' } });
    quiet.write(
      `POST /allowed HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${envKey}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    await new Promise((resolve) => quiet.once('close', resolve));
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({ allow: true });
    expect((await answeredHere()) - before).toBe(1);
    for (let i = 0; i < 4; i++) expect(await allowed('alice', 'write', 'd1')).toBe(true);
    expect((await answeredHere()) - before).toBe(3);
  }, 20_000);

  it('AuthZEN is answered alike by both processes: properties reach set rules, a bad request is a 400 with a message', async () => {
    await loadAuthzenFixture(new ApiClient(server.url, envKey));
    /** One AuthZEN request on a connection of its own, with this raw body and Content-Type. */
    const authzen = (path: string, body: string, contentType = 'application/json') =>
      new Promise<{ status: number; body: unknown }>((resolve, reject) => {
        const req = http.request(
          `${server.url}${path}`,
          {
            method: 'POST',
            agent: false,
            headers: { authorization: `Bearer ${envKey}`, 'content-type': contentType, 'content-length': String(Buffer.byteLength(body)) },
          },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (text += chunk));
            res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const question = (subject: object, action: object, resource: object) => JSON.stringify({ subject, action, resource, extra: 1 });
    const alice = { type: 'user', id: 'alice' };
    const before = await answeredHere('/access/v1/evaluation');
    // Eight of each on new connections: the processes take them in turn.
    for (let i = 0; i < 8; i++) {
      const admin = { type: 'user', id: 'alice', properties: { role: 'admin' } };
      const archived = { type: 'record', id: 'record-2', properties: { status: 'archived' } };
      expect(await authzen('/access/v1/evaluation', question(admin, { name: 'write' }, archived))).toEqual({
        status: 200,
        body: { decision: true },
      });
      expect(await authzen('/access/v1/evaluation', question(alice, { name: 'write' }, archived))).toEqual({
        status: 200,
        body: { decision: false },
      });
      const soft = question(alice, { name: 'delete', properties: { soft: true } }, { type: 'record', id: 'record-1' });
      expect(await authzen('/access/v1/evaluation', soft)).toEqual({ status: 200, body: { decision: true } });
      expect(
        await authzen(
          '/access/v1/evaluations',
          JSON.stringify({ subject: alice, action: { name: 'read' }, resource: { type: 'record', id: 'record-1' }, evaluations: [] }),
        ),
      ).toEqual({
        status: 200,
        body: { decision: true },
      });
      expect(await authzen('/access/v1/evaluation', '{"subject": ')).toEqual({ status: 400, body: expect.any(String) });
      expect(await authzen('/access/v1/evaluation', question(alice, { name: 'read' }, {}))).toEqual({
        status: 400,
        body: expect.stringContaining('resource.type: '),
      });
      expect(
        await authzen('/access/v1/evaluation', question(alice, { name: 'read' }, { type: 'record', id: 'record-1' }), 'text/plain'),
      ).toEqual({
        status: 400,
        body: expect.any(String),
      });
    }
    // This process answered some of them (those whose body it could read), the worker the others.
    const here = (await answeredHere('/access/v1/evaluation')) - before;
    expect(here).toBeGreaterThan(0);
    expect(here).toBeLessThan(48);
  }, 30_000);

  it('a worker that dies is left out and started again; the service keeps answering', async () => {
    const [pid] = server.service.checkWorkerPids();
    process.kill(pid!, 'SIGKILL');
    await waitFor(() => !server.service.checkWorkerPids().includes(pid!));
    for (let i = 0; i < 4; i++) expect(await allowed('alice', 'write', 'd1')).toBe(true);
    await waitFor(() => server.service.checkWorkerPids().length === 1);
    expect(server.service.checkWorkerPids()).not.toContain(pid);
    const before = await answeredHere();
    for (let i = 0; i < 4; i++) expect(await allowed('alice', 'read', 'd1')).toBe(true);
    expect((await answeredHere()) - before).toBe(2);
  }, 30_000);
});

async function waitFor(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
