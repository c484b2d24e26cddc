import { FACTS, SCHEMA, startTestServer, type ApiClient, type TestServer } from '../support/embedded-server';

/**
 * The schema families as Permit serves them: resource update and replace,
 * urn, typed attribute objects, actions / attributes / action groups as
 * sub-resources, roles and relations inline on create, and null descriptions.
 */
describe('resource schema', () => {
  let server: TestServer;
  let admin: ApiClient;
  let env: ApiClient;
  const id = expect.stringMatching(/^[0-9a-f-]{36}$/);

  beforeAll(async () => {
    server = await startTestServer();
    admin = server.api;
    env = await admin.environmentClient();
  });
  afterAll(() => server.close());

  const allowed = async (user: string, action: string, resource: string) =>
    ((await env.post('/allowed', { user, action, resource })).body as { allow: boolean }).allow;

  it('stores urn, reads attributes as objects with ids, and answers null for an omitted description', async () => {
    const created = await admin.post(`${SCHEMA}/resources`, {
      key: 'doc',
      name: 'Doc',
      urn: 'urn:example:doc',
      actions: { read: {}, write: { name: 'Write', description: 'Change it' } },
      attributes: { private: { type: 'bool' }, tags: { type: 'array', description: 'Labels' } },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      key: 'doc',
      urn: 'urn:example:doc',
      description: null,
      actions: {
        read: { id, key: 'read', name: 'read', description: null },
        write: { id, key: 'write', name: 'Write', description: 'Change it' },
      },
      attributes: {
        private: { id, key: 'private', type: 'bool', description: null },
        tags: { id, key: 'tags', type: 'array', description: 'Labels' },
      },
    });
    expect((await admin.get(`${SCHEMA}/resources/doc`)).body).toEqual(created.body);

    const role = await admin.post(`${SCHEMA}/resources/doc/roles`, { key: 'reader', name: 'Reader', permissions: ['read'] });
    const relation = await admin.post(`${SCHEMA}/resources/doc/relations`, { key: 'parent', name: 'Parent', subject_resource: 'doc' });
    const tenant = await admin.post(`${FACTS}/tenants`, { key: 'acme', name: 'Acme' });
    const topRole = await admin.post(`${SCHEMA}/roles`, { key: 'member', name: 'Member' });
    for (const answer of [role, relation, tenant, topRole]) expect([answer.status, answer.body.description]).toEqual([200, null]);
    // Given, it is kept, empty string included.
    expect((await admin.post(`${FACTS}/tenants`, { key: 'blank', name: 'Blank', description: '' })).body.description).toBe('');
  });

  it('refuses an attribute type Permit does not have and fields it does not keep, naming them, and changes nothing', async () => {
    const before = await server.service.eventStore.headPosition();
    const badType = await admin.post(`${SCHEMA}/resources`, { key: 'x', name: 'X', actions: {}, attributes: { a: { type: 'date' } } });
    expect(badType.status).toBe(422);
    expect(badType.body.detail[0].loc).toEqual(['body', 'attributes', 'a', 'type']);
    const extra = await admin.post(`${SCHEMA}/resources`, { key: 'x', name: 'X', actions: { read: { attributes: {} } } });
    expect(extra.status).toBe(422);
    expect(JSON.stringify(extra.body.detail)).toContain('attributes');
    const inlineExtends = await admin.post(`${SCHEMA}/resources`, { key: 'x', name: 'X', actions: {}, roles: { r: { extends: ['y'] } } });
    expect(inlineExtends.status).toBe(422);
    expect((await admin.post(`${SCHEMA}/resources/doc/attributes`, { key: 'when', type: 'datetime' })).status).toBe(422);
    expect((await admin.patch(`${SCHEMA}/resources/doc/attributes/private`, { type: 'float' })).status).toBe(422);
    expect(await server.service.eventStore.headPosition()).toBe(before);
  });

  it('creates inline roles and relations with the resource, atomically', async () => {
    const created = await admin.post(`${SCHEMA}/resources`, {
      key: 'page',
      name: 'Page',
      actions: { read: {}, edit: {} },
      roles: { editor: { name: 'Editor', permissions: ['read', 'edit'] }, viewer: { permissions: ['read'], description: 'Sees' } },
      relations: { parent: 'doc' },
    });
    expect(created.status).toBe(200);
    expect(created.body.relations).toEqual({ parent: { resource_id: id, resource: 'doc' } });
    const roles = (await admin.get(`${SCHEMA}/resources/page/roles`)).body as Array<Record<string, unknown>>;
    expect(roles.map((r) => [r.key, r.name, r.description, r.permissions]).sort()).toEqual([
      ['editor', 'Editor', null, ['read', 'edit']],
      ['viewer', 'viewer', 'Sees', ['read']],
    ]);
    // ResourceRead carries its roles by key (ResourceRoleRead), on create, get and list.
    expect(created.body.roles).toEqual(Object.fromEntries(roles.map((r) => [r.key, r])));
    const listed = (await admin.get(`${SCHEMA}/resources`)).body as Array<{ key: string; roles: Record<string, unknown> }>;
    expect(Object.keys(listed.find((r) => r.key === 'page')!.roles).sort()).toEqual(['editor', 'viewer']);
    expect((await admin.get(`${SCHEMA}/resources/page/relations/parent`)).body).toMatchObject({
      subject_resource: 'doc',
      object_resource: 'page',
    });

    // A role granting an action the resource lacks, or a relation to a missing resource: nothing is created.
    const badRole = await admin.post(`${SCHEMA}/resources`, {
      key: 'note',
      name: 'Note',
      actions: { read: {} },
      roles: { e: { permissions: ['edit'] } },
    });
    expect(badRole.status).toBe(404);
    const badRelation = await admin.post(`${SCHEMA}/resources`, {
      key: 'note',
      name: 'Note',
      actions: {},
      relations: { owner: 'nowhere' },
    });
    expect(badRelation.status).toBe(404);
    expect((await admin.get(`${SCHEMA}/resources/note`)).status).toBe(404);
  });

  it('PATCH changes what it names; PUT replaces, resetting description and urn', async () => {
    const patched = await admin.patch(`${SCHEMA}/resources/doc`, {
      description: 'Documents',
      actions: { share: { description: 'Share it' }, read: { name: 'Read' } },
      attributes: { private: { type: 'string', description: 'Who' } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Doc', description: 'Documents', urn: 'urn:example:doc' });
    expect(Object.keys(patched.body.actions).sort()).toEqual(['read', 'share', 'write']);
    expect(patched.body.actions.read.name).toBe('Read');
    expect(patched.body.attributes.private).toMatchObject({ type: 'string', description: 'Who' });
    expect(Object.keys(patched.body.attributes).sort()).toEqual(['private', 'tags']);

    const readId = patched.body.actions.read.id as string;
    const replaced = await admin.request('PUT', `${SCHEMA}/resources/${patched.body.id as string}`, {
      name: 'Document',
      actions: { read: {}, write: {}, share: {} },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ key: 'doc', name: 'Document', description: null, urn: null, attributes: {} });
    // An action kept keeps its id.
    expect(replaced.body.actions.read.id).toBe(readId);
    expect((await admin.request('PUT', `${SCHEMA}/resources/doc`, { actions: {} })).status).toBe(422);
    expect((await admin.patch(`${SCHEMA}/resources/nothing`, { name: 'N' })).status).toBe(404);
    const withRoles = await admin.patch(`${SCHEMA}/resources/doc`, { roles: { r: {} } });
    expect([withRoles.status, withRoles.body.detail[0].loc, withRoles.body.detail[0].msg]).toEqual([
      422,
      ['body', 'roles'],
      expect.stringContaining('/resources/{resource_id}/roles'),
    ]);
  });

  it('serves actions, attributes and action groups as objects of their own, by key or id', async () => {
    const action = await admin.post(`${SCHEMA}/resources/doc/actions`, { key: 'print', name: 'Print' });
    expect(action.status).toBe(200);
    expect(action.body).toMatchObject({ key: 'print', name: 'Print', description: null, permission_name: 'doc:print', resource_id: id });
    expect((await admin.get(`${SCHEMA}/resources/doc/actions/${action.body.id as string}`)).body).toEqual(action.body);
    expect((await admin.post(`${SCHEMA}/resources/doc/actions`, { key: 'print', name: 'Again' })).status).toBe(409);
    const renamed = await admin.patch(`${SCHEMA}/resources/doc/actions/print`, { name: 'Print it' });
    expect(renamed.body).toMatchObject({ id: action.body.id, name: 'Print it' });
    expect(((await admin.get(`${SCHEMA}/resources/doc/actions`)).body as Array<{ key: string }>).map((a) => a.key)).toEqual([
      'print',
      'read',
      'share',
      'write',
    ]);

    const attribute = await admin.post(`${SCHEMA}/resources/doc/attributes`, { key: 'size', type: 'number' });
    expect(attribute.body).toMatchObject({ key: 'size', type: 'number', description: null, resource_key: 'doc', built_in: false });
    expect((await admin.patch(`${SCHEMA}/resources/doc/attributes/${attribute.body.id as string}`, { type: 'string' })).body.type).toBe(
      'string',
    );
    expect((await admin.get(`${SCHEMA}/resources/doc`)).body.attributes.size).toEqual({
      id: attribute.body.id,
      key: 'size',
      type: 'string',
      description: null,
    });

    const group = await admin.post(`${SCHEMA}/resources/doc/action_groups`, { key: 'out', name: 'Out', actions: ['print', 'share'] });
    expect(group.status).toBe(200);
    expect(group.body).toMatchObject({ key: 'out', name: 'Out', description: null, actions: ['print', 'share'] });
    expect((await admin.get(`${SCHEMA}/resources/doc`)).body.action_groups).toEqual({ out: ['print', 'share'] });
    expect((await admin.post(`${SCHEMA}/resources/doc/action_groups`, { key: 'bad', name: 'Bad', actions: ['fly'] })).status).toBe(404);

    expect((await admin.delete(`${SCHEMA}/resources/doc/attributes/size`)).status).toBe(204);
    expect((await admin.get(`${SCHEMA}/resources/doc/attributes/size`)).status).toBe(404);
  });

  it('serves user attributes as the attributes of the built-in user resource', async () => {
    const users = `${SCHEMA}/users/attributes`;
    expect((await admin.get(users)).body).toEqual([]);
    expect((await admin.get(`${users}/age`)).status).toBe(404);
    const missing = await admin.delete(`${users}/age`);
    expect([missing.status, missing.body.message]).toEqual([404, "Attribute 'age' not found on resource '__user'"]);
    const age = await admin.post(users, { key: 'age', type: 'number', description: 'Years' });
    expect(age.status).toBe(200);
    expect(age.body).toMatchObject({ key: 'age', type: 'number', description: 'Years', resource_key: '__user', built_in: false });
    expect((await admin.post(users, { key: 'age', type: 'string' })).status).toBe(409);
    await admin.post(users, { key: 'country', type: 'string' });
    expect(((await admin.get(users)).body as Array<{ key: string }>).map((a) => a.key)).toEqual(['age', 'country']);
    expect((await admin.patch(`${users}/${age.body.id as string}`, { type: 'string' })).body.type).toBe('string');
    expect((await admin.delete(`${users}/country`)).status).toBe(204);
    expect(((await admin.get(users)).body as Array<{ key: string }>).map((a) => a.key)).toEqual(['age']);
    expect((await admin.post(users, { key: 'bad', type: 'int' })).status).toBe(422);
    // The built-in resource's key is reserved.
    expect((await admin.post(`${SCHEMA}/resources`, { key: '__user', name: 'Mine', actions: {} })).status).toBe(422);
  });

  it('deleting an action takes it from the roles and groups that hold it, and checks stop allowing it', async () => {
    await admin.post(`${SCHEMA}/resources/doc/roles`, { key: 'printer', name: 'Printer', permissions: ['read', 'print'] });
    await admin.patch(`${SCHEMA}/roles/member`, { permissions: ['doc:print'] });
    await admin.post(`${FACTS}/resource_instances`, { key: 'd1', resource: 'doc', tenant: 'acme' });
    await admin.post(`${FACTS}/role_assignments`, { user: 'pam', role: 'printer', resource_instance: 'doc:d1' });
    await admin.post(`${FACTS}/role_assignments`, { user: 'tom', role: 'member', tenant: 'acme' });
    expect(await allowed('pam', 'print', 'doc:d1')).toBe(true);
    expect(await allowed('tom', 'print', 'doc:d1')).toBe(true);

    expect((await admin.delete(`${SCHEMA}/resources/doc/actions/print`)).status).toBe(204);
    expect((await admin.get(`${SCHEMA}/resources/doc/roles/printer`)).body.permissions).toEqual(['read']);
    expect((await admin.get(`${SCHEMA}/roles/member`)).body.permissions).toEqual([]);
    expect((await admin.get(`${SCHEMA}/resources/doc/action_groups/out`)).body.actions).toEqual(['share']);
    expect(await allowed('pam', 'print', 'doc:d1')).toBe(false);
    expect(await allowed('tom', 'print', 'doc:d1')).toBe(false);
    expect(await allowed('pam', 'read', 'doc:d1')).toBe(true);

    // PUT without an action removes it the same way.
    await admin.request('PUT', `${SCHEMA}/resources/doc`, { name: 'Document', actions: { write: {} } });
    expect((await admin.get(`${SCHEMA}/resources/doc/roles/printer`)).body.permissions).toEqual([]);
    expect(await allowed('pam', 'read', 'doc:d1')).toBe(false);

    // The audit log tells what went, as explicit events naming the resource.
    const log = await admin.get('/v2/events/default/production?type=ActionDeleted&resource=doc');
    expect(log.status).toBe(200);
    expect(JSON.stringify(log.body)).toContain('"print"');
    expect(JSON.stringify(log.body)).toContain('"share"');
  });
});
