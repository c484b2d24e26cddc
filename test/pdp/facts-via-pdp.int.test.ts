import { failCheckpointSaves } from '../support/failing-checkpoints';
import { FACTS, SCHEMA, startTestServer, type ApiClient, type TestServer } from '../support/embedded-server';

/**
 * Permit's PDP takes facts at `/facts/…` (the Python SDK's `proxy_facts_via_pdp`) and forwards them
 * to `/v2/facts/{proj}/{env}/…` of its key's environment, honouring X-Wait-Timeout and
 * X-Timeout-Policy. Here the same routes serve them; the headers bound the read-your-writes wait.
 */
describe('facts through the PDP: /facts/…', () => {
  let server: TestServer;
  let env: ApiClient;
  const head = () => server.service.eventStore.headPosition();

  beforeAll(async () => {
    server = await startTestServer();
    env = await server.api.environmentClient();
    await server.api.post(`${SCHEMA}/resources`, { key: 'doc', name: 'Doc', actions: { read: {}, write: {} } });
    await server.api.post(`${SCHEMA}/roles`, { key: 'reader', name: 'Reader', permissions: ['doc:read'] });
  });
  afterAll(() => server.close());

  it('serves the /v2/facts operations in the key’s environment: writes, reads, deletes, and the checks see them', async () => {
    const tenant = await env.post('/facts/tenants', { key: 'acme', name: 'Acme' });
    expect(tenant.status).toBe(200);
    expect(tenant.body).toMatchObject({ key: 'acme', name: 'Acme' });
    expect(Number(tenant.headers.get('x-event-position'))).toBeGreaterThan(0);
    expect((await env.post('/facts/users', { key: 'ann', email: 'ann@example.com' })).body).toMatchObject({ key: 'ann' });
    const assigned = await env.post('/facts/role_assignments', { user: 'ann', role: 'reader', tenant: 'acme' });
    expect(assigned.status).toBe(200);
    expect(assigned.body).toMatchObject({ user: 'ann', role: 'reader', tenant: 'acme' });
    const allowed = await env.post('/allowed', { user: 'ann', action: 'read', resource: { type: 'doc', tenant: 'acme' } });
    expect(allowed.body.allow).toBe(true);

    // The same objects as /v2/facts has them, with its query parameters.
    expect((await env.get('/facts/users/ann')).body).toEqual((await env.get(`${FACTS}/users/ann`)).body);
    const listed = await env.get('/facts/users?page=1&per_page=10&include_total_count=true');
    expect(listed.body).toMatchObject({ data: [{ key: 'ann' }], total_count: 1 });
    expect((await env.get('/facts/role_assignments?user=ann')).body).toHaveLength(1);
    // PUT syncs: 201 when it created the user.
    expect((await env.request('PUT', '/facts/users/bob', { key: 'bob' })).status).toBe(201);
    expect((await env.patch('/facts/users/bob', { first_name: 'Bob' })).body).toMatchObject({ key: 'bob', first_name: 'Bob' });

    const removed = await env.request('DELETE', '/facts/role_assignments', { user: 'ann', role: 'reader', tenant: 'acme' });
    expect(removed.status).toBe(204);
    expect((await env.post('/allowed', { user: 'ann', action: 'read', resource: { type: 'doc', tenant: 'acme' } })).body.allow).toBe(false);
    expect((await env.delete('/facts/users/bob')).status).toBe(204);
    expect((await env.get(`${FACTS}/users/bob`)).status).toBe(404);
  });

  it('needs an environment key; refuses what the route refuses, and changes nothing', async () => {
    const before = await head();
    const org = await server.api.post('/facts/tenants', { key: 'orgs', name: 'Org' });
    expect(org.status).toBe(403);
    expect(org.body).toMatchObject({ error_code: 'FORBIDDEN_ACCESS', additional_info: { required_scope: 'environment' } });
    expect((await env.withKey('permit_key_wrong').post('/facts/tenants', { key: 'x', name: 'X' })).status).toBe(401);
    const extra = await env.post('/facts/tenants', { key: 'extra', name: 'Extra', colour: 'red' });
    expect(extra.status).toBe(422);
    expect(extra.body.detail[0].loc).toEqual(['body', 'colour']);
    expect((await env.get('/facts/tenants?colour=red')).status).toBe(422);
    expect((await env.get('/facts/tenants/nope')).status).toBe(404);
    // Routed as /v2/facts is: every family /v2/facts serves, a path no route has 404, another method 405.
    expect((await env.get('/facts/user_invites')).status).toBe(200);
    expect((await env.get('/facts/nothing-here')).status).toBe(404);
    expect((await env.request('PUT', '/facts/tenants')).status).toBe(405);
    expect(await head()).toBe(before);
  });

  it('honours X-Wait-Timeout and X-Timeout-Policy (as the SDKs’ wait_for_sync send them); a malformed one is refused', async () => {
    for (const [timeout, policy] of [
      ['2.5', 'fail'],
      ['10', 'ignore'],
      ['0', 'FAIL'],
      ['', 'fail'],
      ['-1', 'ignore'],
    ] as const) {
      const key = `t${timeout.replace(/\W/g, '_')}${policy}`;
      const written = await env.request(
        'POST',
        '/facts/tenants',
        { key, name: key },
        { 'X-Wait-Timeout': timeout, 'X-Timeout-Policy': policy },
      );
      expect([key, written.status]).toEqual([key, 200]);
      expect((await env.get(`/facts/tenants/${key}`)).status).toBe(200);
    }
    // Also on /v2/facts: the Node SDK sends them there (its PDP base URL with the API's paths).
    expect((await env.request('POST', `${FACTS}/tenants`, { key: 'node', name: 'Node' }, { 'X-Wait-Timeout': '1' })).status).toBe(200);

    const before = await head();
    const badTimeout = await env.request('POST', '/facts/tenants', { key: 'bad1', name: 'Bad' }, { 'X-Wait-Timeout': 'soon' });
    expect(badTimeout.status).toBe(422);
    expect(badTimeout.body.detail[0].loc).toEqual(['header', 'x-wait-timeout']);
    const badPolicy = await env.request('POST', '/facts/tenants', { key: 'bad2', name: 'Bad' }, { 'X-Timeout-Policy': 'retry' });
    expect(badPolicy.status).toBe(422);
    expect(badPolicy.body.detail[0].loc).toEqual(['header', 'x-timeout-policy']);
    expect(await head()).toBe(before);
  });

  it('X-Min-Event-Position beyond the log’s head is refused at once, naming the head; a malformed one is 422', async () => {
    const headNow = await head();
    const started = Date.now();
    const beyond = await env.get('/facts/tenants', { 'X-Min-Event-Position': String(headNow + 5) });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(beyond.status).toBe(400);
    expect(beyond.body).toMatchObject({
      error_code: 'INVALID_INPUT',
      additional_info: { header: 'X-Min-Event-Position', position: headNow + 5, head: headNow },
    });
    expect(beyond.body.message).toContain(`position ${headNow}`);
    // A write with it writes nothing.
    expect(
      (await env.request('POST', '/facts/tenants', { key: 'never', name: 'Never' }, { 'X-Min-Event-Position': String(headNow + 5) }))
        .status,
    ).toBe(400);
    expect(await head()).toBe(headNow);
    // With the PDP's headers too: the wait they bound is never started.
    const withWait = await env.get('/facts/tenants', { 'X-Min-Event-Position': String(headNow + 5), 'X-Wait-Timeout': '30' });
    expect(withWait.status).toBe(400);
    expect((await env.get('/facts/tenants', { 'X-Min-Event-Position': String(headNow) })).status).toBe(200);
    expect((await env.get('/facts/tenants', { 'X-Min-Event-Position': '0' })).status).toBe(200);
    for (const malformed of ['abc', '-3', '1.5', '1e3']) {
      const refused = await env.get('/facts/tenants', { 'X-Min-Event-Position': malformed });
      expect([malformed, refused.status, refused.body.detail?.[0]?.loc]).toEqual([malformed, 422, ['header', 'x-min-event-position']]);
    }
  });

  it('the /facts operations are in the OpenAPI document, beside their /v2/facts ones', async () => {
    const doc = (await env.get('/openapi.json')).body;
    expect(Object.keys(doc.paths['/facts/tenants']).sort()).toEqual(Object.keys(doc.paths[`/v2/facts/{proj_id}/{env_id}/tenants`]).sort());
    const create = doc.paths['/facts/role_assignments'].post;
    expect(create.operationId).toBe('post_facts_role_assignments');
    expect(create.summary).toContain('PDP');
    // The wait headers are described once, in the document's info, not as parameters of each operation.
    expect(create.parameters).toEqual([]);
    expect(doc.info.description).toContain('X-Wait-Timeout');
    expect(create.responses['424']).toBeDefined();
    expect(create.requestBody).toEqual(doc.paths['/v2/facts/{proj_id}/{env_id}/role_assignments'].post.requestBody);
    expect(doc.paths['/facts/users/{user_id}'].get.parameters[0]).toMatchObject({ name: 'user_id', in: 'path' });
  });

  it('labels the metrics with the path the client called', async () => {
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(/route="\/facts\/tenants"/);
  });
});

