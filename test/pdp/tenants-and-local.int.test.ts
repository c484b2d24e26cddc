import { FACTS, SCHEMA, startTestServer, type ApiClient, type TestServer } from '../support/embedded-server';

describe('PDP: all tenants, user tenants, local role assignments, authorized users, JSON content type', () => {
  let server: TestServer;
  let admin: ApiClient;
  let env: ApiClient;

  beforeAll(async () => {
    server = await startTestServer();
    admin = server.api;
    env = await admin.environmentClient();
    await admin.post(`${SCHEMA}/resources`, { key: 'doc', name: 'Doc', actions: { read: {}, write: {} } });
    await admin.post(`${SCHEMA}/resources/doc/roles`, { key: 'owner', name: 'Owner', permissions: ['read', 'write'] });
    await admin.post(`${SCHEMA}/roles`, { key: 'reader', name: 'Reader', permissions: ['doc:read'] });
    for (const key of ['acme', 'beta', 'gamma']) await admin.post(`${FACTS}/tenants`, { key, name: key, attributes: { tier: key } });
    await admin.post(`${FACTS}/resource_instances`, { key: 'd1', resource: 'doc', tenant: 'gamma' });
    await admin.post(`${FACTS}/role_assignments`, { user: 'alice', role: 'reader', tenant: 'acme' });
    await admin.post(`${FACTS}/role_assignments`, { user: 'alice', role: 'reader', tenant: 'beta' });
    await admin.post(`${FACTS}/role_assignments`, { user: 'alice', role: 'owner', resource_instance: 'doc:d1' });
    await admin.post(`${FACTS}/role_assignments`, { user: 'bob', role: 'reader', tenant: 'beta' });
  });
  afterAll(() => server.close());

  const tenant = (key: string) => ({ allow: true, result: true, tenant: { key, attributes: { tier: key } } });

  it('POST /allowed/all-tenants lists the tenants where the check is allowed, under both spellings', async () => {
    const typeLevel = await env.post('/allowed/all-tenants', { user: { key: 'alice' }, action: 'read', resource: { type: 'doc' } });
    expect(typeLevel.status).toBe(200);
    expect(typeLevel.headers.get('content-type')).toBe('application/json');
    expect(typeLevel.body.allowed_tenants).toEqual([tenant('acme'), tenant('beta')]);
    expect(typeLevel.body.allowedTenants).toEqual(typeLevel.body.allowed_tenants);
    // An existing instance is allowed only in its own tenant.
    const instance = await env.post('/allowed/all-tenants', { user: 'alice', action: 'write', resource: 'doc:d1' });
    expect(instance.body.allowed_tenants).toEqual([tenant('gamma')]);
    expect((await env.post('/allowed/all-tenants', { user: 'alice', action: 'write', resource: 'doc' })).body.allowed_tenants).toEqual([]);
    expect((await env.post('/allowed/all-tenants', { user: 'nobody', action: 'read', resource: 'doc' })).body.allowed_tenants).toEqual([]);
    // A field it does not take is refused, naming it, in either form of the body.
    const extra = await env.post('/allowed/all-tenants', { user: 'alice', action: 'read', resource: 'doc', tenant: 'acme' });
    expect(extra.status).toBe(422);
    expect(JSON.stringify(extra.body.detail)).toContain('tenant');
    const extraParam = await env.post('/allowed/all-tenants', { params: { user: 'alice', action: 'read', resource: 'doc', tenants: [] } });
    expect(extraParam.status).toBe(422);
    expect(JSON.stringify(extraParam.body.detail)).toContain('tenants');
  });

  it("accepts the Node SDK's body (the question under params, the key under headers.Authorization, no header)", async () => {
    const body = {
      headers: { Authorization: `Bearer ${env.key}`, 'X-Permit-Sdk-Language': 'node' },
      params: { user: 'bob', action: 'read', resource: 'doc', context: {} },
    };
    const answer = await fetch(`${server.url}/allowed/all-tenants`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { allowedTenants: unknown }).allowedTenants).toEqual([tenant('beta')]);
    // A wrong key there is refused like any other; elsewhere the body is never read for a key.
    const wrong = await fetch(`${server.url}/allowed/all-tenants`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, headers: { Authorization: 'Bearer permit_key_wrong' } }),
    });
    expect(wrong.status).toBe(401);
    const elsewhere = await fetch(`${server.url}/allowed`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...body.params, headers: body.headers }),
    });
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.headers.get('content-type')).toBe('application/json');
  });

  it('POST /user-tenants lists the tenants the user holds a role in, as the PDP does', async () => {
    const alice = await env.post('/user-tenants', { user: { key: 'alice' } });
    expect(alice.status).toBe(200);
    expect(alice.body).toEqual([
      { key: 'acme', attributes: { tier: 'acme' } },
      { key: 'beta', attributes: { tier: 'beta' } },
      { key: 'gamma', attributes: { tier: 'gamma' } },
    ]);
    expect((await env.post('/user-tenants', { user: 'nobody' })).body).toEqual([]);
    expect((await env.post('/user-tenants', {})).status).toBe(422);
  });

  it('GET /local/role_assignments filters and pages as the PDP does', async () => {
    const all = await env.get('/local/role_assignments');
    expect(all.status).toBe(200);
    expect(all.body).toHaveLength(4);
    expect((await env.get('/local/role_assignments?user=alice&tenant=beta')).body).toEqual([
      { user: 'alice', role: 'reader', tenant: 'beta', resource_instance: null },
    ]);
    expect((await env.get('/local/role_assignments?resource=doc')).body).toEqual([
      { user: 'alice', role: 'owner', tenant: 'gamma', resource_instance: 'doc:d1' },
    ]);
    expect((await env.get('/local/role_assignments?role=reader&per_page=2')).body).toHaveLength(2);
    expect((await env.get('/local/role_assignments?role=reader&per_page=2&page=2')).body).toHaveLength(1);
    expect((await env.get('/local/role_assignments?per_page=101')).status).toBe(422);
    // Project keys name no environment: the PDP endpoints need an environment key.
    expect((await admin.get('/local/role_assignments')).status).toBe(403);
  });

  it("POST /authorized_users answers the PDP's AuthorizedUsersResult at the top level, with our cursor", async () => {
    const answer = await env.post('/authorized_users', { action: 'write', resource: 'doc:d1' });
    expect(answer.body).toEqual({
      resource: 'doc:d1',
      tenant: 'gamma',
      users: { alice: [{ user: 'alice', tenant: 'gamma', resource: 'doc:d1', role: 'doc#owner' }] },
      next_cursor: null,
    });
  });

  it('answers JSON with exactly Content-Type: application/json, errors included', async () => {
    for (const answer of [await admin.get('/v2/projects'), await admin.get(`${FACTS}/tenants/nope`), await env.post('/allowed', {})]) {
      expect(answer.headers.get('content-type')).toBe('application/json');
    }
  });
});
