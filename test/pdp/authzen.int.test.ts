import { FACTS, SCHEMA, startTestServer, type ApiClient, type TestServer } from '../support/embedded-server';

/** The AuthZEN Authorization API 1.0, answered by the grant queries of /allowed and /authorized_users. */
describe('AuthZEN endpoints', () => {
  let server: TestServer;
  let env: ApiClient;
  const user = (id: string) => ({ type: 'user', id });
  const doc = (id: string, tenant?: string) => ({ type: 'doc', id, ...(tenant ? { properties: { tenant } } : {}) });

  beforeAll(async () => {
    server = await startTestServer();
    const admin = server.api;
    env = await admin.environmentClient();
    await admin.post(`${SCHEMA}/resources`, { key: 'doc', name: 'Doc', actions: { read: {}, write: {}, share: {} } });
    await admin.post(`${SCHEMA}/resources/doc/roles`, { key: 'owner', name: 'Owner', permissions: ['read', 'write'] });
    await admin.post(`${SCHEMA}/roles`, { key: 'reader', name: 'Reader', permissions: ['doc:read'] });
    await admin.post(`${FACTS}/tenants`, { key: 'acme', name: 'Acme' });
    for (const key of ['d1', 'd2']) await admin.post(`${FACTS}/resource_instances`, { key, resource: 'doc', tenant: 'acme' });
    await admin.post(`${FACTS}/resource_instances`, { key: 'd3', resource: 'doc', tenant: 'default' });
    await admin.post(`${FACTS}/role_assignments`, { user: 'alice', role: 'owner', resource_instance: 'doc:d1' });
    await admin.post(`${FACTS}/role_assignments`, { user: 'bob', role: 'reader', tenant: 'acme' });
    await admin.post(`${FACTS}/role_assignments`, { user: 'carol', role: 'owner', resource_instance: 'doc:d1' });
  });
  afterAll(() => server.close());

  it('GET /.well-known/authzen-configuration names the endpoints under this base URL', async () => {
    const answer = await env.get('/.well-known/authzen-configuration');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      policy_decision_point: server.url,
      access_evaluation_endpoint: `${server.url}/access/v1/evaluation`,
      access_evaluations_endpoint: `${server.url}/access/v1/evaluations`,
      search_subject_endpoint: `${server.url}/access/v1/search/subject`,
      search_resource_endpoint: `${server.url}/access/v1/search/resource`,
      search_action_endpoint: `${server.url}/access/v1/search/action`,
    });
  });

  it('POST /access/v1/evaluation decides as /allowed does', async () => {
    const evaluate = async (subject: string, action: string, resource: object) =>
      (await env.post('/access/v1/evaluation', { subject: user(subject), action: { name: action }, resource })).body;
    expect(await evaluate('alice', 'write', doc('d1'))).toEqual({ decision: true });
    expect(await evaluate('alice', 'write', doc('d2'))).toEqual({ decision: false });
    // A tenant role: in the instance's own tenant.
    expect(await evaluate('bob', 'read', doc('d2', 'acme'))).toEqual({ decision: true });
    expect(await evaluate('bob', 'read', doc('d3'))).toEqual({ decision: false });
    // A missing member is AuthZEN's 400 with a message naming it (it was Permit's 422).
    const missing = await env.post('/access/v1/evaluation', { subject: user('alice'), action: { name: 'read' } });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual(expect.stringContaining('resource'));
    // Members it does not know are ignored, nested ones too (they were refused with 422).
    const extra = await env.post('/access/v1/evaluation', {
      subject: { ...user('alice'), role: 'x' },
      action: { name: 'write' },
      resource: doc('d1'),
    });
    expect(extra.status).toBe(200);
    expect(extra.body).toEqual({ decision: true });
  });

  it('POST /access/v1/evaluations: defaults, per-evaluation overrides and the three semantics', async () => {
    const body = {
      subject: user('alice'),
      resource: doc('d1'),
      evaluations: [{ action: { name: 'read' } }, { action: { name: 'share' } }, { action: { name: 'write' } }],
    };
    expect((await env.post('/access/v1/evaluations', body)).body).toEqual({
      evaluations: [{ decision: true }, { decision: false }, { decision: true }],
    });
    const first = async (evaluations_semantic: string) =>
      (await env.post('/access/v1/evaluations', { ...body, options: { evaluations_semantic } })).body.evaluations;
    expect(await first('deny_on_first_deny')).toEqual([{ decision: true }, { decision: false }]);
    expect(await first('permit_on_first_permit')).toEqual([{ decision: true }]);
    const overridden = await env.post('/access/v1/evaluations', {
      action: { name: 'read' },
      evaluations: [
        { subject: user('bob'), resource: doc('d2', 'acme') },
        { subject: user('nobody'), resource: doc('d2') },
      ],
    });
    expect(overridden.body.evaluations).toEqual([{ decision: true }, { decision: false }]);
    // An evaluation still incomplete with the defaults is an evaluation-level error: false, saying why (it was a 422).
    const incomplete = await env.post('/access/v1/evaluations', {
      evaluations: [
        { subject: user('bob'), action: { name: 'read' } },
        { subject: user('bob'), action: { name: 'read' }, resource: doc('d2', 'acme') },
      ],
    });
    expect(incomplete.status).toBe(200);
    expect(incomplete.body.evaluations).toEqual([
      { decision: false, context: { error: { status: 400, message: 'resource: missing in the evaluation and at the top level' } } },
      { decision: true },
    ]);
  });

  it('POST /access/v1/search/subject pages the users who may act', async () => {
    const first = await env.post('/access/v1/search/subject', {
      subject: { type: 'user' },
      action: { name: 'write' },
      resource: doc('d1'),
      page: { limit: 1 },
    });
    expect(first.body.results).toEqual([{ type: 'user', id: 'alice' }]);
    expect(first.body.page.next_token).not.toBe('');
    const second = await env.post('/access/v1/search/subject', {
      subject: { type: 'user' },
      action: { name: 'write' },
      resource: doc('d1'),
      page: { token: first.body.page.next_token, limit: 1 },
    });
    expect(second.body).toEqual({ results: [{ type: 'user', id: 'carol' }], page: { next_token: '' } });
  });

  it('POST /access/v1/search/resource lists instances, through instance and tenant roles', async () => {
    const search = async (subject: string, action: string) =>
      (await env.post('/access/v1/search/resource', { subject: user(subject), action: { name: action }, resource: { type: 'doc' } })).body;
    expect(await search('alice', 'write')).toEqual({ results: [{ type: 'doc', id: 'd1' }], page: { next_token: '' } });
    expect((await search('bob', 'read')).results).toEqual([
      { type: 'doc', id: 'd1' },
      { type: 'doc', id: 'd2' },
    ]);
    expect((await search('bob', 'write')).results).toEqual([]);
  });

  it('POST /access/v1/search/action lists what the subject may do on the resource', async () => {
    const search = async (subject: string, resource: object) =>
      (await env.post('/access/v1/search/action', { subject: user(subject), resource })).body;
    expect(await search('alice', doc('d1'))).toEqual({ results: [{ name: 'read' }, { name: 'write' }], page: { next_token: '' } });
    expect((await search('bob', doc('d2', 'acme'))).results).toEqual([{ name: 'read' }]);
    expect((await search('bob', { type: 'nothing', id: 'x' })).results).toEqual([]);
  });

  it('needs an environment key, as every PDP endpoint', async () => {
    expect(
      (await server.api.post('/access/v1/evaluation', { subject: user('a'), action: { name: 'r' }, resource: doc('d1') })).status,
    ).toBe(403);
    expect((await env.withKey('permit_key_wrong').get('/.well-known/authzen-configuration')).status).toBe(401);
  });
});
