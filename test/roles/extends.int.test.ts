import { startTestServer, type TestServer } from '../support/embedded-server';
import { Scenario } from '../grants/support/scenario';

/**
 * Role `extends` (Permit's role hierarchy): a role has the permissions of the
 * roles it extends, transitively, in every check; same scope only; no cycles;
 * deleting a role removes it from the others' `extends`.
 */
describe('role extends', () => {
  let server: TestServer;
  let s: Scenario;
  const roles = (resource: string) => `/v2/schema/default/extends/resources/${resource}/roles`;
  beforeAll(async () => {
    server = await startTestServer();
    s = await Scenario.create(server, 'extends');
    await s.resource('document', ['read', 'comment', 'write', 'delete']);
    await s.resource('folder', ['read']);
    await s.role('document', 'viewer', ['read']);
    await s.ok(s.api.post(roles('document'), { key: 'commenter', name: 'Commenter', permissions: ['comment'], extends: ['viewer'] }));
    await s.ok(s.api.post(roles('document'), { key: 'editor', name: 'Editor', permissions: ['write'], extends: ['commenter'] }));
    await s.role('folder', 'viewer', ['read']);
    await s.tenant('acme');
    await s.instance('document:d', 'acme');
  });
  afterAll(() => server.close());

  it('stores extends and answers it in the role read model', async () => {
    const editor = await s.ok(s.api.get(`${roles('document')}/editor`));
    expect(editor.extends).toEqual(['commenter']);
    expect(editor.permissions).toEqual(['write']); // its own; inherited ones are not copied into it
    expect((await s.ok(s.api.get(`${roles('document')}/viewer`))).extends).toEqual([]);
  });

  it('gives the inherited permissions, transitively, in /allowed, bulk, explain, user-permissions and authorized_users', async () => {
    await s.assign('erin', 'editor', 'document:d');
    expect(await s.can('erin', 'document:d', ['read', 'comment', 'write', 'delete'])).toEqual(['read', 'comment', 'write']);
    const bulk = await s.ok(
      s.api.post('/allowed/bulk', [
        { user: { key: 'erin' }, action: 'read', resource: { type: 'document', key: 'd' } },
        { user: { key: 'erin' }, action: 'delete', resource: { type: 'document', key: 'd' } },
      ]),
    );
    expect(bulk.allow).toEqual([{ allow: true }, { allow: false }]);
    const explained = await s.ok(s.api.post('/allowed?explain=true', { user: 'erin', action: 'read', resource: 'document:d' }));
    expect(explained.allow).toBe(true);
    expect(explained.explanation.granted_by[0]).toMatchObject({ role: 'editor', permissions: expect.arrayContaining(['read', 'write']) });
    const permissions = await s.ok(s.api.post('/user-permissions', { user: { key: 'erin' } }));
    expect(permissions.result.permissions['document:d'].permissions.sort()).toEqual([
      'document:comment',
      'document:read',
      'document:write',
    ]);
    const users = await s.ok(s.api.post('/authorized_users', { action: 'read', resource: 'document:d' }));
    expect(Object.keys(users.users)).toEqual(['erin']);
  });

  it('follows changes of an ancestor at once (permissions added or removed, extends replaced by PATCH)', async () => {
    await s.ok(s.api.post(`${roles('document')}/viewer/permissions`, { permissions: ['delete'] }));
    expect(await s.allowed('erin', 'delete', 'document:d')).toBe(true);
    await s.ok(s.api.delete(`${roles('document')}/viewer/permissions`, { permissions: ['delete'] }));
    expect(await s.allowed('erin', 'delete', 'document:d')).toBe(false);
    await s.ok(s.api.patch(`${roles('document')}/commenter`, { extends: [] }));
    expect(await s.can('erin', 'document:d', ['read', 'comment', 'write'])).toEqual(['comment', 'write']);
    await s.ok(s.api.patch(`${roles('document')}/commenter`, { extends: ['viewer'] }));
    expect(await s.can('erin', 'document:d', ['read', 'comment', 'write'])).toEqual(['read', 'comment', 'write']);
  });

  it('answers ancestors (what a role inherits from) and descendants (what inherits from it)', async () => {
    const keys = (body: Array<{ key: string }>) => body.map((r) => r.key).sort();
    expect(keys(await s.ok(s.api.get(`${roles('document')}/editor/ancestors`)))).toEqual(['commenter', 'viewer']);
    expect(keys(await s.ok(s.api.get(`${roles('document')}/viewer/descendants`)))).toEqual(['commenter', 'editor']);
    expect(await s.ok(s.api.get(`${roles('document')}/viewer/ancestors`))).toEqual([]);
    expect(await s.ok(s.api.get(`${roles('document')}/editor/descendants`))).toEqual([]);
    expect((await s.api.get(`${roles('document')}/nobody/ancestors`)).status).toBe(404);
  });

  it('refuses a cycle with 400 naming it, a role of another scope, an unknown role, and itself; nothing changes', async () => {
    const cycle = await s.api.patch(`${roles('document')}/viewer`, { extends: ['editor'] });
    expect(cycle.status).toBe(400);
    expect(cycle.body.message).toContain('viewer -> editor -> commenter -> viewer');
    expect((await s.ok(s.api.get(`${roles('document')}/viewer`))).extends).toEqual([]);

    const self = await s.api.patch(`${roles('document')}/viewer`, { extends: ['viewer'] });
    expect(self.status).toBe(400);
    const otherResource = await s.api.post(roles('folder'), { key: 'editor', name: 'E', extends: ['commenter'] });
    expect(otherResource.status).toBe(400);
    expect(otherResource.body.message).toContain('same resource');
    expect((await s.api.get(`${roles('folder')}/editor`)).status).toBe(404);
    const extra = await s.api.patch(`${roles('document')}/viewer`, { extends: [], inherits: ['editor'] });
    expect(extra.status).toBe(422);
    expect(JSON.stringify(extra.body)).toContain('inherits');
    const unknown = await s.api.patch(`${roles('document')}/viewer`, { extends: ['ghost'] });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toContain('ghost');
  });

  it('top-level roles extend top-level roles only, and checks count the inherited `type:action` permissions', async () => {
    await s.tenantRole('reader', ['document:read']);
    await s.ok(s.api.post(`${s.schema}/roles`, { key: 'writer', name: 'Writer', permissions: ['document:write'], extends: ['reader'] }));
    await s.assignTenantRole('tom', 'writer', 'acme');
    expect(await s.can('tom', 'document:d')).toEqual(['read', 'write']);
    const permissions = await s.ok(s.api.post('/user-permissions', { user: { key: 'tom' } }));
    expect(permissions.result.permissions['__tenant:acme'].permissions).toEqual(['document:read', 'document:write']);
    expect(Object.keys((await s.ok(s.api.post('/authorized_users', { action: 'read', resource: 'document:d' }))).users)).toContain('tom');
    expect((await s.ok(s.api.get(`${s.schema}/roles/reader/descendants`))).map((r: { key: string }) => r.key)).toEqual(['writer']);
    expect((await s.ok(s.api.get(`${s.schema}/roles/writer/ancestors`))).map((r: { key: string }) => r.key)).toEqual(['reader']);
    const mixed = await s.api.patch(`${s.schema}/roles/writer`, { extends: ['viewer'] });
    expect(mixed.status).toBe(400);
    expect(mixed.body.message).toContain('top-level');
  });

  it('PUT and DELETE …/parents/{parent} add and remove one parent, answering the role (cycles refused)', async () => {
    await s.role('document', 'auditor', []);
    expect((await s.ok(s.api.request('PUT', `${roles('document')}/auditor/parents/viewer`))).extends).toEqual(['viewer']);
    expect((await s.ok(s.api.request('PUT', `${roles('document')}/auditor/parents/viewer`))).extends).toEqual(['viewer']);
    expect(await s.ok(s.api.get(`${roles('document')}/viewer/descendants`))).toEqual(
      expect.arrayContaining([expect.objectContaining({ key: 'auditor' })]),
    );
    const cycle = await s.api.request('PUT', `${roles('document')}/viewer/parents/auditor`);
    expect(cycle.status).toBe(400);
    expect(cycle.body.message).toContain('viewer -> auditor -> viewer');
    expect((await s.ok(s.api.delete(`${roles('document')}/auditor/parents/viewer`))).extends).toEqual([]);
    expect((await s.ok(s.api.delete(`${roles('document')}/auditor/parents/viewer`))).extends).toEqual([]);
    expect((await s.api.request('PUT', `${roles('document')}/auditor/parents/ghost`)).status).toBe(404);
  });

  it('deleting a role removes it from the extends of others, as an explicit event', async () => {
    await s.ok(s.api.delete(`${roles('document')}/commenter`));
    expect((await s.ok(s.api.get(`${roles('document')}/editor`))).extends).toEqual([]);
    expect(await s.can('erin', 'document:d', ['read', 'comment', 'write'])).toEqual(['write']);
    const events = await s.ok(s.api.get('/v2/events/default/extends?limit=1000'));
    const types = JSON.stringify(events);
    expect(types).toContain('RoleExtendsReplaced');
  });
});

