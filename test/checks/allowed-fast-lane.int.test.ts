import { startTestServer, type TestServer } from '../support/embedded-server';
import { documentSchema, Scenario } from '../grants/support/scenario';

/**
 * `POST /allowed` has a fast lane that answers the common check without express
 * (command-service/routes/checks/allowed-fast-lane.ts). Every request is sent twice: to `/allowed`,
 * where the lane may take it, and to `/allowed?explain=false`, which the lane never takes (it has a
 * query), so express's route answers. The two answers must be the same, and the lane's counters
 * say which requests it answered, which it handed to the route, and which it never took.
 */
describe('the /allowed fast lane', () => {
  let server: TestServer;
  let s: Scenario;
  let envKey: string;

  beforeAll(async () => {
    server = await startTestServer();
    s = await Scenario.create(server, 'fast-lane');
    envKey = s.api.key;
    await documentSchema(s);
    await s.instance('folder:f', 'acme');
    await s.instance('document:doc', 'acme');
    await s.tuple('folder:f', 'parent', 'document:doc');
  });
  afterAll(() => server.close());

  const outcomes = () => ({ ...server.service.metrics.checks.fastLane });

  interface Sent {
    body: string | Buffer;
    headers?: Record<string, string>;
    key?: string | null;
  }
  async function send(path: string, { body, headers = {}, key = envKey }: Sent) {
    const response = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { ...(key === null ? {} : { authorization: `Bearer ${key}` }), 'content-type': 'application/json', ...headers },
      body,
    });
    return {
      status: response.status,
      // An error's `id` is new for every answer.
      body: (await response.text()).replace(/^\{"id":"[^"]+",/, '{'),
      contentType: response.headers.get('content-type'),
      position: response.headers.get('x-event-position'),
      requestId: response.headers.get('x-request-id'),
    };
  }

  /** Sends to both paths; expects the same answer, and the lane's outcome for the first. */
  async function bothWays(sent: Sent, lane: 'answered' | 'handedOver' | 'not taken') {
    const before = outcomes();
    const viaLane = await send('/allowed', sent);
    const after = outcomes();
    const viaRoute = await send('/allowed?explain=false', sent);
    expect(outcomes()).toEqual(after);
    expect({ ...viaLane, requestId: null }).toEqual({ ...viaRoute, requestId: null });
    expect(viaLane.requestId).toBeTruthy();
    expect(after).toEqual({
      answered: before.answered + (lane === 'answered' ? 1 : 0),
      handedOver: before.handedOver + (lane === 'handedOver' ? 1 : 0),
    });
    return viaLane;
  }
  const json = (value: unknown) => JSON.stringify(value);
  const allowOf = (answer: { body: string }) => (JSON.parse(answer.body) as { allow: boolean }).allow;

  it('answers the plain checks the SDKs send, and follows writes at once', async () => {
    const plain = { user: 'carol', action: 'read', resource: 'document:doc' };
    const first = await bothWays({ body: json(plain) }, 'answered');
    expect(first).toMatchObject({ status: 200, contentType: 'application/json', body: '{"allow":false}' });
    expect(Number(first.position)).toBeGreaterThan(0);

    await s.assign('carol', 'viewer', 'folder:f');
    expect(allowOf(await bothWays({ body: json(plain) }, 'answered'))).toBe(true);

    // The Node SDK's shape: objects, an empty context, attributes left empty.
    const sdk = {
      user: { key: 'carol', attributes: {} },
      action: 'read',
      resource: { type: 'document', key: 'doc', tenant: 'acme', attributes: {}, context: {} },
      context: {},
    };
    expect(allowOf(await bothWays({ body: json(sdk) }, 'answered'))).toBe(true);
    for (const resource of ['document', 'document:', { type: 'document', key: 'doc', tenant: null }, { type: 'document', key: null }]) {
      await bothWays({ body: json({ ...plain, resource }) }, 'answered');
    }
    expect(allowOf(await bothWays({ body: json({ ...plain, user: 'dave' }) }, 'answered'))).toBe(false);
    await bothWays({ body: json(plain), headers: { 'cache-control': 'no-cache' } }, 'answered');
    // null for an optional member is absent (Permit's models), in the lane as in the route.
    await bothWays({ body: json({ ...plain, context: null }) }, 'answered');

    await s.unassign('carol', 'viewer', 'folder:f');
    expect(allowOf(await bothWays({ body: json(plain) }, 'answered'))).toBe(false);
  });

  it('keeps the request id a client sends', async () => {
    const answer = await send('/allowed', {
      body: json({ user: 'carol', action: 'read', resource: 'document:doc' }),
      headers: { 'x-request-id': 'req-42' },
    });
    expect(answer.requestId).toBe('req-42');
  });

  it('hands every other body to the route, which answers or refuses it as before', async () => {
    const plain = { user: 'carol', action: 'read', resource: 'document:doc' };
    const handed: Array<[string | Buffer, number]> = [
      [json({ ...plain, user: { key: 'carol', firstName: 'Carol' } }), 200],
      [json({ ...plain, context: { ip: '10.0.0.1' } }), 200],
      [json({ ...plain, user: { key: 'carol', attributes: { level: 3 } } }), 200],
      [json({ ...plain, explain: true }), 200],
      [json({ ...plain, user: '' }), 422],
      [json({ ...plain, user: 7 }), 422],
      [json({ ...plain, action: '' }), 422],
      [json({ ...plain, resource: { type: 'document', key: '' } }), 422],
      [json({ ...plain, surprise: 1 }), 422],
      [json({ ...plain, user: 'car\u0000ol' }), 422],
      [json([plain]), 422],
      ['null', 422],
      ['{"user":', 422],
      [Buffer.concat([Buffer.from('{"user":"'), Buffer.from([0xff, 0xfe]), Buffer.from('","action":"read","resource":"document"}')]), 422],
    ];
    for (const [body, status] of handed) {
      const answer = await bothWays({ body }, 'handedOver');
      expect({ body: String(body), status: answer.status }).toEqual({ body: String(body), status });
    }
  });

  it('hands refused keys to the route: 401 and 403 in the API error shape', async () => {
    const body = json({ user: 'carol', action: 'read', resource: 'document:doc' });
    expect((await bothWays({ body, key: null }, 'handedOver')).status).toBe(401);
    expect((await bothWays({ body, key: 'not-a-key' }, 'handedOver')).status).toBe(401);
    expect((await bothWays({ body, key: server.adminKey }, 'handedOver')).status).toBe(403);
  });

  it('never takes what it does not read: other media types, content encodings, a wanted position', async () => {
    const body = json({ user: 'carol', action: 'read', resource: 'document:doc' });
    expect((await bothWays({ body, headers: { 'content-type': 'text/plain' } }, 'not taken')).status).toBe(415);
    expect((await bothWays({ body, headers: { 'content-type': 'application/json; charset=utf-8' } }, 'not taken')).status).toBe(200);
    expect((await bothWays({ body, headers: { 'x-min-event-position': '1' } }, 'not taken')).status).toBe(200);
  });
});
