import { startTestServer, type TestServer } from '../support/embedded-server';
import { documentSchema, Scenario } from '../grants/support/scenario';

/**
 * `no_direct_roles_on_object`: a role's derivations do not apply to a user on
 * an instance where the user holds a direct role; the grants follow direct
 * assignments as they come and go.
 */
describe('derivation condition no_direct_roles_on_object', () => {
  let server: TestServer;
  let s: Scenario;
  const conditions = () => `${s.schema}/resources/document/roles/editor/implicit_grants/conditions`;
  beforeAll(async () => {
    server = await startTestServer();
    s = await Scenario.create(server, 'conditions');
    await documentSchema(s);
    await s.instance('folder:f', 'acme');
    await s.instance('document:d', 'acme');
    await s.instance('document:e', 'acme');
    await s.tuple('folder:f', 'parent', 'document:d');
    await s.tuple('folder:f', 'parent', 'document:e');
    await s.assign('alice', 'editor', 'folder:f');
  });
  afterAll(() => server.close());

  it('PUT …/implicit_grants/conditions answers the conditions and shows them in granted_to.when', async () => {
    expect(await s.ok(s.api.request('PUT', conditions(), { no_direct_roles_on_object: true }))).toEqual({
      no_direct_roles_on_object: true,
    });
    const role = await s.ok(s.api.get(`${s.schema}/resources/document/roles/editor`));
    expect(role.granted_to.when).toEqual({ no_direct_roles_on_object: true });
    const unknown = await s.api.request('PUT', conditions(), { no_direct_roles_on_object: true, only_on_weekdays: true });
    expect(unknown.status).toBe(422);
    expect(JSON.stringify(unknown.body)).toContain('only_on_weekdays');
  });

  it('a direct role on the document takes the derived role away there only, and its removal gives it back', async () => {
    expect(await s.can('alice', 'document:d')).toEqual(['read', 'write']);
    await s.assign('alice', 'viewer', 'document:d');
    expect(await s.can('alice', 'document:d')).toEqual(['read']); // the direct viewer role only
    expect(await s.can('alice', 'document:e')).toEqual(['read', 'write']);
    const permissions = await s.ok(s.api.post('/user-permissions', { user: { key: 'alice' } }));
    expect(permissions.result.permissions['document:d'].roles).toEqual(['viewer']);
    const holders = await s.ok(s.api.post('/authorized_users', { action: 'write', resource: 'document:d' }));
    expect(holders.users).toEqual({});

    await s.unassign('alice', 'viewer', 'document:d');
    expect(await s.can('alice', 'document:d')).toEqual(['read', 'write']);
    const explained = await s.ok(s.api.post('/allowed?explain=true', { user: 'alice', action: 'write', resource: 'document:d' }));
    expect(explained.explanation.granted_by[0].chain.map((c: { step: string }) => c.step)).toEqual(['role_assignment', 'role_derivation']);
  });

  it('turning the condition off derives again; on again retracts; other roles are not affected', async () => {
    await s.assign('alice', 'viewer', 'document:d');
    expect(await s.can('alice', 'document:d')).toEqual(['read']);
    await s.ok(s.api.request('PUT', conditions(), { no_direct_roles_on_object: false }));
    expect(await s.can('alice', 'document:d')).toEqual(['read', 'write']);
    expect((await s.ok(s.api.get(`${s.schema}/resources/document/roles/editor`))).granted_to.when).toEqual({
      no_direct_roles_on_object: false,
    });
    await s.ok(s.api.patch(`${s.schema}/resources/document/roles/editor`, { granted_to: { when: { no_direct_roles_on_object: true } } }));
    expect(await s.can('alice', 'document:d')).toEqual(['read']);
    await s.unassign('alice', 'viewer', 'document:d');
    expect(await s.can('alice', 'document:d')).toEqual(['read', 'write']);
  });

  it('what derives from a suppressed grant goes with it, and comes back with it', async () => {
    // folder#editor ⇐ folder#editor through parent, guarded: a direct role on the subfolder stops the chain there.
    await s.instance('folder:sub', 'acme');
    await s.instance('document:deep', 'acme');
    await s.tuple('folder:f', 'parent', 'folder:sub');
    await s.tuple('folder:sub', 'parent', 'document:deep');
    await s.ok(
      s.api.request('PUT', `${s.schema}/resources/folder/roles/editor/implicit_grants/conditions`, { no_direct_roles_on_object: true }),
    );
    expect(await s.can('alice', 'document:deep')).toEqual(['read', 'write']);
    await s.assign('alice', 'viewer', 'folder:sub');
    expect(await s.can('alice', 'folder:sub', ['read', 'write'])).toEqual(['read']);
    // document:deep keeps only what the direct viewer role on folder:sub derives (document#viewer ⇐ folder#viewer).
    expect(await s.can('alice', 'document:deep')).toEqual(['read']);
    await s.unassign('alice', 'viewer', 'folder:sub');
    expect(await s.can('alice', 'document:deep')).toEqual(['read', 'write']);
  });

  it('a rule `when` on POST implicit_grants sets the role condition; contradicting conditions and unknown keys are refused', async () => {
    await s.role('document', 'commenter', ['read']);
    await s.ok(
      s.api.post(`${s.schema}/resources/document/roles/commenter/implicit_grants`, {
        role: 'viewer',
        on_resource: 'folder',
        linked_by_relation: 'parent',
        when: { no_direct_roles_on_object: true },
      }),
    );
    expect((await s.ok(s.api.get(`${s.schema}/resources/document/roles/commenter`))).granted_to.when).toEqual({
      no_direct_roles_on_object: true,
    });
    const contradiction = await s.api.patch(`${s.schema}/resources/document/roles/commenter`, {
      granted_to: {
        when: { no_direct_roles_on_object: false },
        users_with_role: [
          { role: 'viewer', on_resource: 'folder', linked_by_relation: 'parent', when: { no_direct_roles_on_object: true } },
        ],
      },
    });
    expect(contradiction.status).toBe(400);
    const unknown = await s.api.patch(`${s.schema}/resources/document/roles/commenter`, { granted_to: { users_with_role: [], extra: 1 } });
    expect(unknown.status).toBe(422);
    expect(JSON.stringify(unknown.body)).toContain('extra');
    const topLevel = await s.api.post(`${s.schema}/roles`, {
      key: 'x',
      name: 'X',
      granted_to: { when: { no_direct_roles_on_object: true } },
    });
    // Top-level roles cannot be derived: the document says the condition can only be false there.
    expect(topLevel.status).toBe(422);
    expect(topLevel.body.detail[0].loc).toEqual(['body', 'granted_to', 'when', 'no_direct_roles_on_object']);
  });
});