describe('role permissions: POST and DELETE …/permissions', () => {
  let server: TestServer;
  let s: Scenario;
  beforeAll(async () => {
    server = await startTestServer();
    s = await Scenario.create(server, 'perms');
    await s.resource('document', ['read', 'write']);
    await s.role('document', 'viewer', []);
    await s.tenantRole('member', []);
  });
  afterAll(() => server.close());

  it('adds and removes, answering the role; removing one the role lacks is no error; unknown actions are refused', async () => {
    const path = `${s.schema}/resources/document/roles/viewer/permissions`;
    expect((await s.ok(s.api.post(path, { permissions: ['read', 'read'] }))).permissions).toEqual(['read']);
    expect((await s.ok(s.api.post(path, { permissions: ['write'] }))).permissions).toEqual(['read', 'write']);
    expect((await s.ok(s.api.delete(path, { permissions: ['write', 'never-had'] }))).permissions).toEqual(['read']);
    const unknown = await s.api.post(path, { permissions: ['fly'] });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toContain('fly');
    const extra = await s.api.post(path, { permissions: ['read'], other: 1 });
    expect(extra.status).toBe(422);
    expect(JSON.stringify(extra.body)).toContain('other');

    const top = `${s.schema}/roles/member/permissions`;
    expect((await s.ok(s.api.post(top, { permissions: ['document:read'] }))).permissions).toEqual(['document:read']);
    // A top-level role's permissions are `resource:action`: another form is refused by its schema, on removal too
    // (where removing one the role lacks would otherwise change nothing and pass).
    const badForm = await s.api.post(top, { permissions: ['read'] });
    expect([badForm.status, badForm.body.detail?.[0]?.loc]).toEqual([422, ['body', 'permissions', 0]]);
    expect((await s.api.delete(top, { permissions: ['read'] })).status).toBe(422);
    expect((await s.ok(s.api.delete(top, { permissions: ['document:read'] }))).permissions).toEqual([]);
    expect((await s.api.post(`${s.schema}/roles/ghost/permissions`, { permissions: [] })).status).toBe(404);
  });
});
