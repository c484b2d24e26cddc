import { ProjectionRunner } from '../../projection-service/runner';
import { documentSchema, Scenario } from '../grants/support/scenario';
import { failCheckpointSaves } from '../support/failing-checkpoints';
import { startTestServer, type TestServer } from '../support/embedded-server';

/**
 * `POST` of an instance, a role assignment or a tuple has a fast lane that answers the common
 * request without express (command-service/http/create-lane.ts). Each request is sent twice: with
 * `Content-Type: application/json`, which the lane takes, and with `application/json; charset=utf-8`,
 * which it never takes (express's route reads it the same). The answers must be the same but for
 * what each create makes new (ids, keys, times), and the lanes' counters say which requests the
 * lane answered, which it handed to the route, and which it never took.
 */
describe('the create fast lanes', () => {
  let server: TestServer;
  let s: Scenario;

  beforeAll(async () => {
    server = await startTestServer();
    s = await Scenario.create(server, 'create-lane');
    await documentSchema(s);
    await s.instance('folder:f', 'acme');
  });
  afterAll(() => server.close());

  const outcomes = () => ({ ...server.service.metrics.createLanes });
  const LANE_TYPE = 'application/json';
  const ROUTE_TYPE = 'application/json; charset=utf-8';

  interface Sent {
    path: string;
    body: string;
    headers?: Record<string, string>;
    key?: string | null;
  }
  async function send({ path, body, headers = {}, key = s.api.key }: Sent, contentType: string) {
    const response = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { ...(key === null ? {} : { authorization: `Bearer ${key}` }), 'content-type': contentType, ...headers },
      body,
    });
    const text = await response.text();
    return {
      status: response.status,
      body: JSON.parse(text) as Record<string, unknown>,
      contentType: response.headers.get('content-type'),
      position: response.headers.get('x-event-position'),
      requestId: response.headers.get('x-request-id'),
    };
  }

  /** What two answers to two creates of different objects still have in common. */
  const shape = (answer: Awaited<ReturnType<typeof send>>) => ({
    ...answer,
    body: JSON.parse(
      JSON.stringify(answer.body)
        .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>')
        .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '<time>')
        .replace(/-(lane|route)\b/g, '-<which>'),
    ) as unknown,
    position: answer.position === null ? null : '<position>',
    requestId: answer.requestId === null ? null : '<request id>',
  });

  /**
   * Sends `sent(which)` through the lane and through the route, each with its own objects;
   * expects answers of the same shape, and the lane's outcome for the first.
   */
  async function bothWays(
    sent: (which: 'lane' | 'route') => Sent,
    lane: 'answered' | 'handedOver' | 'not taken',
    contentType = LANE_TYPE,
    routeContentType = contentType === LANE_TYPE ? ROUTE_TYPE : contentType,
  ) {
    const before = outcomes();
    const viaLane = await send(sent('lane'), contentType);
    const after = outcomes();
    const viaRoute = await send(sent('route'), routeContentType);
    expect(outcomes()).toEqual(after);
    expect(shape(viaLane)).toEqual(shape(viaRoute));
    expect(viaLane.requestId).toBeTruthy();
    expect(after).toEqual({
      answered: before.answered + (lane === 'answered' ? 1 : 0),
      handedOver: before.handedOver + (lane === 'handedOver' ? 1 : 0),
    });
    return viaLane;
  }
  const json = (value: unknown) => JSON.stringify(value);

  it('creates instances, assignments and tuples as the routes do, visible when answered', async () => {
    const instance = await bothWays(
      (which) => ({ path: `${s.facts}/resource_instances`, body: json({ key: `doc-${which}`, resource: 'document', tenant: 'acme' }) }),
      'answered',
    );
    expect(instance).toMatchObject({ status: 200, contentType: 'application/json', body: { key: 'doc-lane', resource: 'document' } });
    expect(Number(instance.position)).toBeGreaterThan(0);
    expect((await s.api.get(`${s.facts}/resource_instances/document:doc-lane`)).status).toBe(200);

    const tuple = await bothWays(
      (which) => ({
        path: `${s.facts}/relationship_tuples`,
        body: json({ subject: 'folder:f', relation: 'parent', object: `document:doc-${which}` }),
      }),
      'answered',
    );
    expect(tuple).toMatchObject({ status: 200, body: { subject: 'folder:f', relation: 'parent', object: 'document:doc-lane' } });

    const assignment = await bothWays(
      (which) => ({
        path: `${s.facts}/role_assignments`,
        body: json({ user: `u-${which}`, role: 'viewer', resource_instance: 'folder:f' }),
      }),
      'answered',
    );
    expect(assignment).toMatchObject({ status: 200, body: { user: 'u-lane', role: 'viewer', resource_instance: 'folder:f' } });
    // The grant it derives through the tuple the lane created is there when the answer is.
    expect(await s.allowed('u-lane', 'read', 'document:doc-lane')).toBe(true);
    expect(await s.allowed('u-lane', 'write', 'document:doc-lane')).toBe(false);
  });

  it("writes the request's id, correlation id, key and audit metadata into its events", async () => {
    const answer = await send(
      {
        path: `${s.facts}/resource_instances`,
        body: json({ key: 'audited', resource: 'document', tenant: 'acme' }),
        headers: { 'x-request-id': 'req-lane-1', 'x-correlation-id': 'corr-1', 'x-audit-metadata': json({ ticket: 'T-1' }) },
      },
      LANE_TYPE,
    );
    expect(answer).toMatchObject({ status: 200, requestId: 'req-lane-1' });
    const keyId = (await s.api.get('/v2/api-key/scope')).body.id as string | undefined;
    const log = await s.api.get(`/v2/events/default/${s.envKey}?resource_instance=document:audited`);
    expect(log.status).toBe(200);
    expect(log.body.data).toEqual([
      expect.objectContaining({
        position: Number(answer.position),
        request_id: 'req-lane-1',
        correlation_id: 'corr-1',
        audit_metadata: { ticket: 'T-1' },
        actor: expect.objectContaining({ type: 'api_key', ...(keyId ? { id: keyId } : {}) }),
      }),
    ]);
  });

  it('hands bodies it does not take to the route, which refuses them as before', async () => {
    const path = `${s.facts}/resource_instances`;
    const handed: Array<[string, number]> = [
      [json({ key: 'x', resource: 'document', tenant: 'acme', surprise: 1 }), 422],
      [json({ key: 'x', resource: 'document' }), 422],
      [json({ key: 'not ok', resource: 'document', tenant: 'acme' }), 422],
      [json({ key: 'x\u0000', resource: 'document', tenant: 'acme' }), 422],
      [json([{ key: 'x', resource: 'document', tenant: 'acme' }]), 422],
      ['null', 422],
      ['{"key":', 422],
    ];
    for (const [body, status] of handed) {
      const answer = await bothWays(() => ({ path, body }), 'handedOver');
      expect({ body, status: answer.status }).toEqual({ body, status });
    }
  });

  it('hands refused keys and paths to the route: 401, 403 and 404 in the API error shape', async () => {
    const body = () => ({ path: `${s.facts}/resource_instances`, body: json({ key: 'k', resource: 'document', tenant: 'acme' }) });
    expect((await bothWays(() => ({ ...body(), key: null }), 'handedOver')).status).toBe(401);
    expect((await bothWays(() => ({ ...body(), key: 'not-a-key' }), 'handedOver')).status).toBe(401);
    const readKey = await server.api.post('/v2/api-key', {
      project_id: 'default',
      environment_id: s.envKey,
      object_type: 'env',
      name: 'reader',
      access_level: 'read',
    });
    expect((await bothWays(() => ({ ...body(), key: readKey.body.secret as string }), 'handedOver')).status).toBe(403);
    // An environment key names its own environment only; another is 403, a missing one 404 to the admin key.
    expect((await bothWays(() => ({ ...body(), path: '/v2/facts/default/production/resource_instances' }), 'handedOver')).status).toBe(403);
    // A header the write would store, refused (422 naming it) before anything is executed.
    expect((await bothWays(() => ({ ...body(), headers: { 'x-audit-metadata': '[1]' } }), 'handedOver')).status).toBe(422);
    const missing = { ...body(), path: '/v2/facts/default/nowhere/resource_instances', key: server.adminKey };
    expect((await bothWays(() => missing, 'handedOver')).status).toBe(404);
  });

  it('hands a command the decision refuses to the route with its error, answered as the route answers it', async () => {
    await s.instance('document:taken', 'acme');
    const before = await server.service.eventStore.headPosition();
    const duplicate = () => ({ path: `${s.facts}/resource_instances`, body: json({ key: 'taken', resource: 'document', tenant: 'acme' }) });
    expect((await bothWays(duplicate, 'handedOver')).status).toBe(409);
    const unknownRole = () => ({
      path: `${s.facts}/role_assignments`,
      body: json({ user: 'v', role: 'owner', resource_instance: 'folder:f' }),
    });
    expect((await bothWays(unknownRole, 'handedOver')).status).toBeGreaterThanOrEqual(400);
    const unknownObject = () => ({
      path: `${s.facts}/relationship_tuples`,
      body: json({ subject: 'folder:f', relation: 'nope', object: 'document:taken' }),
    });
    expect((await bothWays(unknownObject, 'handedOver')).status).toBeGreaterThanOrEqual(400);
    expect(await server.service.eventStore.headPosition()).toBe(before);
  });

  it('never takes a path or request it does not read exactly: other spellings, a query, escapes, a wanted position', async () => {
    // It exists already: whichever way a request goes, it is refused the same (409), or refused for its query (422).
    await s.instance('document:spelled', 'acme');
    const body = json({ key: 'spelled', resource: 'document', tenant: 'acme' });
    const sent =
      (path: string, headers: Record<string, string> = {}) =>
      () => ({ path, body, headers });
    expect((await bothWays(sent(`${s.facts}/resource_instances?x=1`), 'not taken')).status).toBe(422);
    expect((await bothWays(sent(`${s.facts}/resource_instances/`), 'not taken')).status).toBe(409);
    expect((await bothWays(sent(`${s.facts}/Resource_Instances`), 'not taken')).status).toBe(409);
    expect((await bothWays(sent(`/v2/facts/default/create%2Dlane/resource_instances`), 'not taken')).status).toBe(409);
    expect((await bothWays(sent(`${s.facts}/resource_instances`, { 'x-min-event-position': '1' }), 'not taken')).status).toBe(409);
    expect((await bothWays(sent(`${s.facts}/resource_instances`), 'not taken', 'text/plain')).status).toBe(415);
  });
});

