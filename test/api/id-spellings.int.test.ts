import { FACTS, loadFolderFileExample, SCHEMA, startTestServer, type ApiClient, type TestServer } from '../support/embedded-server';

/**
 * Every place that takes an object's id takes it in each spelling a client may send: dashed (ours),
 * 32 hex digits without dashes (Permit's answers; its SDK 3.x sends a resource set's `resource_id`
 * so), and in upper case (UUIDs compare without regard to case).
 */
describe('ids are taken in every UUID spelling', () => {
  let server: TestServer;
  let api: ApiClient;
  beforeAll(async () => {
    server = await startTestServer();
    api = server.api;
    await loadFolderFileExample(api);
  });
  afterAll(() => server.close());

  const hex = (id: string) => id.replace(/-/g, '');
  const spellings = (id: string) => [hex(id), id.toUpperCase(), hex(id).toUpperCase()];

  it('in paths: project, environment, resource, role, relation, tenant, user, instance', async () => {
    const project = (await api.get('/v2/projects/default')).body.id as string;
    const env = (await api.get('/v2/projects/default/envs/production')).body.id as string;
    const folder = (await api.get(`${SCHEMA}/resources/folder`)).body.id as string;
    const editor = (await api.get(`${SCHEMA}/resources/folder/roles/editor`)).body.id as string;
    const parent = (await api.get(`${SCHEMA}/resources/file/relations/parent`)).body.id as string;
    const tenant = (await api.post(`${FACTS}/tenants`, { key: 'ids-t', name: 'T' })).body.id as string;
    const user = (await api.post(`${FACTS}/users`, { key: 'ids-u' })).body.id as string;
    const instance = (await api.post(`${FACTS}/resource_instances`, { key: 'ids-f', resource: 'folder', tenant: 'ids-t' })).body
      .id as string;
    for (const spelling of spellings(project)) expect((await api.get(`/v2/projects/${spelling}`)).body.key).toBe('default');
    for (const spelling of spellings(env)) expect((await api.get(`/v2/projects/default/envs/${spelling}`)).body.key).toBe('production');
    for (const spelling of spellings(env))
      expect((await api.get(`/v2/schema/default/${spelling}/resources/folder`)).body.key).toBe('folder');
    for (const spelling of spellings(folder)) expect((await api.get(`${SCHEMA}/resources/${spelling}`)).body.key).toBe('folder');
    for (const spelling of spellings(editor))
      expect((await api.get(`${SCHEMA}/resources/folder/roles/${spelling}`)).body.key).toBe('editor');
    for (const spelling of spellings(parent))
      expect((await api.get(`${SCHEMA}/resources/file/relations/${spelling}`)).body.key).toBe('parent');
    for (const spelling of spellings(tenant)) expect((await api.get(`${FACTS}/tenants/${spelling}`)).body.key).toBe('ids-t');
    for (const spelling of spellings(user)) expect((await api.get(`${FACTS}/users/${spelling}`)).body.key).toBe('ids-u');
    for (const spelling of spellings(instance)) expect((await api.get(`${FACTS}/resource_instances/${spelling}`)).body.key).toBe('ids-f');
  });

  it('in bodies: a resource set on a resource id, a role assignment on a tenant and an instance id, a tuple on instance ids', async () => {
    const folder = (await api.get(`${SCHEMA}/resources/folder`)).body.id as string;
    const set = await api.post(`${SCHEMA}/condition_sets`, {
      key: 'ids_private_folders',
      name: 'Private folders',
      type: 'resourceset',
      resource_id: hex(folder),
      conditions: { allOf: [{ 'resource.private': { equals: true } }] },
    });
    expect(set.status).toBe(200);
    expect(set.body.resource_id).toBe(folder);

    const tenant = (await api.post(`${FACTS}/tenants`, { key: 'ids-t2', name: 'T2' })).body.id as string;
    await api.post(`${FACTS}/users`, { key: 'ids-u2' });
    await api.post(`${SCHEMA}/roles`, { key: 'ids-member', name: 'Member' });
    const onTenant = await api.post(`${FACTS}/role_assignments`, {
      user: 'ids-u2',
      role: 'ids-member',
      resource_instance: null,
      tenant: hex(tenant),
    });
    expect([onTenant.status, onTenant.body.message]).toEqual([200, undefined]);
    expect(onTenant.body.tenant).toBe('ids-t2');

    const a = (await api.post(`${FACTS}/resource_instances`, { key: 'ids-a', resource: 'folder', tenant: 'ids-t2' })).body.id as string;
    const b = (await api.post(`${FACTS}/resource_instances`, { key: 'ids-b', resource: 'file', tenant: 'ids-t2' })).body.id as string;
    const tuple = await api.post(`${FACTS}/relationship_tuples`, { subject: hex(a).toUpperCase(), relation: 'parent', object: hex(b) });
    expect(tuple.status).toBe(200);
    expect([tuple.body.subject, tuple.body.object]).toEqual(['folder:ids-a', 'file:ids-b']);
    const listed = await api.get(`${FACTS}/relationship_tuples?object=${hex(b)}`);
    expect(listed.body.map((t: { subject: string }) => t.subject)).toEqual(['folder:ids-a']);
  });

  it('a 32-hex string that is some object key is that key first, as any key is', async () => {
    const key = 'abcdefabcdefabcdefabcdefabcdefab';
    expect((await api.post(`${FACTS}/tenants`, { key, name: 'hex-named' })).status).toBe(200);
    expect((await api.get(`${FACTS}/tenants/${key}`)).body.name).toBe('hex-named');
  });
});
