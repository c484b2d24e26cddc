import { Permit } from 'permitio';
import { startTestServer, type TestServer } from '../support/embedded-server';

/**
 * The official `permitio` SDK pointed at our server drives the seed's
 * folder/file flow through `permit.api.*` and reads every object back.
 */
describe('the official permitio SDK against our server', () => {
  let server: TestServer;
  let permit: Permit;
  beforeAll(async () => {
    server = await startTestServer();
    const envApi = await server.api.environmentClient();
    permit = new Permit({ token: envApi.key, apiUrl: server.url, pdp: server.url, log: { level: 'error' } });
  });
  afterAll(() => server.close());

  it('runs the folder/file flow through permit.api and reads everything back', async () => {
    await permit.api.resources.create({ key: 'folder', name: 'Folder', actions: { read: {}, write: {} } });
    await permit.api.resources.create({ key: 'file', name: 'File', actions: { read: {}, write: {} } });
    await permit.api.resourceRoles.create('folder', { key: 'editor', name: 'Editor', permissions: ['read', 'write'] });
    await permit.api.resourceRoles.create('file', { key: 'editor', name: 'Editor', permissions: ['read', 'write'] });
    await permit.api.resourceRoles.create('file', { key: 'viewer', name: 'Viewer', permissions: ['read'] });
    await permit.api.resourceRelations.create('file', { key: 'parent', name: 'Parent', subject_resource: 'folder' });
    const updated = await permit.api.resourceRoles.update('file', 'editor', {
      granted_to: { users_with_role: [{ role: 'editor', on_resource: 'folder', linked_by_relation: 'parent' }] },
    });
    expect(updated.granted_to?.users_with_role).toEqual([
      expect.objectContaining({ role: 'editor', on_resource: 'folder', linked_by_relation: 'parent' }),
    ]);
    const grant = await permit.api.resourceRoles.createRoleDerivation('file', 'viewer', {
      role: 'editor',
      on_resource: 'folder',
      linked_by_relation: 'parent',
    });
    expect(grant).toMatchObject({ role: 'editor', on_resource: 'folder', linked_by_relation: 'parent' });
    await permit.api.tenants.create({ key: 'acme', name: 'Acme' });
    await permit.api.resourceInstances.create({ key: 'docs', resource: 'folder', tenant: 'acme' });
    await permit.api.resourceInstances.create({ key: 'readme', resource: 'file', tenant: 'acme' });
    const assignment = await permit.api.roleAssignments.assign({ user: 'alice', role: 'editor', resource_instance: 'folder:docs' });
    expect(assignment).toMatchObject({ user: 'alice', role: 'editor', tenant: 'acme', resource_instance: 'folder:docs' });
    const tuple = await permit.api.relationshipTuples.create({ subject: 'folder:docs', relation: 'parent', object: 'file:readme' });
    expect(tuple).toMatchObject({ subject: 'folder:docs', relation: 'parent', object: 'file:readme' });

    expect((await permit.api.resources.get('folder')).key).toBe('folder');
    expect((await permit.api.resources.list()).map((r) => r.key).sort()).toEqual(['file', 'folder']);
    expect((await permit.api.resourceRoles.get('file', 'viewer')).granted_to?.users_with_role).toHaveLength(1);
    expect((await permit.api.resourceRoles.list({ resourceKey: 'file' })).map((r) => r.key).sort()).toEqual(['editor', 'viewer']);
    expect((await permit.api.resourceRelations.get('file', 'parent')).subject_resource).toBe('folder');
    expect((await permit.api.tenants.get('acme')).name).toBe('Acme');
    expect((await permit.api.resourceInstances.get('folder:docs')).tenant).toBe('acme');
    expect((await permit.api.resourceInstances.list({ tenant: 'acme' })).map((i) => i.key).sort()).toEqual(['docs', 'readme']);
    expect((await permit.api.roleAssignments.list({ user: 'alice' })) as unknown[]).toHaveLength(1);
    expect(await permit.api.relationshipTuples.list({ subject: 'folder:docs' })).toHaveLength(1);
    expect((await permit.api.users.get('alice')).key).toBe('alice');

    // Bad input surfaces as an SDK error carrying our message.
    await expect(permit.api.resourceInstances.create({ key: 'x', resource: 'folder', tenant: 'ghost' })).rejects.toThrow(/ghost/);

    await permit.api.relationshipTuples.delete({ subject: 'folder:docs', relation: 'parent', object: 'file:readme' });
    await permit.api.roleAssignments.unassign({ user: 'alice', role: 'editor', resource_instance: 'folder:docs' });
    expect((await permit.api.roleAssignments.list({ user: 'alice' })) as unknown[]).toHaveLength(0);
    await permit.api.resourceRoles.deleteRoleDerivation('file', 'viewer', {
      role: 'editor',
      on_resource: 'folder',
      linked_by_relation: 'parent',
    });
    await permit.api.resourceInstances.delete('file:readme');
    await expect(permit.api.resourceInstances.get('file:readme')).rejects.toThrow();
  });
});
