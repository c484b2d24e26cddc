import { Permit } from 'permitio';
import { startTestServer, type TestServer } from '../support/embedded-server';

/**
 * The official `permitio` SDK (Node) against our server: projects and
 * environments with an organisation key (getStats, getApiKey, copy with a
 * scope), and the PDP calls with an environment key (checkAllTenants,
 * bulkCheck, getUserPermissions).
 */
describe('permitio: projects, environments and the PDP', () => {
  let server: TestServer;
  let org: Permit;
  let env: Permit;

  beforeAll(async () => {
    server = await startTestServer();
    org = new Permit({ token: server.adminKey, apiUrl: server.url, pdp: server.url, log: { level: 'error' } });
    const envApi = await server.api.environmentClient();
    env = new Permit({ token: envApi.key, apiUrl: server.url, pdp: server.url, log: { level: 'error' } });
  });
  afterAll(() => server.close());

  it('projects: create (with its production and development environments), get, update, list, delete', async () => {
    const created = await org.api.projects.create({ key: 'sdk-proj', name: 'SDK project' });
    expect(created).toMatchObject({ key: 'sdk-proj', name: 'SDK project' });
    const envs = await org.api.environments.list({ projectKey: 'sdk-proj' });
    expect(envs.map((e) => e.key).sort()).toEqual(['development', 'production']);
    const updated = await org.api.projects.update('sdk-proj', { name: 'Renamed', description: 'via the SDK' });
    expect(updated).toMatchObject({ key: 'sdk-proj', name: 'Renamed', description: 'via the SDK' });
    expect((await org.api.projects.get('sdk-proj')).name).toBe('Renamed');
    expect((await org.api.projects.list()).map((p) => p.key)).toContain('sdk-proj');
    await org.api.projects.delete('sdk-proj');
    await expect(org.api.projects.get('sdk-proj')).rejects.toThrow(/Project 'sdk-proj' not found/);
    expect((await org.api.projects.list()).map((p) => p.key)).not.toContain('sdk-proj');
  });

  it('environments: create, update, getStats, getApiKey, delete', async () => {
    const created = await org.api.environments.create('default', { key: 'sdk-env', name: 'SDK env' });
    expect(created).toMatchObject({ key: 'sdk-env', name: 'SDK env' });
    const updated = await org.api.environments.update('default', 'sdk-env', { description: 'described' });
    expect(updated).toMatchObject({ key: 'sdk-env', description: 'described' });
    const stats = await org.api.environments.getStats('default', 'sdk-env');
    expect(stats).toMatchObject({ key: 'sdk-env', pdp_configs: [], stats: { roles: 0, users: 0, resources: 0, has_decision_logs: false } });
    // getApiKey answers the environment's key (without its secret: only its hash is kept).
    const made = await server.api.post('/v2/api-key', { project_id: 'default', environment_id: 'sdk-env', object_type: 'env', name: 'k' });
    const key = await org.api.environments.getApiKey('default', 'sdk-env');
    expect(key).toMatchObject({ id: made.body.id, object_type: 'env', environment_id: created.id });
    await org.api.environments.delete('default', 'sdk-env');
    await expect(org.api.environments.get('default', 'sdk-env')).rejects.toThrow(/Environment 'sdk-env' not found/);
    expect((await server.api.withKey(made.body.secret).get('/v2/api-key/scope')).status).toBe(401);
  });

  it('environments.copy with a scope copies only what it names', async () => {
    await env.api.resources.create({ key: 'doc', name: 'Doc', actions: { read: {}, write: {} } });
    await env.api.resources.create({ key: 'secret', name: 'Secret', actions: { read: {} } });
    await env.api.roles.create({ key: 'reader', name: 'Reader', permissions: ['doc:read', 'secret:read'] });
    const copied = await org.api.environments.copy('default', 'production', {
      target_env: { new: { key: 'sdk-copy', name: 'SDK copy' } },
      scope: { resources: { include: ['*'], exclude: ['secret'] } },
    });
    expect(copied).toMatchObject({ key: 'sdk-copy' });
    const inCopy = await server.api.get('/v2/schema/default/sdk-copy/resources');
    expect(inCopy.body.map((r: { key: string }) => r.key)).toEqual(['doc']);
    expect((await server.api.get('/v2/schema/default/sdk-copy/roles/reader')).body.permissions).toEqual(['doc:read']);
  });

  it('PDP: checkAllTenants, bulkCheck, getUserPermissions', async () => {
    await env.api.tenants.create({ key: 'acme', name: 'Acme', attributes: { plan: 'pro' } });
    await env.api.tenants.create({ key: 'beta', name: 'Beta' });
    await env.api.users.create({ key: 'alice' });
    await env.api.roleAssignments.assign({ user: 'alice', role: 'reader', tenant: 'acme' });

    const tenants = await env.checkAllTenants('alice', 'read', 'doc');
    expect(tenants).toEqual([{ key: 'acme', attributes: { plan: 'pro' } }]);
    expect(await env.checkAllTenants('alice', 'write', 'doc')).toEqual([]);

    expect(
      await env.bulkCheck([
        { user: 'alice', action: 'read', resource: { type: 'doc', tenant: 'acme' } },
        { user: 'alice', action: 'read', resource: { type: 'doc', tenant: 'beta' } },
        { user: 'alice', action: 'write', resource: { type: 'doc', tenant: 'acme' } },
      ]),
    ).toEqual([true, false, false]);

    const permissions = await env.getUserPermissions('alice', ['acme']);
    expect(permissions['__tenant:acme']).toMatchObject({ permissions: expect.arrayContaining(['doc:read', 'secret:read']) });
  });
});
