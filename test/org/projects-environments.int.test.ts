import { FACTS, SCHEMA, startTestServer, type ApiClient, type TestServer } from '../support/embedded-server';

describe('projects and environments: defaults, updates, deletions with their keys, statistics', () => {
  let server: TestServer;
  let admin: ApiClient;

  beforeAll(async () => {
    server = await startTestServer();
    admin = server.api;
  });
  afterAll(() => server.close());

  const keys = (items: Array<{ key: string }>) => items.map((i) => i.key).sort();

  it("a new project has Permit's production and development environments; settings and urn_namespace are kept", async () => {
    const created = await admin.post('/v2/projects', { key: 'p1', name: 'P1', urn_namespace: 'p1-ns', settings: { a: 1 } });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ key: 'p1', urn_namespace: 'p1-ns', settings: { a: 1 } });
    expect(keys((await admin.get('/v2/projects/p1/envs')).body)).toEqual(['development', 'production']);
  });

  it('PATCH updates the fields given and refuses unknown ones (422 naming them, nothing changed)', async () => {
    await admin.post('/v2/projects', { key: 'p2', name: 'P2', description: 'before' });
    const patched = await admin.patch('/v2/projects/p2', { name: 'Renamed', settings: { x: true } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ key: 'p2', name: 'Renamed', description: 'before', settings: { x: true } });
    const refused = await admin.patch('/v2/projects/p2', { name: 'Again', active_policy_repo_id: 'r' });
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.body)).toContain('active_policy_repo_id');
    expect((await admin.get('/v2/projects/p2')).body.name).toBe('Renamed');

    const env = await admin.patch('/v2/projects/p2/envs/development', {
      description: 'dev env',
      custom_branch_name: 'dev',
      jwks: { keys: [] },
    });
    expect(env.status).toBe(200);
    expect(env.body).toMatchObject({
      key: 'development',
      name: 'Development',
      description: 'dev env',
      custom_branch_name: 'dev',
      jwks: { keys: [] },
    });
    expect((await admin.patch('/v2/projects/p2/envs/development', { key: 'other' })).status).toBe(422);
    expect((await admin.patch('/v2/projects/p2/envs/nope', { name: 'x' })).status).toBe(404);
  });

  it("deleting an environment deletes its keys: they are refused at once, the project's other keys keep working", async () => {
    await admin.post('/v2/projects', { key: 'p3', name: 'P3' });
    const envKey = (await admin.post('/v2/api-key', { project_id: 'p3', environment_id: 'development', object_type: 'env' })).body;
    const projectKey = (await admin.post('/v2/api-key', { project_id: 'p3', object_type: 'project' })).body;
    const envClient = admin.withKey(envKey.secret);
    expect((await envClient.get('/v2/api-key/scope')).status).toBe(200);
    // An environment key cannot delete environments.
    expect((await envClient.delete('/v2/projects/p3/envs/development')).status).toBe(403);

    expect((await admin.delete('/v2/projects/p3/envs/development')).status).toBe(204);
    expect((await envClient.get('/v2/api-key/scope')).status).toBe(401);
    expect((await admin.get(`/v2/api-key/${envKey.id}`)).status).toBe(404);
    expect((await admin.get('/v2/projects/p3/envs/development')).status).toBe(404);
    expect(keys((await admin.get('/v2/projects/p3/envs')).body)).toEqual(['production']);
    expect((await admin.withKey(projectKey.secret).get('/v2/projects/p3/envs')).status).toBe(200);
    // The key is free again: an environment of that key can be made anew, empty.
    expect((await admin.post('/v2/projects/p3/envs', { key: 'development', name: 'Dev again' })).status).toBe(200);
    expect((await admin.get('/v2/schema/p3/development/resources')).body).toEqual([]);
    expect((await admin.delete('/v2/projects/p3/envs/nope')).status).toBe(404);
  });

  it('deleting a project deletes its environments and every key scoped to them or to it', async () => {
    await admin.post('/v2/projects', { key: 'p4', name: 'P4' });
    const envKey = (await admin.post('/v2/api-key', { project_id: 'p4', environment_id: 'production', object_type: 'env' })).body;
    const projectKey = (await admin.post('/v2/api-key', { project_id: 'p4', object_type: 'project' })).body;
    const before = await server.service.eventStore.headPosition();
    expect((await admin.delete('/v2/projects/p4')).status).toBe(204);
    expect((await admin.withKey(envKey.secret).get('/v2/api-key/scope')).status).toBe(401);
    expect((await admin.withKey(projectKey.secret).get('/v2/api-key/scope')).status).toBe(401);
    expect((await admin.get('/v2/projects/p4')).status).toBe(404);
    expect((await admin.get('/v2/projects/p4/envs/production')).status).toBe(404);
    expect(keys((await admin.get('/v2/projects')).body)).not.toContain('p4');
    // Explicit cascade, one event each: the env key, both environments, the project key, the project.
    expect((await server.service.eventStore.headPosition()) - before).toBe(5);
    // The key can be used again.
    expect((await admin.post('/v2/projects', { key: 'p4', name: 'P4 again' })).status).toBe(200);
  });

  it("GET …/stats answers Permit's EnvironmentStats counted from the read models", async () => {
    await admin.post(`${SCHEMA}/resources`, { key: 'doc', name: 'Doc', actions: { read: {}, write: {} } });
    await admin.post(`${SCHEMA}/roles`, { key: 'reader', name: 'Reader', permissions: ['doc:read'] });
    await admin.post(`${SCHEMA}/resources/doc/roles`, { key: 'owner', name: 'Owner', permissions: ['read', 'write'] });
    await admin.post(`${FACTS}/tenants`, { key: 'acme', name: 'Acme' });
    await admin.post(`${FACTS}/users`, { key: 'alice' });
    const stats = await admin.get('/v2/projects/default/envs/production/stats');
    expect(stats.status).toBe(200);
    expect(stats.body).toMatchObject({ key: 'production', pdp_configs: [] });
    const tenants = (await admin.get(`${FACTS}/tenants`)).body.length;
    expect(stats.body.stats).toEqual({
      roles: 2,
      users: 1,
      policies: 3,
      resources: 1,
      tenants,
      has_decision_logs: false,
      members: [],
      mau: 0,
    });
  });
});
