import { FACTS, SCHEMA, loadFolderFileExample, startTestServer, type ApiClient, type TestServer } from '../support/embedded-server';

describe('lists, filters, pagination and deletes', () => {
  let server: TestServer;
  let api: ApiClient;
  beforeAll(async () => {
    server = await startTestServer();
    api = await server.api.environmentClient();
    await loadFolderFileExample(api);
    await api.post(`${FACTS}/tenants`, { key: 'globex', name: 'Globex' });
    for (const key of ['a', 'b', 'c']) await api.post(`${FACTS}/resource_instances`, { key, resource: 'file', tenant: 'globex' });
  });
  afterAll(() => server.close());

  const keys = (items: Array<{ key: string }>) => items.map((i) => i.key).sort();

  it('lists resources, roles and relations', async () => {
    expect(keys((await api.get(`${SCHEMA}/resources`)).body)).toEqual(['file', 'folder']);
    expect(keys((await api.get(`${SCHEMA}/resources/file/roles`)).body)).toEqual(['editor', 'viewer']);
    // A resource type's relations are always a page, as Permit answers them.
    expect((await api.get(`${SCHEMA}/resources/file/relations`)).body).toMatchObject({ total_count: 1, page_count: 1 });
    expect(keys((await api.get(`${SCHEMA}/resources/file/relations`)).body.data)).toEqual(['parent']);
    const counted = await api.get(`${SCHEMA}/resources?include_total_count=true&per_page=1`);
    expect(counted.body).toMatchObject({ total_count: 2, page_count: 2 });
    expect(counted.body.data).toHaveLength(1);
  });

  it('filters instances by resource and tenant, and pages through them', async () => {
    expect(keys((await api.get(`${FACTS}/resource_instances?tenant=globex`)).body)).toEqual(['a', 'b', 'c']);
    expect(keys((await api.get(`${FACTS}/resource_instances?resource=folder`)).body)).toEqual(['docs']);
    const page1 = (await api.get(`${FACTS}/resource_instances?tenant=globex&per_page=2&page=1`)).body;
    const page2 = (await api.get(`${FACTS}/resource_instances?tenant=globex&per_page=2&page=2`)).body;
    expect(page1).toHaveLength(2);
    expect(keys([...page1, ...page2])).toEqual(['a', 'b', 'c']);
  });

  it('filters assignments by user, role and resource_instance; tuples by subject, relation and object', async () => {
    await api.post(`${FACTS}/role_assignments`, { user: 'bob', role: 'viewer', resource_instance: 'file:a' });
    expect((await api.get(`${FACTS}/role_assignments?role=viewer`)).body.map((a: { user: string }) => a.user)).toEqual(['bob']);
    expect((await api.get(`${FACTS}/role_assignments?resource_instance=folder:docs`)).body.map((a: { user: string }) => a.user)).toEqual([
      'alice',
    ]);
    expect((await api.get(`${FACTS}/relationship_tuples?subject=folder:docs`)).body).toHaveLength(1);
    expect((await api.get(`${FACTS}/relationship_tuples?relation=parent&object=file:a`)).body).toHaveLength(0);
  });

  it('users list is paginated with a total count', async () => {
    const users = await api.get(`${FACTS}/users`);
    expect(users.body).toMatchObject({ total_count: expect.any(Number), data: expect.any(Array) });
    expect(users.body.data.map((u: { key: string }) => u.key)).toContain('alice');
  });

  it('unassigns and deletes tuples by body, and 404s when they are gone', async () => {
    const assignment = { user: 'bob', role: 'viewer', resource_instance: 'file:a' };
    expect((await api.delete(`${FACTS}/role_assignments`, assignment)).status).toBe(204);
    expect((await api.delete(`${FACTS}/role_assignments`, assignment)).status).toBe(404);
    const tuple = { subject: 'folder:docs', relation: 'parent', object: 'file:readme' };
    expect((await api.delete(`${FACTS}/relationship_tuples`, tuple)).status).toBe(204);
    expect((await api.get(`${FACTS}/relationship_tuples?subject=folder:docs`)).body).toHaveLength(0);
  });

  it('removes an implicit grant and a role', async () => {
    const grant = { role: 'viewer', on_resource: 'folder', linked_by_relation: 'parent' };
    expect((await api.delete(`${SCHEMA}/resources/file/roles/viewer/implicit_grants`, grant)).status).toBe(204);
    expect((await api.get(`${SCHEMA}/resources/file/roles/viewer`)).body.granted_to.users_with_role).toEqual([]);
    expect((await api.delete(`${SCHEMA}/resources/file/roles/viewer`)).status).toBe(204);
    expect((await api.get(`${SCHEMA}/resources/file/roles/viewer`)).status).toBe(404);
  });

  it('deleting a tenant deletes its instances; deleting a resource deletes its roles, relations and instances', async () => {
    expect((await api.delete(`${FACTS}/tenants/globex`)).status).toBe(204);
    expect((await api.get(`${FACTS}/resource_instances?tenant=globex`)).body).toEqual([]);
    expect((await api.delete(`${SCHEMA}/resources/folder`)).status).toBe(204);
    expect((await api.get(`${SCHEMA}/resources/file/relations`)).body).toEqual({ data: [], total_count: 0, page_count: 0 });
    expect((await api.get(`${FACTS}/resource_instances/folder:docs`)).status).toBe(404);
    expect((await api.get(`${FACTS}/role_assignments?user=alice`)).body).toEqual([]);
    expect((await api.get(`${SCHEMA}/resources/file/roles/editor`)).body.granted_to.users_with_role).toEqual([]);
  });

  it('top-level roles: create, list, get, delete', async () => {
    const created = await api.post(`${SCHEMA}/roles`, { key: 'member', name: 'Member', permissions: ['file:read'] });
    expect(created.status).toBe(200);
    expect((await api.post(`${SCHEMA}/roles`, { key: 'bad', name: 'Bad', permissions: ['read'] })).status).toBe(400);
    expect(keys((await api.get(`${SCHEMA}/roles`)).body)).toEqual(['member']);
    expect((await api.get(`${SCHEMA}/roles/${created.body.id}`)).body.key).toBe('member');
    expect((await api.delete(`${SCHEMA}/roles/member`)).status).toBe(204);
    expect((await api.get(`${SCHEMA}/roles/member`)).status).toBe(404);
  });

  it('projects and environments: create, list, get; api key scope', async () => {
    const admin = server.api;
    expect((await admin.post('/v2/projects', { key: 'second', name: 'Second' })).status).toBe(200);
    expect((await admin.post('/v2/projects', { key: 'second', name: 'Second' })).status).toBe(409);
    expect(keys((await admin.get('/v2/projects')).body)).toEqual(['default', 'second']);
    expect((await admin.post('/v2/projects/second/envs', { key: 'dev', name: 'Dev' })).status).toBe(200);
    // Permit makes a project with its production and development environments.
    expect(keys((await admin.get('/v2/projects/second/envs')).body)).toEqual(['dev', 'development', 'production']);
    expect((await admin.get('/v2/projects/second/envs/dev')).body).toMatchObject({ key: 'dev', project_id: expect.any(String) });
    const projectKey = await admin.post('/v2/api-key', { project_id: 'second', object_type: 'project' });
    expect(projectKey.body.secret).toMatch(/^permit_key_/);
    const scoped = admin.withKey(projectKey.body.secret);
    expect(Object.keys((await scoped.get('/v2/api-key/scope')).body).sort()).toEqual(['organization_id', 'project_id']);
    expect((await scoped.get('/v2/projects/default')).status).toBe(403);
    expect((await scoped.post('/v2/api-key', { object_type: 'org' })).status).toBe(403);
  });
});
