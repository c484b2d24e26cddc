import { Permit } from 'permitio';
import { hashApiKeySecret } from '../../shared/api-keys';
import { CURRENT_SCHEMA_VERSION, streams } from '../../shared/events';
import { FACTS, SCHEMA, startTestServer, type ApiClient, type TestServer } from '../support/embedded-server';

const errorShape = {
  id: expect.any(String),
  error_code: expect.any(String),
  title: expect.any(String),
  message: expect.any(String),
  support_link: expect.any(String),
};

describe('API keys: access levels and management', () => {
  let server: TestServer;
  let admin: ApiClient;
  let orgId: string;

  /** Creates a key and returns a client bound to it, with the created document. */
  async function keyClient(body: Record<string, unknown>): Promise<{ client: ApiClient; key: any }> {
    const created = await admin.post('/v2/api-key', body);
    expect(created.status).toBe(200);
    return { client: admin.withKey(created.body.secret), key: created.body };
  }
  const envKey = (access_level?: string) =>
    keyClient({ project_id: 'default', environment_id: 'production', object_type: 'env', name: `env-${access_level}`, access_level });

  /** Every refused request must leave the log as it was. */
  async function expectNothingAppended(action: () => Promise<unknown>) {
    const before = await server.service.eventStore.headPosition();
    await action();
    expect(await server.service.eventStore.headPosition()).toBe(before);
  }

  beforeAll(async () => {
    server = await startTestServer();
    admin = server.api;
    orgId = (await admin.get('/v2/api-key/scope')).body.organization_id;
    await admin.post(`${SCHEMA}/resources`, { key: 'doc', name: 'Doc', actions: { read: {} } });
    await admin.post(`${SCHEMA}/roles`, { key: 'reader', name: 'Reader', permissions: ['doc:read'] });
    await admin.post(`${FACTS}/tenants`, { key: 'acme', name: 'Acme' });
    await admin.post(`${FACTS}/users`, { key: 'alice' });
    await admin.post(`${FACTS}/role_assignments`, { user: 'alice', role: 'reader', tenant: 'acme' });
  });
  afterAll(() => server.close());

  it('stores the access level and returns it, never the hash', async () => {
    const { key } = await envKey('read');
    expect(key).toMatchObject({ access_level: 'read', object_type: 'env', secret: expect.stringMatching(/^permit_key_/) });
    expect(key).not.toHaveProperty('_secret_hash');
    const read = await admin.get(`/v2/api-key/${key.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: key.id, access_level: 'read' });
    expect(read.body).not.toHaveProperty('secret');
    expect(read.body).not.toHaveProperty('_secret_hash');
    expect((await envKey()).key.access_level).toBe('admin');
  });

  it('a read key reads and checks, but cannot write (403 naming its level; nothing appended)', async () => {
    const { client } = await envKey('read');
    expect((await client.get(`${FACTS}/users`)).status).toBe(200);
    expect((await client.get(`${SCHEMA}/resources`)).status).toBe(200);
    const check = await client.post('/allowed', { user: 'alice', action: 'read', resource: { type: 'doc', tenant: 'acme' } });
    expect(check.status).toBe(200);
    expect(check.body.allow).toBe(true);
    const bulk = await client.post('/allowed/bulk', [{ user: 'alice', action: 'read', resource: { type: 'doc', tenant: 'acme' } }]);
    expect(bulk.status).toBe(200);
    expect((await client.post('/user-permissions', { user: { key: 'alice' }, tenants: ['acme'] })).status).toBe(200);
    expect((await client.post('/authorized_users', { action: 'read', resource: { type: 'doc', tenant: 'acme' } })).status).toBe(200);
    await expectNothingAppended(async () => {
      const write = await client.post(`${FACTS}/tenants`, { key: 'globex', name: 'Globex' });
      expect(write.status).toBe(403);
      expect(write.body).toMatchObject({
        ...errorShape,
        error_code: 'FORBIDDEN_ACCESS',
        message: expect.stringContaining("'read' access level"),
        additional_info: { access_level: 'read', required_access_level: 'write' },
      });
      expect((await client.post(`${SCHEMA}/resources`, { key: 'x', name: 'X', actions: {} })).status).toBe(403);
      expect((await client.delete(`${FACTS}/users/alice`)).status).toBe(403);
    });
  });

  it('a write key writes schema and facts, but cannot manage keys, projects or environments', async () => {
    const project = await keyClient({ project_id: 'default', object_type: 'project', name: 'writer', access_level: 'write' });
    const client = project.client;
    expect((await client.post(`${SCHEMA}/resources`, { key: 'folder', name: 'Folder', actions: { read: {} } })).status).toBe(200);
    expect((await client.post(`${FACTS}/tenants`, { key: 'initech', name: 'Initech' })).status).toBe(200);
    await expectNothingAppended(async () => {
      for (const refused of [
        client.post('/v2/api-key', { project_id: 'default', object_type: 'project' }),
        client.get('/v2/api-key'),
        client.get(`/v2/api-key/${project.key.id}`),
        client.delete(`/v2/api-key/${project.key.id}`),
        client.post(`/v2/api-key/${project.key.id}/rotate-secret`, {}),
        client.post('/v2/projects/default/envs', { key: 'qa', name: 'QA' }),
        client.post('/v2/projects/default/envs/production/copy', { target_env: { new: { key: 'qa2', name: 'QA2' } } }),
      ]) {
        const response = await refused;
        expect(response.status).toBe(403);
        expect(response.body.additional_info).toEqual({ access_level: 'write', required_access_level: 'admin' });
      }
    });
    expect((await client.get('/v2/api-key/scope')).status).toBe(200);
    expect((await client.get('/v2/projects/default/envs')).status).toBe(200);
    const orgWriter = await keyClient({ object_type: 'org', name: 'org writer', access_level: 'write' });
    expect((await orgWriter.client.post('/v2/projects', { key: 'nope', name: 'Nope' })).status).toBe(403);
  });

  it('a key created before access levels existed reads back as admin', async () => {
    const secret = 'permit_key_legacy-0123456789abcdef';
    const stream = streams.organization(orgId);
    const { position } = await server.service.eventStore.append(
      stream,
      [
        {
          type: 'ApiKeyCreated',
          // The data as the service wrote it before this change: no accessLevel.
          data: {
            id: 'legacy-key',
            name: 'legacy',
            secretHash: hashApiKeySecret(secret),
            scope: { level: 'organization', projectId: null, environmentId: null },
          },
          metadata: { actor: null, timestamp: new Date().toISOString(), schemaVersion: CURRENT_SCHEMA_VERSION },
        },
      ],
      await server.service.eventStore.streamVersion(stream),
    );
    expect(await server.service.runner.waitForPosition(position, 5000)).toBe(true);
    const legacy = admin.withKey(secret);
    expect((await admin.get('/v2/api-key/legacy-key')).body.access_level).toBe('admin');
    expect((await legacy.post('/v2/projects', { key: 'legacy-project', name: 'Legacy' })).status).toBe(200);
    expect((await legacy.get('/v2/api-key')).status).toBe(200);
    // The command side folds the old event too: the key can be deleted.
    expect((await admin.delete('/v2/api-key/legacy-key')).status).toBe(204);
    expect((await legacy.get('/v2/projects')).status).toBe(401);
  });

  it('lists the keys within the caller scope, paginated as Permit does, without secrets', async () => {
    const scoped = await keyClient({ project_id: 'legacy-project', object_type: 'project', name: 'scoped' });
    const all = await admin.get('/v2/api-key?per_page=100');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ data: expect.any(Array), total_count: all.body.data.length, page_count: 1 });
    for (const key of all.body.data) {
      expect(key).not.toHaveProperty('secret');
      expect(key).not.toHaveProperty('_secret_hash');
    }
    expect(all.body.data.map((k: { id: string }) => k.id)).toContain(scoped.key.id);
    const orgKeys = await admin.get('/v2/api-key?object_type=org');
    expect(orgKeys.body.data.every((k: { object_type: string }) => k.object_type === 'org')).toBe(true);
    const inProject = await admin.get('/v2/api-key?proj_id=legacy-project');
    expect(inProject.body.data.map((k: { id: string }) => k.id)).toEqual([scoped.key.id]);
    const page = await admin.get('/v2/api-key?per_page=2&page=2');
    expect(page.body).toMatchObject({ total_count: all.body.total_count, page_count: Math.ceil(all.body.total_count / 2) });
    expect(page.body.data).toEqual(all.body.data.slice(2, 4));
    // A project key sees its project's keys only; another scope's key is not found.
    const own = await scoped.client.get('/v2/api-key');
    expect(own.body.data.map((k: { id: string }) => k.id)).toEqual([scoped.key.id]);
    expect((await scoped.client.get(`/v2/api-key/${all.body.data[0].id}`)).status).toBe(404);
    expect((await admin.get('/v2/api-key/no-such-key')).status).toBe(404);
  });

  it('a deleted key is refused at once, its cached scope and decisions included', async () => {
    const { client, key } = await envKey('read');
    const check = { user: 'alice', action: 'read', resource: { type: 'doc', tenant: 'acme' } };
    // Twice: the second answer comes from the caches (key scope and decision).
    expect((await client.post('/allowed', check)).status).toBe(200);
    expect((await client.post('/allowed', check)).status).toBe(200);
    expect((await client.get(`${FACTS}/users`)).status).toBe(200);
    const deleted = await admin.delete(`/v2/api-key/${key.id}`);
    expect(deleted.status).toBe(204);
    const refused = await client.post('/allowed', check);
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ ...errorShape, error_code: 'UNAUTHORIZED' });
    expect((await client.get(`${FACTS}/users`)).status).toBe(401);
    expect((await admin.get(`/v2/api-key/${key.id}`)).status).toBe(404);
    expect((await admin.delete(`/v2/api-key/${key.id}`)).status).toBe(404);
  });

  it('rotation refuses the old secret at once and returns the new one once', async () => {
    const { client, key } = await envKey('write');
    expect((await client.get(`${FACTS}/users`)).status).toBe(200);
    const rotated = await admin.post(`/v2/api-key/${key.id}/rotate-secret`, {});
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ id: key.id, access_level: 'write', secret: expect.stringMatching(/^permit_key_/) });
    expect(rotated.body.secret).not.toBe(key.secret);
    expect(rotated.body).not.toHaveProperty('_secret_hash');
    expect((await client.get(`${FACTS}/users`)).status).toBe(401);
    const renewed = admin.withKey(rotated.body.secret);
    expect((await renewed.get(`${FACTS}/users`)).status).toBe(200);
    expect((await renewed.post(`${FACTS}/tenants`, { key: 'rotated', name: 'Rotated' })).status).toBe(200);
    expect((await admin.get(`/v2/api-key/${key.id}`)).body).not.toHaveProperty('secret');
    expect((await admin.post('/v2/api-key/no-such-key/rotate-secret', {})).status).toBe(404);
  });

  it("refuses to delete the organization's last admin key", async () => {
    const orgAdmins = (await admin.get('/v2/api-key?object_type=org&per_page=100')).body.data.filter(
      (k: { access_level: string }) => k.access_level === 'admin',
    );
    expect(orgAdmins).toHaveLength(1);
    await expectNothingAppended(async () => {
      const refused = await admin.delete(`/v2/api-key/${orgAdmins[0].id}`);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ ...errorShape, message: expect.stringContaining('last admin API key') });
    });
    expect((await admin.get('/v2/api-key/scope')).status).toBe(200);
  });

  it("GET /v2/api-key/{proj}/{env} returns the environment's key without creating one", async () => {
    expect((await admin.post('/v2/projects/default/envs', { key: 'empty', name: 'Empty' })).status).toBe(200);
    await expectNothingAppended(async () => {
      const none = await admin.get('/v2/api-key/default/empty');
      expect(none.status).toBe(404);
      expect(none.body).toMatchObject({ ...errorShape, error_code: 'NOT_FOUND' });
    });
    const readOnly = await keyClient({ project_id: 'default', environment_id: 'empty', object_type: 'env', access_level: 'read' });
    const adminKey = await keyClient({ project_id: 'default', environment_id: 'empty', object_type: 'env' });
    const found = await admin.get('/v2/api-key/default/empty');
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({ id: adminKey.key.id, environment_id: adminKey.key.environment_id, access_level: 'admin' });
    expect(found.body).not.toHaveProperty('_secret_hash');
    expect(readOnly.key.id).not.toBe(found.body.id);
    // The official SDK's environments.getApiKey calls it.
    const permit = new Permit({ token: admin.key, apiUrl: server.url, pdp: server.url, log: { level: 'error' } });
    expect((await permit.api.environments.getApiKey('default', 'empty')).id).toBe(adminKey.key.id);
    // Another environment's key cannot ask.
    expect((await adminKey.client.get('/v2/api-key/default/production')).status).toBe(403);
  });
});
