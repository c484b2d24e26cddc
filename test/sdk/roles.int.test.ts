import { Permit } from 'permitio';
import { startTestServer, type TestServer } from '../support/embedded-server';

/**
 * The `permitio` SDK's role calls: `permit.api.roles.*` and
 * `permit.api.resourceRoles.*` (permissions added and removed, derivations and
 * their conditions), with `extends` sent through the create/update bodies
 * (the SDK's types omit it; the body is passed as given) and the checks that
 * follow from them. The SDK has no call for ancestors/descendants.
 */
describe('the permitio SDK: roles and resource roles', () => {
  let server: TestServer;
  let permit: Permit;
  beforeAll(async () => {
    server = await startTestServer();
    const envApi = await server.api.environmentClient();
    permit = new Permit({ token: envApi.key, apiUrl: server.url, pdp: server.url, log: { level: 'error' as const } });
    for (const resource of ['folder', 'document']) {
      await permit.api.resources.create({ key: resource, name: resource, actions: { read: {}, comment: {}, write: {} } });
    }
    await permit.api.tenants.create({ key: 'acme', name: 'Acme' });
    await permit.api.resourceInstances.create({ key: 'f', resource: 'folder', tenant: 'acme' });
    await permit.api.resourceInstances.create({ key: 'd', resource: 'document', tenant: 'acme' });
  });
  afterAll(() => server.close());

  it('top-level roles: create with extends, assignPermissions / removePermissions, inherited permissions in checks', async () => {
    const reader = await permit.api.roles.create({ key: 'reader', name: 'Reader', permissions: ['document:read'] });
    expect(reader.permissions).toEqual(['document:read']);
    const writer = await permit.api.roles.create({ key: 'writer', name: 'Writer', permissions: [], extends: ['reader'] } as never);
    expect((writer as unknown as { extends: string[] }).extends).toEqual(['reader']);

    const assigned = await permit.api.roles.assignPermissions('writer', ['document:write']);
    expect(assigned.permissions).toEqual(['document:write']);
    await permit.api.roleAssignments.assign({ user: 'tom', role: 'writer', tenant: 'acme' });
    expect(await permit.check('tom', 'write', 'document:d')).toBe(true);
    expect(await permit.check('tom', 'read', 'document:d')).toBe(true); // from reader
    expect(await permit.check('tom', 'comment', 'document:d')).toBe(false);

    const removed = await permit.api.roles.removePermissions('writer', ['document:write', 'document:comment']);
    expect(removed.permissions).toEqual([]);
    expect(await permit.check('tom', 'write', 'document:d')).toBe(false);
    expect(await permit.check('tom', 'read', 'document:d')).toBe(true);

    const updated = await permit.api.roles.update('writer', { extends: [] } as never);
    expect((updated as unknown as { extends: string[] }).extends).toEqual([]);
    expect(await permit.check('tom', 'read', 'document:d')).toBe(false);
    expect((await permit.api.roles.get('reader')).key).toBe('reader');
  });

  it('a cycle is refused (400) and deleting a role removes it from the extends of others', async () => {
    await permit.api.roles.update('writer', { extends: ['reader'] } as never);
    await expect(permit.api.roles.update('reader', { extends: ['writer'] } as never)).rejects.toMatchObject({
      response: { status: 400 },
    });
    await permit.api.roles.delete('reader');
    const writer = (await permit.api.roles.get('writer')) as unknown as { extends: string[] };
    expect(writer.extends).toEqual([]);
  });

  it('resource roles: extends, assignPermissions / removePermissions', async () => {
    await permit.api.resourceRoles.create('document', { key: 'viewer', name: 'Viewer', permissions: ['read'] });
    const commenter = await permit.api.resourceRoles.create('document', {
      key: 'commenter',
      name: 'Commenter',
      permissions: [],
      extends: ['viewer'],
    } as never);
    expect((commenter as unknown as { extends: string[] }).extends).toEqual(['viewer']);
    expect((await permit.api.resourceRoles.assignPermissions('document', 'commenter', ['comment'])).permissions).toEqual(['comment']);
    await permit.api.roleAssignments.assign({ user: 'cara', role: 'commenter', resource_instance: 'document:d' });
    expect(await permit.check('cara', 'comment', 'document:d')).toBe(true);
    expect(await permit.check('cara', 'read', 'document:d')).toBe(true);
    expect(await permit.check('cara', 'write', 'document:d')).toBe(false);
    expect((await permit.api.resourceRoles.removePermissions('document', 'commenter', ['comment'])).permissions).toEqual([]);
    expect(await permit.check('cara', 'comment', 'document:d')).toBe(false);
    expect((await permit.api.resourceRoles.list({ resourceKey: 'document' })).map((r) => r.key).sort()).toEqual(['commenter', 'viewer']);
  });

  it('derivations and updateRoleDerivationConditions: no_direct_roles_on_object follows direct assignments', async () => {
    await permit.api.resourceRelations.create('document', { key: 'parent', name: 'Parent', subject_resource: 'folder' });
    await permit.api.resourceRoles.create('folder', { key: 'editor', name: 'Editor', permissions: ['read', 'write'] });
    await permit.api.resourceRoles.create('document', { key: 'editor', name: 'Editor', permissions: ['read', 'write'] });
    const rule = await permit.api.resourceRoles.createRoleDerivation('document', 'editor', {
      role: 'editor',
      on_resource: 'folder',
      linked_by_relation: 'parent',
    });
    expect(rule).toMatchObject({ role: 'editor', on_resource: 'folder', linked_by_relation: 'parent' });
    await permit.api.relationshipTuples.create({ subject: 'folder:f', relation: 'parent', object: 'document:d' });
    await permit.api.roleAssignments.assign({ user: 'ed', role: 'editor', resource_instance: 'folder:f' });
    expect(await permit.check('ed', 'write', 'document:d')).toBe(true);

    const conditions = await permit.api.resourceRoles.updateRoleDerivationConditions('document', 'editor', {
      no_direct_roles_on_object: true,
    });
    expect(conditions).toEqual({ no_direct_roles_on_object: true });
    expect((await permit.api.resourceRoles.get('document', 'editor')).granted_to?.when).toEqual({ no_direct_roles_on_object: true });
    await permit.api.roleAssignments.assign({ user: 'ed', role: 'viewer', resource_instance: 'document:d' });
    expect(await permit.check('ed', 'write', 'document:d')).toBe(false);
    expect(await permit.check('ed', 'read', 'document:d')).toBe(true);
    await permit.api.roleAssignments.unassign({ user: 'ed', role: 'viewer', resource_instance: 'document:d' });
    expect(await permit.check('ed', 'write', 'document:d')).toBe(true);

    await permit.api.resourceRoles.deleteRoleDerivation('document', 'editor', {
      role: 'editor',
      on_resource: 'folder',
      linked_by_relation: 'parent',
    });
    expect(await permit.check('ed', 'write', 'document:d')).toBe(false);
    await permit.api.resourceRoles.delete('document', 'viewer');
    await expect(permit.api.resourceRoles.get('document', 'viewer')).rejects.toMatchObject({ response: { status: 404 } });
  });
});
