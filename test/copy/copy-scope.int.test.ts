import { startTestServer, type ApiClient, type TestServer } from '../support/embedded-server';

/** Permit's copy scope: include/exclude key filters on resources and roles (`*` a wildcard). */
describe('environment copy with a scope', () => {
  let server: TestServer;
  let api: ApiClient;
  const source = '/v2/schema/default/production';
  const facts = '/v2/facts/default/production';
  const copy = (body: Record<string, unknown>) => api.post('/v2/projects/default/envs/production/copy', body);
  const keys = (items: Array<{ key: string }>) => items.map((i) => i.key).sort();

  beforeAll(async () => {
    server = await startTestServer();
    api = server.api;
    for (const key of ['doc', 'doc_draft', 'folder'])
      await api.post(`${source}/resources`, { key, name: key, actions: { read: {}, write: {} } });
    await api.post(`${source}/resources/folder/roles`, { key: 'editor', name: 'Editor', permissions: ['read', 'write'] });
    await api.post(`${source}/resources/doc/roles`, { key: 'editor', name: 'Editor', permissions: ['read', 'write'] });
    await api.post(`${source}/resources/doc/roles`, { key: 'viewer', name: 'Viewer', permissions: ['read'] });
    await api.post(`${source}/resources/doc/relations`, { key: 'parent', name: 'Parent', subject_resource: 'folder' });
    await api.patch(`${source}/resources/doc/roles/editor`, {
      granted_to: { users_with_role: [{ role: 'editor', on_resource: 'folder', linked_by_relation: 'parent' }] },
    });
    await api.post(`${source}/roles`, { key: 'reader', name: 'Reader', permissions: ['doc:read', 'folder:read'] });
    await api.post(`${source}/roles`, { key: 'admin', name: 'Admin', permissions: ['doc:write'] });
    await api.post(`${facts}/tenants`, { key: 'acme', name: 'Acme' });
    await api.post(`${facts}/resource_instances`, { key: 'f1', resource: 'folder', tenant: 'acme' });
    await api.post(`${facts}/resource_instances`, { key: 'd1', resource: 'doc', tenant: 'acme' });
    await api.post(`${facts}/relationship_tuples`, { subject: 'folder:f1', relation: 'parent', object: 'doc:d1' });
    await api.post(`${facts}/role_assignments`, { user: 'alice', role: 'reader', tenant: 'acme' });
    await api.post(`${facts}/role_assignments`, { user: 'bob', role: 'admin', tenant: 'acme' });
    await api.post(`${facts}/role_assignments`, { user: 'alice', role: 'editor', resource_instance: 'folder:f1' });
  });
  afterAll(() => server.close());

  it('resources: include with a wildcard and exclude; what a left-out type takes with it goes too', async () => {
    const r = await copy({
      target_env: { new: { key: 'docs-only', name: 'Docs only' } },
      scope: { resources: { include: ['doc*'], exclude: ['*_draft'] }, facts: true },
    });
    expect(r.status).toBe(200);
    const target = '/v2/schema/default/docs-only';
    expect(keys((await api.get(`${target}/resources`)).body)).toEqual(['doc']);
    expect(keys((await api.get(`${target}/resources/doc/roles`)).body)).toEqual(['editor', 'viewer']);
    // The derivation from folder and the relation to it went with folder.
    expect((await api.get(`${target}/resources/doc/roles/editor`)).body.granted_to?.users_with_role ?? []).toEqual([]);
    const relations = (await api.get(`${target}/resources/doc/relations`)).body;
    expect(Array.isArray(relations) ? relations : relations.data).toEqual([]);
    // Tenant roles keep their permissions on the types copied.
    expect((await api.get(`${target}/roles/reader`)).body.permissions).toEqual(['doc:read']);
    const targetFacts = '/v2/facts/default/docs-only';
    expect((await api.get(`${targetFacts}/resource_instances`)).body.map((i: { key: string }) => i.key)).toEqual(['d1']);
    expect((await api.get(`${targetFacts}/relationship_tuples`)).body).toEqual([]);
    const assignments = (await api.get(`${targetFacts}/role_assignments`)).body as Array<{ user: string; role: string }>;
    expect(assignments.map((a) => `${a.user}:${a.role}`).sort()).toEqual(['alice:reader', 'bob:admin']);
  });

  it('roles: exclude leaves the role, its assignments and the derivations naming it', async () => {
    const r = await copy({
      target_env: { new: { key: 'no-admin', name: 'No admin' } },
      scope: { roles: { exclude: ['admin', 'edit*'] }, facts: true },
    });
    expect(r.status).toBe(200);
    const target = '/v2/schema/default/no-admin';
    expect(keys((await api.get(`${target}/resources`)).body)).toEqual(['doc', 'doc_draft', 'folder']);
    expect(keys((await api.get(`${target}/roles`)).body)).toEqual(['reader']);
    expect(keys((await api.get(`${target}/resources/doc/roles`)).body)).toEqual(['viewer']);
    const assignments = (await api.get('/v2/facts/default/no-admin/role_assignments')).body as Array<{ user: string; role: string }>;
    expect(assignments.map((a) => `${a.user}:${a.role}`)).toEqual(['alice:reader']);
  });

  it('into an existing environment, the scope narrows what is merged', async () => {
    await api.post('/v2/projects/default/envs', { key: 'merge-into', name: 'Merge into' });
    const r = await copy({ target_env: { existing: 'merge-into' }, scope: { resources: { include: ['folder'] } } });
    expect(r.status).toBe(200);
    expect(keys((await api.get('/v2/schema/default/merge-into/resources')).body)).toEqual(['folder']);
    expect((await api.get('/v2/schema/default/merge-into/roles/reader')).body.permissions).toEqual(['folder:read']);
  });

  // What these filters take and leave is test/abac/copy.int.test.ts's (this source has no condition sets).
  it('user_sets and resource_sets filters leave the resource types alone; other shapes are refused', async () => {
    const r = await copy({
      target_env: { new: { key: 'with-sets', name: 'With sets' } },
      scope: { user_sets: { include: ['*'] }, resource_sets: { exclude: ['x'] } },
    });
    expect(r.status).toBe(200);
    expect(keys((await api.get('/v2/schema/default/with-sets/resources')).body)).toEqual(['doc', 'doc_draft', 'folder']);
    expect((await copy({ target_env: { new: { key: 'bad', name: 'Bad' } }, scope: { roles: ['admin'] } })).status).toBe(422);
  });

  it("every new environment has one `default` tenant: made with it, or copied from the source's, never two", async () => {
    const tenantKeys = async (env: string) =>
      ((await api.get(`/v2/facts/default/${env}/tenants`)).body as Array<{ key: string }>).map((t) => t.key).sort();
    // The source (the bootstrap environment) has had its own since its creation.
    expect(await tenantKeys('production')).toEqual(['acme', 'default']);
    expect((await api.post('/v2/projects/default/envs', { key: 'fresh', name: 'Fresh' })).status).toBe(200);
    expect(await tenantKeys('fresh')).toEqual(['default']);
    // A policy-only copy gets its own; a copy with the facts takes the source's.
    expect((await copy({ target_env: { new: { key: 'policy-copy', name: 'P' } } })).status).toBe(200);
    expect(await tenantKeys('policy-copy')).toEqual(['default']);
    expect((await copy({ target_env: { new: { key: 'facts-copy', name: 'F' } }, scope: { facts: true } })).status).toBe(200);
    expect(await tenantKeys('facts-copy')).toEqual(['acme', 'default']);
    // Into an existing environment, the source's `default` meets the target's: the same tenant, no conflict.
    const merged = await copy({ target_env: { existing: 'fresh' }, scope: { facts: true } });
    expect(merged.status).toBe(200);
    expect(await tenantKeys('fresh')).toEqual(['acme', 'default']);
    // Role assignments in `default` work at once, as the SDKs make them.
    expect((await api.post('/v2/facts/default/fresh/role_assignments', { user: 'zoe', role: 'reader', tenant: 'default' })).status).toBe(
      200,
    );
  });
});