describe('the PDP’s health paths', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('/healthy is /healthz and /healthchecks/opa/ready is /readyz, without a key', async () => {
    const get = async (path: string) => {
      const response = await fetch(`${server.url}${path}`);
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    expect(await get('/healthy')).toEqual(await get('/healthz'));
    const ready = await get('/healthchecks/opa/ready');
    expect(ready).toEqual({ status: 200, body: { status: 'ready', position: expect.any(Number) } });
    expect(ready.body.position).toBe((await get('/readyz')).body.position);
  });
});

describe('the PDP’s wait headers when the read models are late', () => {
  let server: TestServer;
  let env: ApiClient;
  beforeAll(async () => {
    // The test makes this process's store fail: the projections run on this thread (not their own).
    server = await startTestServer({ env: { READ_YOUR_WRITES_TIMEOUT_MS: '200', PROJECTION_THREAD: 'false' } });
    env = await server.api.environmentClient();
  });
  afterAll(() => server.close());
  // Four failed batches back off for about 1.5 s, longer than the 200 ms a write waits by default.
  const stall = () => failCheckpointSaves(server.service.documentStore.writerView(), 'read-models', 4);

  it('`fail`: 424 after X-Wait-Timeout, the write stored; `ignore` with a longer X-Wait-Timeout waits for it', async () => {
    stall();
    const late = await env.request(
      'POST',
      '/facts/tenants',
      { key: 'late', name: 'Late' },
      { 'X-Wait-Timeout': '0.1', 'X-Timeout-Policy': 'fail' },
    );
    expect(late.status).toBe(424);
    expect(late.body).toMatchObject({
      error_code: 'UNEXPECTED_ERROR',
      reason: 'SYNC_TIMEOUT',
      title: 'Not synced within X-Wait-Timeout',
      additional_info: { waited_ms: 100 },
    });
    const position = Number(late.headers.get('x-event-position'));
    expect(late.body.additional_info.position).toBe(position);
    // A read that asks for it, with the same headers, is 424 too; with a long enough wait, answered.
    const early = await env.get('/facts/tenants/late', {
      'X-Min-Event-Position': String(position),
      'X-Wait-Timeout': '0.05',
      'X-Timeout-Policy': 'fail',
    });
    expect([200, 424]).toContain(early.status);
    const waited = await env.get('/facts/tenants/late', { 'X-Min-Event-Position': String(position), 'X-Wait-Timeout': '20' });
    expect(waited.status).toBe(200);

    stall();
    const patient = await env.request('POST', '/facts/tenants', { key: 'patient', name: 'Patient' }, { 'X-Wait-Timeout': '20' });
    expect(patient.status).toBe(200);
    expect(patient.body).toMatchObject({ key: 'patient' });
  });
});

