import { startTestServer, type ApiClient, type TestServer } from '../support/embedded-server';

/** Permit's Groups API: groups as `__group` instances; members get the group's roles through role derivation. */
describe('groups', () => {
  let server: TestServer;
  let api: ApiClient;
  let pdp: ApiClient;
  const schema = '/v2/schema/default/production';
  const facts = '/v2/facts/default/production';
  const ok = async (p: Promise<{ status: number; body: any }>) => {
    const r = await p;
    if (r.status >= 300) throw new Error(`${r.status}: ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const allowed = async (user: string, action: string, resource: string, tenant = 'acme') =>
    (await ok(pdp.post('/allowed', { user, action, resource: { type: resource.split(':')[0], key: resource.split(':')[1], tenant } })))
      .allow;
  const editor = { role: 'editor', resource: 'doc', resource_instance: 'readme', tenant: 'acme' };

  beforeAll(async () => {
    server = await startTestServer();
    api = server.api;
    pdp = await api.environmentClient();
    await ok(api.post(`${schema}/resources`, { key: 'doc', name: 'Doc', actions: { read: {}, write: {} } }));
    await ok(api.post(`${schema}/resources/doc/roles`, { key: 'editor', name: 'Editor', permissions: ['read', 'write'] }));
    await ok(api.post(`${schema}/resources/doc/roles`, { key: 'viewer', name: 'Viewer', permissions: ['read'] }));
    await ok(api.post(`${facts}/tenants`, { key: 'acme', name: 'Acme' }));
    await ok(api.post(`${facts}/tenants`, { key: 'other', name: 'Other' }));
    for (const key of ['alice', 'bob']) await ok(api.post(`${facts}/users`, { key }));
    await ok(api.post(`${facts}/resource_instances`, { key: 'readme', resource: 'doc', tenant: 'acme' }));
    await ok(api.post(`${facts}/resource_instances`, { key: 'notes', resource: 'doc', tenant: 'acme' }));
  });
  afterAll(() => server.close());

  it('a member gets the roles assigned to the group, on those instances only, until removed', async () => {
    const created = await ok(api.post(`${schema}/groups`, { group_instance_key: 'marketing', group_tenant: 'acme' }));
    expect(created).toMatchObject({
      group_instance_key: 'marketing',
      group_tenant: 'acme',
      group_resource_type_key: 'group',
      assigned_roles: [],
      users: [],
    });
    // It is the instance `__group:marketing`.
    expect((await ok(api.get(`${facts}/resource_instances/__group:marketing`))).id).toBe(created.id);

    const withRole = await ok(api.post(`${schema}/groups/marketing/roles`, editor));
    expect(withRole.assigned_roles).toEqual(['doc:readme#editor']);
    expect(await allowed('alice', 'write', 'doc:readme')).toBe(false);

    const alice = await ok(api.get(`${facts}/users/alice`));
    const joined = await ok(api.request('PUT', `${schema}/groups/marketing/users/alice`, { tenant: 'acme' }));
    expect(joined.users).toEqual([alice.id]);
    expect(await allowed('alice', 'write', 'doc:readme')).toBe(true);
    expect(await allowed('alice', 'read', 'doc:notes')).toBe(false);
    expect(await allowed('bob', 'write', 'doc:readme')).toBe(false);

    // The provider's read: a page of the group's roles.
    const roles = await ok(api.get(`${schema}/groups/marketing/roles?page=1&per_page=100`));
    const doc = await ok(api.get(`${schema}/resources/doc`));
    const readme = await ok(api.get(`${facts}/resource_instances/doc:readme`));
    expect(roles).toEqual({
      data: [{ key: 'editor', resource: { id: doc.id, key: 'doc' }, resource_instance: { id: readme.id, key: 'readme' }, tenant: 'acme' }],
      total_count: 1,
      page_count: 1,
    });
    expect(await ok(api.get(`${schema}/groups/marketing/users`))).toMatchObject({ data: [{ id: alice.id, key: 'alice' }], total_count: 1 });
    expect((await ok(api.get(`${schema}/groups`))).data.map((g: any) => g.group_instance_key)).toEqual(['marketing']);

    expect((await api.delete(`${schema}/groups/marketing/roles`, editor)).status).toBe(204);
    expect(await allowed('alice', 'write', 'doc:readme')).toBe(false);
    expect((await ok(api.get(`${schema}/groups/marketing/roles`))).data).toEqual([]);

    await ok(api.post(`${schema}/groups/marketing/roles`, { ...editor, role: 'viewer' }));
    expect(await allowed('alice', 'read', 'doc:readme')).toBe(true);
    expect((await api.delete(`${schema}/groups/marketing/users/alice`)).status).toBe(204);
    expect(await allowed('alice', 'read', 'doc:readme')).toBe(false);

    await ok(api.request('PUT', `${schema}/groups/marketing/users/bob`, {}));
    expect(await allowed('bob', 'read', 'doc:readme')).toBe(true);
    expect((await api.delete(`${schema}/groups/marketing`)).status).toBe(204);
    expect(await allowed('bob', 'read', 'doc:readme')).toBe(false);
    expect((await api.get(`${schema}/groups/marketing`)).status).toBe(404);
  });

  it('refuses what it cannot honour, by name, and appends nothing', async () => {
    await ok(api.post(`${schema}/groups`, { group_instance_key: 'sales', group_tenant: 'acme', group_resource_type_key: null }));
    const before = await server.service.eventStore.headPosition();
    const status = async (p: Promise<{ status: number }>) => (await p).status;
    expect(await status(api.post(`${schema}/groups`, { group_instance_key: 'sales', group_tenant: 'acme' }))).toBe(409);
    expect(await status(api.post(`${schema}/groups`, { group_instance_key: 'x', group_tenant: 'nowhere' }))).toBe(404);
    const extra = await api.post(`${schema}/groups`, { group_instance_key: 'x', group_tenant: 'acme', colour: 'red' });
    expect(extra.status).toBe(422);
    expect(extra.body.detail[0].loc).toEqual(['body', 'colour']);
    expect(
      await status(api.post(`${schema}/groups`, { group_instance_key: 'x', group_tenant: 'acme', group_resource_type_key: 'team' })),
    ).toBe(422);
    expect(await status(api.post(`${schema}/groups/sales/roles`, { ...editor, role: 'owner' }))).toBe(404);
    expect(await status(api.post(`${schema}/groups/sales/roles`, { ...editor, resource_instance: 'missing' }))).toBe(404);
    expect(await status(api.post(`${schema}/groups/sales/roles`, { ...editor, tenant: 'other' }))).toBe(400);
    expect(await status(api.post(`${schema}/groups/nowhere/roles`, editor))).toBe(404);
    expect(await status(api.delete(`${schema}/groups/sales/roles`, editor))).toBe(404);
    expect(await status(api.request('PUT', `${schema}/groups/sales/users/nobody`, { tenant: 'acme' }))).toBe(404);
    expect(await status(api.request('PUT', `${schema}/groups/sales/users/alice`, { tenant: 'other' }))).toBe(400);
    expect(await status(api.delete(`${schema}/groups/sales/users/alice`))).toBe(404);
    expect(await server.service.eventStore.headPosition()).toBe(before);
  });

  it('environment copies carry groups, members and their roles', async () => {
    await ok(api.post(`${schema}/groups/sales/roles`, editor));
    await ok(api.request('PUT', `${schema}/groups/sales/users/alice`, { tenant: 'acme' }));
    const copied = await api.post('/v2/projects/default/envs/production/copy', {
      target_env: { new: { key: 'copy', name: 'Copy' } },
      scope: { facts: true },
    });
    expect(copied.status).toBe(200);
    const group = await ok(api.get('/v2/schema/default/copy/groups/sales'));
    expect(group.assigned_roles).toEqual(['doc:readme#editor']);
    expect(group.users).toHaveLength(1);
    const copyPdp = await api.environmentClient('default', 'copy');
    expect(
      (await ok(copyPdp.post('/allowed', { user: 'alice', action: 'write', resource: { type: 'doc', key: 'readme', tenant: 'acme' } })))
        .allow,
    ).toBe(true);
  });
});