describe('a create the lane stored whose read models are late', () => {
  let server: TestServer;
  beforeAll(async () => {
    // The test makes this process's store fail: the projections run on this thread (not their own).
    server = await startTestServer({ env: { READ_YOUR_WRITES_TIMEOUT_MS: '200', PROJECTION_THREAD: 'false' } });
  });
  afterAll(() => server.close());

  it('is answered 503 with its position and the request id its event carries, and is not executed again', async () => {
    const s = await Scenario.create(server, 'late');
    await documentSchema(s);
    expect(server.service.runner).toBeInstanceOf(ProjectionRunner);
    const before = { ...server.service.metrics.createLanes };
    // Four failed batches back off for about 1.5 s, longer than the 200 ms a write waits.
    failCheckpointSaves(server.service.documentStore.writerView(), 'read-models', 4);
    const late = await fetch(`${server.url}${s.facts}/resource_instances`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.api.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ key: 'late', resource: 'document', tenant: 'acme' }),
    });
    expect(late.status).toBe(503);
    expect(await late.json()).toMatchObject({ error_code: 'UNEXPECTED_ERROR', reason: 'SERVICE_UNAVAILABLE' });
    expect(server.service.metrics.createLanes).toEqual({ answered: before.answered, handedOver: before.handedOver + 1 });
    const position = Number(late.headers.get('x-event-position'));
    expect(position).toBeGreaterThan(0);

    // Once the projections go through again, the instance is there once.
    let seen = await s.api.get(`${s.facts}/resource_instances?search=late`, { 'X-Min-Event-Position': String(position) });
    for (let tries = 0; seen.status === 503 && tries < 50; tries++) {
      seen = await s.api.get(`${s.facts}/resource_instances?search=late`, { 'X-Min-Event-Position': String(position) });
    }
    expect(seen.status).toBe(200);
    expect(seen.body.map((instance: { key: string }) => instance.key)).toEqual(['late']);
    const log = await s.api.get(`/v2/events/default/late?resource_instance=document:late`);
    expect(log.body.data).toEqual([expect.objectContaining({ position, request_id: late.headers.get('x-request-id') })]);
  });
});