describe('POST /allowed_url', () => {
  let server: TestServer;
  let env: ApiClient;
  beforeAll(async () => {
    server = await startTestServer();
    env = await server.api.environmentClient();
  });
  afterAll(() => server.close());

  it('answers as the PDP does for a URL no mapping rule matches (an environment here has none)', async () => {
    // What `permit pdp check-url` sends.
    const query = {
      user: { key: 'ann', attributes: {} },
      url: 'https://app.example.com/documents/42?view=full',
      http_method: 'GET',
      tenant: 'default',
      context: {},
      sdk: 'permit-cli',
    };
    const answer = await env.post('/allowed_url', query);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      allow: false,
      result: false,
      query,
      debug: { reason: 'Matched mapping rule not found for the requested URL and HTTP method', mapping_rules: [] },
    });
  });

  it('checks the action of the mapping rule the URL matches, on its resource type in the tenant, as /allowed would', async () => {
    const ok = async (p: Promise<{ status: number; body: any }>) => {
      const r = await p;
      if (r.status >= 300) throw new Error(`${r.status}: ${JSON.stringify(r.body)}`);
      return r.body;
    };
    await ok(
      env.post(`${SCHEMA}/resources`, {
        key: 'document',
        name: 'Document',
        actions: { read: {}, get: {}, delete: {}, publish: {} },
        attributes: { classification: { type: 'string' } },
      }),
    );
    await ok(env.post(`${SCHEMA}/roles`, { key: 'viewer', name: 'Viewer', permissions: ['document:read', 'document:get'] }));
    await ok(env.post(`${FACTS}/tenants`, { key: 'acme', name: 'Acme' }));
    await ok(env.post(`${FACTS}/users`, { key: 'ann' }));
    await ok(env.post(`${FACTS}/role_assignments`, { user: 'ann', role: 'viewer', tenant: 'acme' }));
    // An attribute rule: adults may publish public documents (the classification a URL's placeholder gives).
    await ok(
      env.post(`${SCHEMA}/condition_sets`, {
        key: 'adults',
        name: 'Adults',
        conditions: { allOf: [{ 'user.age': { 'greater-than-equals': 18 } }] },
      }),
    );
    await ok(
      env.post(`${SCHEMA}/condition_sets`, {
        key: 'public-docs',
        name: 'Public',
        type: 'resourceset',
        resource_id: 'document',
        conditions: { allOf: [{ 'resource.classification': { equals: 'public' } }] },
      }),
    );
    await ok(env.post(`${FACTS}/set_rules`, { user_set: 'adults', permission: 'document:publish', resource_set: 'public-docs' }));
    const docs = 'https://api.example.com/documents/{id}';
    await ok(
      env.post(`${FACTS}/proxy_configs`, {
        key: 'a-docs',
        name: 'Documents',
        secret: 'tok',
        mapping_rules: [
          { url: docs, http_method: 'get', resource: 'document', action: 'read' },
          { url: docs, http_method: 'delete', resource: 'document' },
          { url: 'https://api.example.com/publish/{classification}', http_method: 'post', resource: 'document', action: 'publish' },
          { url: 'https://api.example.com/v2/docs/{id}', http_method: 'get', resource: 'document', action: 'delete' },
        ],
      }),
    );
    await ok(
      env.post(`${FACTS}/proxy_configs`, {
        key: 'b-docs',
        name: 'Documents v2',
        secret: 'tok',
        mapping_rules: [
          {
            url: String.raw`https://api\.example\.com/v2/docs/(?P<id>\d+)`,
            url_type: 'regex',
            http_method: 'get',
            resource: 'document',
            priority: 1,
          },
        ],
      }),
    );
    const check = async (user: unknown, http_method: string, url: string, tenant = 'acme') => {
      const answer = await env.post('/allowed_url', { user, http_method, url, tenant });
      expect(answer.status).toBe(200);
      expect(answer.body.result).toBe(answer.body.allow);
      return answer.body;
    };

    // The rule's action on its type in the tenant, the placeholder a resource attribute, in the PDP's shape.
    const read = await check({ key: 'ann' }, 'GET', 'https://api.example.com/documents/42?view=full');
    expect(read).toEqual({
      allow: true,
      result: true,
      query: {
        user: { key: 'ann' },
        action: 'read',
        resource: { type: 'document', tenant: 'acme', attributes: { id: '42' } },
        context: {},
      },
      debug: {
        mapping_rule: { url: docs, url_type: null, http_method: 'get', resource: 'document', headers: {}, action: 'read', priority: null },
      },
    });
    // The same check /allowed answers: no role in another tenant, none for another user.
    expect((await check({ key: 'ann' }, 'get', 'https://api.example.com/documents/42', 'other')).allow).toBe(false);
    expect((await check({ key: 'bob' }, 'GET', 'https://api.example.com/documents/42')).allow).toBe(false);
    // No action: the HTTP method is the action, which ann's role does not grant.
    const deleted = await check({ key: 'ann' }, 'DELETE', 'https://api.example.com/documents/42');
    expect(deleted).toMatchObject({ allow: false, query: { action: 'delete' } });

    // A placeholder's value is the attribute a set rule reads.
    const adult = { key: 'bob', attributes: { age: 30 } };
    expect(await check(adult, 'POST', 'https://api.example.com/publish/public')).toMatchObject({
      allow: true,
      query: { action: 'publish', resource: { attributes: { classification: 'public' } } },
    });
    expect((await check(adult, 'POST', 'https://api.example.com/publish/secret')).allow).toBe(false);
    expect((await check({ key: 'bob', attributes: { age: 12 } }, 'POST', 'https://api.example.com/publish/public')).allow).toBe(false);

    // Both v2 rules match a numeric id; the regex one has the higher priority (its action: the method, get).
    expect(await check({ key: 'ann' }, 'GET', 'https://api.example.com/v2/docs/7')).toMatchObject({
      allow: true,
      query: { action: 'get', resource: { attributes: { id: '7' } } },
      debug: { mapping_rule: { url_type: 'regex', priority: 1 } },
    });
    // Only the template matches another id: its action, delete, is denied.
    expect(await check({ key: 'ann' }, 'GET', 'https://api.example.com/v2/docs/draft')).toMatchObject({
      allow: false,
      query: { action: 'delete', resource: { attributes: { id: 'draft' } } },
    });

    // No rule for the method or the URL: the PDP's no-match answer, with the rules it looked at.
    for (const [method, url] of [
      ['PUT', 'https://api.example.com/documents/42'],
      ['GET', 'https://api.example.com/documents/42/raw'],
      ['GET', 'https://other.example.com/documents/42'],
    ] as const) {
      const none = await check({ key: 'ann' }, method, url);
      expect(none).toMatchObject({
        allow: false,
        debug: { reason: 'Matched mapping rule not found for the requested URL and HTTP method' },
      });
      expect(none.debug.mapping_rules).toHaveLength(5);
      expect(none.query).toEqual({ user: { key: 'ann' }, http_method: method, url, tenant: 'acme' });
    }
    // Attributes that are not an object are refused, as /allowed refuses them.
    const wrong = await env.post('/allowed_url', {
      user: { key: 'ann', attributes: 'x' },
      http_method: 'GET',
      url: 'https://api.example.com/documents/1',
      tenant: 'acme',
    });
    expect(wrong.status).toBe(422);
  });

  it('refuses what the PDP refuses, and fields it does not take; needs an environment key', async () => {
    const base = { user: { key: 'ann' }, url: 'https://app.example.com/x', http_method: 'GET', tenant: 'default' };
    const loc = async (body: unknown) =>
      ((await env.post('/allowed_url', body)).body as { detail: Array<{ loc: unknown }> }).detail[0]!.loc;
    expect(await loc({ ...base, url: 'ftp://app.example.com/x' })).toEqual(['body', 'url']);
    expect(await loc({ ...base, url: '/relative' })).toEqual(['body', 'url']);
    expect(await loc({ ...base, tenant: undefined })).toEqual(['body', 'tenant']);
    expect(await loc({ ...base, user: 'ann' })).toEqual(['body', 'user']);
    expect(await loc({ ...base, resource: 'doc' })).toEqual(['body', 'resource']);
    expect(await loc({ ...base, user: { key: 'ann', role: 'x' } })).toEqual(['body', 'user', 'role']);
    expect((await server.api.post('/allowed_url', base)).status).toBe(403);
  });
});
