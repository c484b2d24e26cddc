import { userInvitePageSchema, userInviteSchema, userSchema } from '../../command-service/http/responses';
import { FACTS, SCHEMA, startTestServer, type ApiClient, type ApiResponse, type TestServer } from '../support/embedded-server';

/** `/user_invites`: Permit's user invites, their lifecycle and what an approval does (docs/permit-compat.md). */
describe('user invites', () => {
  let server: TestServer;
  let api: ApiClient;
  const ok = async <T = any>(p: Promise<ApiResponse<T>>): Promise<T> => {
    const r = await p;
    if (r.status >= 300) throw new Error(`${r.status}: ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const ids: Record<string, string> = {};
  const invite = (key: string, extra: Record<string, unknown> = {}) => ({
    key,
    status: 'pending',
    email: key.includes('@') ? key : `${key}@example.com`,
    first_name: 'Ada',
    last_name: 'Lovelace',
    role_id: ids.editor,
    tenant_id: ids.acme,
    resource_instance_id: ids.d1,
    ...extra,
  });
  const hex = (id: string) => id.replace(/-/g, '');

  beforeAll(async () => {
    server = await startTestServer();
    api = server.api;
    await ok(api.post(`${SCHEMA}/resources`, { key: 'doc', name: 'Doc', actions: { read: {}, write: {} } }));
    ids.viewer = (await ok(api.post(`${SCHEMA}/resources/doc/roles`, { key: 'viewer', name: 'Viewer', permissions: ['read'] }))).id;
    ids.editor = (await ok(api.post(`${SCHEMA}/roles`, { key: 'editor', name: 'Editor', permissions: ['doc:read', 'doc:write'] }))).id;
    ids.acme = (await ok(api.post(`${FACTS}/tenants`, { key: 'acme', name: 'Acme' }))).id;
    ids.other = (await ok(api.post(`${FACTS}/tenants`, { key: 'other', name: 'Other' }))).id;
    ids.d1 = (await ok(api.post(`${FACTS}/resource_instances`, { key: 'd1', resource: 'doc', tenant: 'acme' }))).id;
    ids.d2 = (await ok(api.post(`${FACTS}/resource_instances`, { key: 'd2', resource: 'doc', tenant: 'other' }))).id;
  });
  afterAll(() => server.close());

  it('creates, lists, gets, updates, approves and deletes an invite', async () => {
    const createdAnswer = await api.post(`${FACTS}/user_invites`, invite('ada@example.com'));
    const created = await ok(Promise.resolve(createdAnswer));
    const createdAt = createdAnswer.headers.get('x-event-position');
    expect(userInviteSchema.parse(created)).toEqual(created);
    expect(created).toMatchObject({
      key: 'ada@example.com',
      status: 'pending',
      email: 'ada@example.com',
      first_name: 'Ada',
      last_name: 'Lovelace',
      role_id: ids.editor,
      tenant_id: ids.acme,
      resource_instance_id: ids.d1,
    });
    expect((await api.post(`${FACTS}/user_invites`, invite('ada@example.com'))).status).toBe(409);
    await ok(api.post(`${FACTS}/user_invites`, invite('bob', { role_id: 'editor', tenant_id: 'other', resource_instance_id: null })));

    const page = await ok(api.get(`${FACTS}/user_invites?page=1&per_page=50`));
    expect(userInvitePageSchema.parse(page)).toEqual(page);
    expect(page).toMatchObject({ total_count: 2, page_count: 1 });
    const keysOf = async (query: string) =>
      (await ok(api.get(`${FACTS}/user_invites?${query}`))).data.map((i: { key: string }) => i.key).sort();
    expect(await keysOf('tenant=acme')).toEqual(['ada@example.com']);
    expect(await keysOf(`tenant=${hex(ids.other!)}`)).toEqual(['bob']);
    expect(await keysOf(`role=${ids.editor}`)).toEqual(['ada@example.com', 'bob']);
    expect(await keysOf('role=viewer')).toEqual([]);
    expect(await keysOf('search=BOB')).toEqual(['bob']);
    expect(await keysOf('per_page=1&page=2')).toHaveLength(1);

    for (const ref of [created.id, hex(created.id), 'ada@example.com']) {
      expect(await ok(api.get(`${FACTS}/user_invites/${ref}`))).toEqual(created);
    }

    const updated = await ok(api.patch(`${FACTS}/user_invites/${created.id}`, { first_name: 'Augusta', last_name: null, key: null }));
    expect(updated).toMatchObject({ first_name: 'Augusta', last_name: 'Lovelace', role_id: ids.editor });

    const wrongEmail = await api.post(`${FACTS}/user_invites/${created.id}/approve`, {
      email: 'eve@example.com',
      key: 'ada',
      attributes: {},
    });
    expect(wrongEmail.status).toBe(400);
    const user = await ok(
      api.post(`${FACTS}/user_invites/${hex(created.id)}/approve`, { email: 'ada@example.com', key: 'ada', attributes: { team: 'math' } }),
    );
    expect(userSchema.parse(user)).toEqual(user);
    expect(user).toMatchObject({
      key: 'ada',
      email: 'ada@example.com',
      first_name: 'Augusta',
      last_name: 'Lovelace',
      attributes: { team: 'math' },
      roles: [{ role: 'editor', tenant: 'acme' }],
    });
    const checker = await api.environmentClient();
    const check = { user: 'ada', action: 'write', resource: { type: 'doc', key: 'd1', tenant: 'acme' } };
    expect((await ok(checker.post('/allowed', check))).allow).toBe(true);
    expect(await ok(api.get(`${FACTS}/user_invites/${created.id}`))).toMatchObject({ status: 'approved' });
    // As it was (time travel): pending, and the only one.
    expect(await ok(api.get(`${FACTS}/user_invites/${created.id}?as_of=${createdAt}`))).toEqual(created);
    expect((await ok(api.get(`${FACTS}/user_invites?as_of=${createdAt}`))).total_count).toBe(1);
    const again = await api.post(`${FACTS}/user_invites/${created.id}/approve`, { email: 'ada@example.com', key: 'ada', attributes: {} });
    expect(again.status).toBe(400);
    expect((await api.patch(`${FACTS}/user_invites/${created.id}`, { first_name: 'Ada' })).status).toBe(400);

    expect((await api.delete(`${FACTS}/user_invites/bob`)).status).toBe(204);
    expect((await api.get(`${FACTS}/user_invites/bob`)).status).toBe(404);
    expect((await ok(api.get(`${FACTS}/user_invites`))).data.map((i: { key: string }) => i.key)).toEqual(['ada@example.com']);
    // An approved invite may be deleted: its user and role stay.
    expect((await api.delete(`${FACTS}/user_invites/${hex(created.id)}`)).status).toBe(204);
    expect((await ok(api.get(`${FACTS}/users/ada`))).roles).toEqual([{ role: 'editor', tenant: 'acme' }]);
  });

  it('a resource role is given on the invite’s instance, which it needs', async () => {
    const noInstance = await api.post(`${FACTS}/user_invites`, invite('cy', { role_id: ids.viewer, resource_instance_id: null }));
    expect(noInstance.status).toBe(400);
    const elsewhere = await api.post(`${FACTS}/user_invites`, invite('cy', { role_id: ids.viewer, resource_instance_id: ids.d2 }));
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error_code).toBe('MISMATCH_RESOURCE_INSTANCES_TENANTS');
    const created = await ok(
      api.post(`${FACTS}/user_invites`, invite('cy', { role_id: hex(ids.viewer!), resource_instance_id: 'doc:d1' })),
    );
    expect(created).toMatchObject({ role_id: ids.viewer, resource_instance_id: ids.d1 });
    // An existing user is updated, not created again.
    await ok(api.post(`${FACTS}/users`, { key: 'cy', first_name: 'Old', attributes: { old: true } }));
    const user = await ok(api.post(`${FACTS}/user_invites/cy/approve`, { email: 'CY@example.com', key: 'cy', attributes: { fresh: 1 } }));
    expect(user).toMatchObject({ key: 'cy', email: 'CY@example.com', first_name: 'Ada', attributes: { fresh: 1 }, roles: [] });
    const assignments = await ok(api.get(`${FACTS}/role_assignments?user=cy`));
    expect(assignments).toEqual([expect.objectContaining({ role: 'viewer', tenant: 'acme', resource_instance: 'doc:d1' })]);
  });

  it('refuses bad input by name, and reads an explicit null as absent', async () => {
    const expectRefused = async (body: Record<string, unknown>, loc: string, status = 422) => {
      const r = await api.post(`${FACTS}/user_invites`, body);
      expect([r.status, JSON.stringify(r.body)]).toEqual([status, expect.stringContaining(loc)]);
    };
    await expectRefused({ ...invite('dan'), colour: 'red' }, 'colour');
    await expectRefused(invite('dan', { email: 'not-an-address' }), 'email');
    await expectRefused(invite('dan', { key: 'no spaces' }), 'key');
    await expectRefused(invite('dan', { first_name: null }), 'first_name');
    await expectRefused(invite('dan', { status: 'maybe' }), 'status');
    await expectRefused(invite('dan', { status: 'approved' }), 'approve');
    await expectRefused(invite('dan', { role_id: '00000000-0000-4000-8000-000000000000' }), '00000000-0000-4000-8000-000000000000', 404);
    await expectRefused(invite('dan', { tenant_id: 'nowhere' }), 'nowhere', 404);
    const approve = await api.post(`${FACTS}/user_invites/cy/approve`, { email: 'cy@example.com', key: 'cy' });
    expect([approve.status, JSON.stringify(approve.body)]).toEqual([422, expect.stringContaining('attributes')]);
    const unknownQuery = await api.get(`${FACTS}/user_invites?include_total_count=true`);
    expect([unknownQuery.status, JSON.stringify(unknownQuery.body)]).toEqual([422, expect.stringContaining('include_total_count')]);

    const created = await ok(api.post(`${FACTS}/user_invites`, invite('dan', { resource_instance_id: null })));
    expect(created.resource_instance_id).toBeNull();
    const nulls = Object.fromEntries(
      ['key', 'status', 'email', 'first_name', 'last_name', 'role_id', 'tenant_id', 'resource_instance_id'].map((f) => [f, null]),
    );
    const unchanged = await ok(api.patch(`${FACTS}/user_invites/dan`, nulls));
    expect({ ...unchanged, updated_at: created.updated_at }).toEqual(created);
    expect((await api.patch(`${FACTS}/user_invites/dan`, { key: 'other-key' })).status).toBe(400);
    expect((await api.patch(`${FACTS}/user_invites/dan`, { status: 'approved' })).status).toBe(422);
  });

  it('deleting a tenant, instance or role deletes the invites naming it', async () => {
    await ok(api.post(`${FACTS}/tenants`, { key: 'gone', name: 'Gone' }));
    await ok(api.post(`${FACTS}/user_invites`, invite('erin', { tenant_id: 'gone', resource_instance_id: null })));
    await ok(api.post(`${FACTS}/resource_instances`, { key: 'd3', resource: 'doc', tenant: 'acme' }));
    await ok(api.post(`${FACTS}/user_invites`, invite('fay', { resource_instance_id: 'doc:d3' })));
    await ok(api.post(`${SCHEMA}/roles`, { key: 'temp', name: 'Temp' }));
    await ok(api.post(`${FACTS}/user_invites`, invite('gus', { role_id: 'temp', resource_instance_id: null })));
    expect((await api.delete(`${FACTS}/tenants/gone`)).status).toBe(204);
    expect((await api.delete(`${FACTS}/resource_instances/doc:d3`)).status).toBe(204);
    expect((await api.delete(`${SCHEMA}/roles/temp`)).status).toBe(204);
    for (const key of ['erin', 'fay', 'gus']) expect((await api.get(`${FACTS}/user_invites/${key}`)).status).toBe(404);
    const events = await ok(api.get('/v2/events/default/production?type=UserInviteDeleted'));
    expect(JSON.stringify(events)).toContain('erin');
  });

  it('is described in /openapi.json', async () => {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, unknown> };
    };
    const base = '/v2/facts/{proj_id}/{env_id}/user_invites';
    expect(Object.keys(doc.paths[base] ?? {}).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths[`${base}/{user_invite_id}`] ?? {}).sort()).toEqual(['delete', 'get', 'patch']);
    expect(Object.keys(doc.paths[`${base}/{user_invite_id}/approve`] ?? {})).toEqual(['post']);
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['UserInvite', 'UserInvitePage']));
  });

  it('an environment copy with facts keeps the invites, naming the copy’s objects', async () => {
    await ok(api.post(`${FACTS}/user_invites`, invite('hal')));
    const copied = await api.post('/v2/projects/default/envs/production/copy', {
      target_env: { new: { key: 'copied', name: 'Copied' } },
      scope: { facts: true },
    });
    expect(copied.status).toBe(200);
    const target = '/v2/facts/default/copied';
    const source = await ok(api.get(`${FACTS}/user_invites?per_page=100`));
    const page = await ok(api.get(`${target}/user_invites?per_page=100`));
    expect(page.data.map((i: { key: string }) => i.key).sort()).toEqual(source.data.map((i: { key: string }) => i.key).sort());
    const hal = page.data.find((i: { key: string }) => i.key === 'hal');
    const targetEditor = await ok(api.get('/v2/schema/default/copied/roles/editor'));
    const targetD1 = await ok(api.get(`${target}/resource_instances/doc:d1`));
    expect(hal).toMatchObject({ status: 'pending', role_id: targetEditor.id, resource_instance_id: targetD1.id });
    expect(hal.id).not.toBe((await ok(api.get(`${FACTS}/user_invites/hal`))).id);
    const approved = page.data.find((i: { key: string }) => i.key === 'cy');
    expect(approved.status).toBe('approved');
    // The copy's invite lives on its own: approving it there makes the copy's user.
    await ok(api.post(`${target}/user_invites/hal/approve`, { email: 'hal@example.com', key: 'hal', attributes: {} }));
    expect((await api.get(`${FACTS}/users/hal`)).status).toBe(404);
  });
});
