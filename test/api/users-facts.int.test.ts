import { FACTS, SCHEMA, loadFolderFileExample, startTestServer, type ApiClient, type TestServer } from '../support/embedded-server';

/** Users beyond create and get: sync (PUT), PATCH, DELETE with its cascade, their roles, and bulk. */
describe('users (facts)', () => {
  let server: TestServer;
  let api: ApiClient;
  beforeAll(async () => {
    server = await startTestServer();
    api = await server.api.environmentClient();
    await loadFolderFileExample(api);
    await api.post(`${SCHEMA}/roles`, { key: 'member', name: 'Member', permissions: ['folder:read'] });
  });
  afterAll(() => server.close());

  const allowed = async (user: string, action: string, resource: { type: string; key: string; tenant?: string }) =>
    (await api.post('/allowed', { user: { key: user }, action, resource: { tenant: 'acme', ...resource } })).body.allow as boolean;
  const assignmentsOf = async (user: string) => (await api.get(`${FACTS}/role_assignments?user=${user}`)).body as Array<{ role: string }>;

  it('PUT creates a user with 201, then replaces its whole profile with 200', async () => {
    const created = await api.request('PUT', `${FACTS}/users/sam`, {
      key: 'sam',
      email: 'sam@x.io',
      first_name: 'Sam',
      attributes: { a: 1 },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ key: 'sam', email: 'sam@x.io', first_name: 'Sam', last_name: null, attributes: { a: 1 } });
    const replaced = await api.request('PUT', `${FACTS}/users/sam`, { key: 'sam', last_name: 'Smith' });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ id: created.body.id, email: null, first_name: null, last_name: 'Smith', attributes: {} });
    expect((await api.get(`${FACTS}/users/sam`)).body).toMatchObject({ last_name: 'Smith', email: null });
  });

  it('PUT refuses a body key other than the path one, and unknown fields in role_assignments, changing nothing', async () => {
    const wrongKey = await api.request('PUT', `${FACTS}/users/sam`, { key: 'other', email: 'e' });
    expect(wrongKey.status).toBe(400);
    expect(wrongKey.body).toMatchObject({
      error_code: 'INVALID_INPUT',
      message: "The body's key 'other' is not the user key of the path ('sam')",
    });
    const extra = await api.request('PUT', `${FACTS}/users/sam`, { role_assignments: [{ role: 'member', tenant: 'acme', scope: 'x' }] });
    expect(extra.status).toBe(422);
    expect(JSON.stringify(extra.body)).toContain('scope');
    expect((await api.get(`${FACTS}/users/sam`)).body).toMatchObject({ last_name: 'Smith' });
  });

  it('PUT and POST assign role_assignments in the same decision; PUT adds only what is missing', async () => {
    const synced = await api.request('PUT', `${FACTS}/users/sam`, { key: 'sam', role_assignments: [{ role: 'member', tenant: 'acme' }] });
    expect(synced.status).toBe(200);
    expect(synced.body.roles).toEqual([{ role: 'member', tenant: 'acme' }]);
    expect((await api.request('PUT', `${FACTS}/users/sam`, { role_assignments: [{ role: 'member', tenant: 'acme' }] })).status).toBe(200);
    expect(await assignmentsOf('sam')).toHaveLength(1);

    const posted = await api.post(`${FACTS}/users`, {
      key: 'pat',
      role_assignments: [
        { role: 'viewer', resource_instance: 'file:readme' },
        { role: 'editor', resource_instance: 'folder:new-folder', tenant: 'acme' },
      ],
    });
    expect(posted.status).toBe(200);
    expect((await assignmentsOf('pat')).map((a) => a.role).sort()).toEqual(['editor', 'viewer']);
    // The missing instance was created in the named tenant.
    expect((await api.get(`${FACTS}/resource_instances/folder:new-folder`)).body).toMatchObject({ tenant: 'acme' });

    // One bad assignment refuses the user too.
    const refused = await api.post(`${FACTS}/users`, { key: 'quinn', role_assignments: [{ role: 'nope', tenant: 'acme' }] });
    expect(refused.status).toBe(404);
    expect((await api.get(`${FACTS}/users/quinn`)).status).toBe(404);
  });

  it('a user reads back its top-level roles grouped by tenant, as Permit’s associated_tenants', async () => {
    await api.post(`${FACTS}/tenants`, { key: 'globex', name: 'Globex' });
    const created = await api.post(`${FACTS}/users`, { key: 'tia' });
    expect(created.body.associated_tenants).toEqual([]);
    await api.post(`${SCHEMA}/roles`, { key: 'auditor', name: 'Auditor', permissions: ['folder:read'] });
    await api.post(`${FACTS}/role_assignments`, { user: 'tia', role: 'member', tenant: 'acme' });
    await api.post(`${FACTS}/role_assignments`, { user: 'tia', role: 'member', tenant: 'globex' });
    await api.post(`${FACTS}/role_assignments`, { user: 'tia', role: 'auditor', tenant: 'acme' });
    // An instance role is not a tenant role: it does not show here.
    await api.post(`${FACTS}/role_assignments`, { user: 'tia', role: 'editor', resource_instance: 'folder:docs' });
    expect((await api.get(`${FACTS}/users/tia`)).body.associated_tenants).toEqual([
      { tenant: 'acme', roles: ['member', 'auditor'], status: 'active' },
      { tenant: 'globex', roles: ['member'], status: 'active' },
    ]);
    await api.delete(`${FACTS}/role_assignments`, { user: 'tia', role: 'editor', resource_instance: 'folder:docs' });
    await api.delete(`${FACTS}/role_assignments`, { user: 'tia', role: 'member', tenant: 'globex' });
    expect((await api.get(`${FACTS}/users/tia`)).body.associated_tenants).toEqual([
      { tenant: 'acme', roles: ['member', 'auditor'], status: 'active' },
    ]);
  });

  it('PATCH changes only the fields given', async () => {
    await api.post(`${FACTS}/users`, { key: 'rae', email: 'rae@x.io', first_name: 'Rae', attributes: { level: 1 } });
    const patched = await api.patch(`${FACTS}/users/rae`, { first_name: 'Raymonde' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ email: 'rae@x.io', first_name: 'Raymonde', attributes: { level: 1 } });
    expect((await api.patch(`${FACTS}/users/rae`, { email: null, attributes: { level: 2 } })).body).toMatchObject({
      email: null,
      first_name: 'Raymonde',
      attributes: { level: 2 },
    });
    expect((await api.patch(`${FACTS}/users/nobody`, { email: 'x' })).status).toBe(404);
    const unknown = await api.patch(`${FACTS}/users/rae`, { roles: [] });
    expect(unknown.status).toBe(422);
    expect(JSON.stringify(unknown.body)).toContain('roles');
  });

  it('DELETE removes the user with its assignments, and its grants with them', async () => {
    await api.post(`${FACTS}/role_assignments`, { user: 'del', role: 'editor', resource_instance: 'folder:docs' });
    await api.post(`${FACTS}/role_assignments`, { user: 'del', role: 'member', tenant: 'acme' });
    // Derived through folder:docs → file:readme.
    expect(await allowed('del', 'write', { type: 'file', key: 'readme' })).toBe(true);
    expect(await allowed('del', 'read', { type: 'folder', key: 'docs' })).toBe(true);
    // A user whose key starts like this one's keeps its assignments.
    await api.post(`${FACTS}/role_assignments`, { user: 'del|x', role: 'member', tenant: 'acme' });

    const deleted = await api.delete(`${FACTS}/users/del`);
    expect(deleted.status).toBe(204);
    expect((await api.get(`${FACTS}/users/del`)).status).toBe(404);
    // As of just before the delete's three events (two RoleUnassigned, UserDeleted), the user and its assignments are there.
    const position = Number(deleted.headers.get('x-event-position')) - 3;
    expect((await api.get(`${FACTS}/users/del?as_of=${position}`)).body).toMatchObject({
      key: 'del',
      roles: [{ role: 'member', tenant: 'acme' }],
    });
    expect((await api.get(`${FACTS}/role_assignments?user=del&as_of=${position}`)).body).toHaveLength(2);
    expect(await assignmentsOf('del')).toEqual([]);
    expect(await allowed('del', 'write', { type: 'file', key: 'readme' })).toBe(false);
    expect(await allowed('del', 'read', { type: 'folder', key: 'docs' })).toBe(false);
    expect((await api.get(`${FACTS}/role_assignments?user=${encodeURIComponent('del|x')}`)).body).toHaveLength(1);
    expect((await api.delete(`${FACTS}/users/del`)).status).toBe(404);

    // The audit log tells the cascade: each assignment's RoleUnassigned, then the UserDeleted, all found by the user.
    const log = (await api.get('/v2/events/default/production?user=del&limit=100')).body.data as Array<{ type: string; data: any }>;
    expect(log.map((e) => e.type)).toEqual([
      'UserCreated',
      'RoleAssigned',
      'RoleAssigned',
      'RoleUnassigned',
      'RoleUnassigned',
      'UserDeleted',
    ]);
    expect(log.at(-1)!.data).toEqual({ id: expect.any(String), key: 'del' });
  });

  it('the audit log shows an update with only the fields it changed', async () => {
    const log = (await api.get('/v2/events/default/production?user=rae&type=UserUpdated')).body.data as Array<{ data: any }>;
    expect(log.map((e) => e.data)).toEqual([
      { id: expect.any(String), key: 'rae', first_name: 'Raymonde' },
      { id: expect.any(String), key: 'rae', email: null, attributes: { level: 2 } },
    ]);
  });

  it('assigns and unassigns through /users/{user_id}/roles; the user must exist', async () => {
    await api.post(`${FACTS}/users`, { key: 'uma' });
    const assigned = await api.post(`${FACTS}/users/uma/roles`, { role: 'member', tenant: 'acme' });
    expect(assigned.status).toBe(200);
    expect(assigned.body).toMatchObject({ user: 'uma', role: 'member', tenant: 'acme', resource_instance: null });
    expect((await api.post(`${FACTS}/users/uma/roles`, { role: 'member', tenant: 'acme' })).status).toBe(409);
    expect((await api.post(`${FACTS}/users/ghost/roles`, { role: 'member', tenant: 'acme' })).status).toBe(404);
    expect((await api.delete(`${FACTS}/users/uma/roles`, { role: 'member', tenant: 'acme' })).status).toBe(204);
    expect(await assignmentsOf('uma')).toEqual([]);
    expect((await api.delete(`${FACTS}/users/uma/roles`, { role: 'member', tenant: 'acme' })).status).toBe(404);
  });

  it('bulk creates, replaces and deletes users, all or none', async () => {
    const created = await api.post(`${FACTS}/bulk/users`, {
      operations: [
        { key: 'b1', email: 'b1@x.io' },
        { key: 'b2', role_assignments: [{ role: 'member', tenant: 'acme' }] },
      ],
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ users_created: 2 });
    expect(await assignmentsOf('b2')).toHaveLength(1);

    const duplicate = await api.post(`${FACTS}/bulk/users`, { operations: [{ key: 'b3' }, { key: 'b1' }] });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.message).toContain('Item 1');
    expect((await api.get(`${FACTS}/users/b3`)).status).toBe(404);

    const replaced = await api.request('PUT', `${FACTS}/bulk/users`, { operations: [{ key: 'b1', first_name: 'B' }, { key: 'b4' }] });
    expect(replaced.body).toEqual({ users_created: 1, users_replaced: 1 });
    expect((await api.get(`${FACTS}/users/b1`)).body).toMatchObject({ email: null, first_name: 'B' });

    const missing = await api.delete(`${FACTS}/bulk/users`, { idents: ['b1', 'nobody'] });
    expect(missing.status).toBe(404);
    expect((await api.get(`${FACTS}/users/b1`)).status).toBe(200);
    expect((await api.delete(`${FACTS}/bulk/users`, { idents: ['b1', 'b2', 'b4'] })).body).toEqual({ users_deleted: 3 });
    expect(await assignmentsOf('b2')).toEqual([]);
    expect((await api.get(`${FACTS}/users/b2`)).status).toBe(404);
  });

  it('lists users by a role more users hold than a filter takes values, paging the matches', async () => {
    await api.post(`${SCHEMA}/roles`, { key: 'crowd', name: 'Crowd', permissions: [] });
    const many = Array.from({ length: 620 }, (_, i) => ({ key: `crowd-${i}`, role_assignments: [{ role: 'crowd', tenant: 'acme' }] }));
    expect((await api.post(`${FACTS}/bulk/users`, { operations: many })).status).toBe(200);
    const last = (await api.get(`${FACTS}/users?role=crowd&per_page=100&page=7`)).body;
    expect(last.total_count).toBe(620);
    expect(last.page_count).toBe(7);
    expect(last.data).toHaveLength(20);
    const tenantPage = (await api.get(`${FACTS}/tenants/acme/users?role=crowd&search=crowd-61`)).body;
    expect(tenantPage.data.map((u: { key: string }) => u.key).sort()).toEqual([
      'crowd-61',
      ...Array.from({ length: 10 }, (_, i) => `crowd-61${i}`),
    ]);
  });

  it('lists users by search (key, email, names) and by any of several roles', async () => {
    await api.post(`${FACTS}/users`, { key: 'zed', email: 'Zed@Example.com', first_name: 'Zedekiah' });
    await api.post(`${FACTS}/users`, { key: 'yan', last_name: 'Example-Yan' });
    await api.post(`${FACTS}/role_assignments`, { user: 'yan', role: 'viewer', resource_instance: 'file:readme' });
    const keysOf = (body: { data: Array<{ key: string }>; total_count: number }) => body.data.map((u) => u.key).sort();
    const searched = (await api.get(`${FACTS}/users?search=example`)).body;
    expect(keysOf(searched)).toEqual(['yan', 'zed']);
    expect(searched.total_count).toBe(2);
    expect(keysOf((await api.get(`${FACTS}/users?search=zedek`)).body)).toEqual(['zed']);
    expect(keysOf((await api.get(`${FACTS}/users?role=viewer`)).body)).toEqual(['pat', 'yan']);
    expect(keysOf((await api.get(`${FACTS}/users?role=viewer&role=editor`)).body)).toEqual(['alice', 'pat', 'yan']);
    expect(keysOf((await api.get(`${FACTS}/users?role=viewer&role=editor&search=y`)).body)).toEqual(['yan']);
  });
});
