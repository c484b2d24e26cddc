import { FACTS, SCHEMA, startTestServer, type ApiClient, type TestServer } from '../support/embedded-server';

/**
 * The caches of API keys, environment scopes and role permissions are kept per the position of
 * the last change to their own read models (Freshness.lastChangeOf), not per every projected
 * event: writes of facts leave them warm, and a change to a key, an environment or a role still
 * reaches the very next request.
 */
describe('caches kept per read-model group', () => {
  let server: TestServer;
  let admin: ApiClient;
  let writer: ApiClient;

  beforeAll(async () => {
    server = await startTestServer();
    admin = server.api;
    writer = await admin.environmentClient();
    expect((await admin.post(`${SCHEMA}/resources`, { key: 'doc', name: 'Doc', actions: { read: {}, write: {} } })).status).toBe(200);
    expect((await admin.post(`${SCHEMA}/resources/doc/roles`, { key: 'viewer', name: 'Viewer', permissions: ['read'] })).status).toBe(200);
    expect((await admin.post(`${FACTS}/tenants`, { key: 'acme', name: 'Acme' })).status).toBe(200);
    expect((await admin.post(`${FACTS}/resource_instances`, { key: 'd1', resource: 'doc', tenant: 'acme' })).status).toBe(200);
    expect((await admin.post(`${FACTS}/role_assignments`, { user: 'alice', role: 'viewer', resource_instance: 'doc:d1' })).status).toBe(
      200,
    );
  });
  afterAll(() => server.close());

  it('writes of facts do not send each request back to the store for its key and scope', async () => {
    const rm = server.service.services.readModels;
    expect((await writer.post(`${FACTS}/users`, { key: 'warm-up' })).status).toBe(200);
    const keyLookups = jest.spyOn(rm.apiKeys, 'findOne');
    const scopeLookups = jest.spyOn(rm.environments, 'findOne');
    try {
      for (let i = 0; i < 10; i++) expect((await writer.post(`${FACTS}/users`, { key: `u${i}` })).status).toBe(200);
      expect(keyLookups).not.toHaveBeenCalled();
      expect(scopeLookups).not.toHaveBeenCalled();
    } finally {
      keyLookups.mockRestore();
      scopeLookups.mockRestore();
    }
  });

  it('a key deleted after writes of facts is refused at its next request', async () => {
    const created = await admin.post('/v2/api-key', {
      project_id: 'default',
      environment_id: 'production',
      object_type: 'env',
      name: 'doomed',
    });
    const doomed = admin.withKey(created.body.secret);
    for (let i = 0; i < 3; i++) expect((await doomed.post(`${FACTS}/users`, { key: `doomed-${i}` })).status).toBe(200);
    expect((await admin.delete(`/v2/api-key/${created.body.id}`)).status).toBe(204);
    expect((await doomed.get(`${FACTS}/users`)).status).toBe(401);
    // The other key, cached at the same time, still works.
    expect((await writer.get(`${FACTS}/users`)).status).toBe(200);
  });

  it("a role's new permissions apply to the next check, with facts written between the checks", async () => {
    const check = async () => (await writer.post('/allowed', { user: 'alice', action: 'write', resource: 'doc:d1' })).body.allow;
    expect(await check()).toBe(false);
    expect((await writer.post(`${FACTS}/users`, { key: 'between-1' })).status).toBe(200);
    expect(await check()).toBe(false);
    expect((await admin.patch(`${SCHEMA}/resources/doc/roles/viewer`, { permissions: ['read', 'write'] })).status).toBe(200);
    expect(await check()).toBe(true);
    expect((await writer.post(`${FACTS}/users`, { key: 'between-2' })).status).toBe(200);
    expect((await admin.patch(`${SCHEMA}/resources/doc/roles/viewer`, { permissions: ['read'] })).status).toBe(200);
    expect(await check()).toBe(false);
  });
});
