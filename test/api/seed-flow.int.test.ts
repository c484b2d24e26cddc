import { FACTS, SCHEMA, loadFolderFileExample, startTestServer, type TestServer } from '../support/embedded-server';

describe('the seed folder/file flow over HTTP', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('creates every object and reads each one back', async () => {
    const api = await server.api.environmentClient();
    await loadFolderFileExample(api);

    const folder = await api.get(`${SCHEMA}/resources/folder`);
    expect(folder.status).toBe(200);
    expect(Object.keys(folder.body.actions).sort()).toEqual(['read', 'share', 'write']);
    expect(folder.body).toMatchObject({
      key: 'folder',
      name: 'Folder',
      organization_id: expect.any(String),
      project_id: expect.any(String),
      environment_id: expect.any(String),
    });

    const fileEditor = await api.get(`${SCHEMA}/resources/file/roles/editor`);
    expect(fileEditor.body.granted_to.users_with_role).toEqual([
      expect.objectContaining({
        role: 'editor',
        on_resource: 'folder',
        linked_by_relation: 'parent',
        role_id: expect.any(String),
        relation_id: expect.any(String),
      }),
    ]);
    const fileViewer = await api.get(`${SCHEMA}/resources/file/roles/viewer`);
    expect(fileViewer.body.granted_to.users_with_role).toEqual([
      expect.objectContaining({ role: 'viewer', on_resource: 'folder', linked_by_relation: 'parent' }),
    ]);

    const relation = await api.get(`${SCHEMA}/resources/file/relations/parent`);
    expect(relation.body).toMatchObject({ key: 'parent', subject_resource: 'folder', object_resource: 'file' });

    const tenant = await api.get(`${FACTS}/tenants/acme`);
    expect(tenant.body).toMatchObject({ key: 'acme', name: 'Acme' });

    const instance = await api.get(`${FACTS}/resource_instances/folder:docs`);
    expect(instance.body).toMatchObject({ key: 'docs', resource: 'folder', tenant: 'acme', tenant_id: tenant.body.id });
    const byId = await api.get(`${FACTS}/resource_instances/${instance.body.id}`);
    expect(byId.body.key).toBe('docs');

    const assignments = await api.get(`${FACTS}/role_assignments?user=alice`);
    expect(assignments.body).toEqual([
      expect.objectContaining({ user: 'alice', role: 'editor', tenant: 'acme', resource_instance: 'folder:docs' }),
    ]);
    expect(assignments.body[0]).not.toHaveProperty('_resource');

    const user = await api.get(`${FACTS}/users/alice`);
    expect(user.status).toBe(200);

    const tuples = await api.get(`${FACTS}/relationship_tuples?object=file:readme`);
    expect(tuples.body).toEqual([
      expect.objectContaining({ subject: 'folder:docs', relation: 'parent', object: 'file:readme', tenant: 'acme' }),
    ]);
  });
});
