import { Permit } from 'permitio';
import { startTestServer, type TestServer } from '../support/embedded-server';

/**
 * The facts families through the official `permitio` SDK: users (sync, update,
 * roles, bulk), tenants (update, tenant users), resource instances, role
 * assignments and relationship tuples with their bulk forms, and the checks
 * that follow from them.
 */
describe('permitio SDK: users, tenants, instances, assignments, tuples', () => {
  let server: TestServer;
  let permit: Permit;
  const check = (user: string, action: string, resource: string, tenant = 'acme') =>
    permit.check(user, action, { type: resource.split(':')[0]!, key: resource.split(':')[1], tenant });

  beforeAll(async () => {
    server = await startTestServer();
    const envApi = await server.api.environmentClient();
    permit = new Permit({ token: envApi.key, apiUrl: server.url, pdp: server.url, log: { level: 'error' } });
    await permit.api.resources.create({ key: 'folder', name: 'Folder', actions: { read: {}, write: {} } });
    await permit.api.resources.create({ key: 'file', name: 'File', actions: { read: {}, write: {} } });
    await permit.api.resourceRoles.create('folder', { key: 'editor', name: 'Editor', permissions: ['read', 'write'] });
    await permit.api.resourceRoles.create('file', { key: 'viewer', name: 'Viewer', permissions: ['read'] });
    await permit.api.resourceRelations.create('file', { key: 'parent', name: 'Parent', subject_resource: 'folder' });
    await permit.api.resourceRoles.createRoleDerivation('file', 'viewer', {
      role: 'editor',
      on_resource: 'folder',
      linked_by_relation: 'parent',
    });
    await permit.api.roles.create({ key: 'member', name: 'Member', permissions: ['folder:read'] });
    await permit.api.tenants.create({ key: 'acme', name: 'Acme' });
  });
  afterAll(() => server.close());

  it('users.sync tells created from replaced; update, get and delete (with its grants)', async () => {
    const first = await permit.api.users.sync({ key: 'sam', email: 'sam@example.com', first_name: 'Sam' });
    expect(first.created).toBe(true);
    const again = await permit.api.users.sync({ key: 'sam', last_name: 'Smith', role_assignments: [{ role: 'member', tenant: 'acme' }] });
    expect(again.created).toBe(false);
    const read = await permit.api.users.get('sam');
    expect(read).toMatchObject({ key: 'sam', email: null, first_name: null, last_name: 'Smith' });
    expect(read.roles).toEqual([{ role: 'member', tenant: 'acme' }]);
    expect(await permit.api.users.update('sam', { first_name: 'Samuel' })).toMatchObject({ first_name: 'Samuel', last_name: 'Smith' });

    await permit.api.resourceInstances.create({ key: 'docs', resource: 'folder', tenant: 'acme' });
    expect(await check('sam', 'read', 'folder:docs')).toBe(true);
    await permit.api.users.delete('sam');
    await expect(permit.api.users.get('sam')).rejects.toThrow();
    expect(await check('sam', 'read', 'folder:docs')).toBe(false);
    expect(await permit.api.roleAssignments.list({ user: 'sam' })).toEqual([]);
  });

  it('users.assignRole / unassignRole / getAssignedRoles, and users.list by search and role', async () => {
    await permit.api.users.create({ key: 'uma', email: 'uma@example.com' });
    await permit.api.users.assignRole({ user: 'uma', role: 'member', tenant: 'acme' });
    expect(await permit.api.users.getAssignedRoles({ user: 'uma' })).toHaveLength(1);
    expect((await permit.api.users.list({ search: 'uma@' })).data.map((u) => u.key)).toEqual(['uma']);
    expect((await permit.api.users.list({ role: 'member' })).data.map((u) => u.key)).toEqual(['uma']);
    await permit.api.users.unassignRole({ user: 'uma', role: 'member', tenant: 'acme' });
    expect(await permit.api.users.getAssignedRoles({ user: 'uma' })).toHaveLength(0);
  });

  it('users bulk create, replace and delete', async () => {
    await permit.api.users.bulkUserCreate([{ key: 'b1' }, { key: 'b2', role_assignments: [{ role: 'member', tenant: 'acme' }] }]);
    expect(await check('b2', 'read', 'folder:docs')).toBe(true);
    await permit.api.users.bulkUserReplace([{ key: 'b1', email: 'b1@example.com' }, { key: 'b3' }]);
    expect((await permit.api.users.get('b1')).email).toBe('b1@example.com');
    expect((await permit.api.users.get('b3')).key).toBe('b3');
    await permit.api.users.bulkUserDelete(['b1', 'b2', 'b3']);
    expect(await check('b2', 'read', 'folder:docs')).toBe(false);
    await expect(permit.api.users.get('b1')).rejects.toThrow();
  });

  it('tenants.update, listTenantUsers and deleteTenantUser', async () => {
    expect(await permit.api.tenants.update('acme', { description: 'Acme Inc.' })).toMatchObject({ name: 'Acme', description: 'Acme Inc.' });
    await permit.api.roleAssignments.assign({ user: 'tom', role: 'member', tenant: 'acme' });
    const users = await permit.api.tenants.listTenantUsers({ tenantKey: 'acme' });
    expect(users.data.map((u) => u.key)).toContain('tom');
    expect(users.total_count).toBe(users.data.length);
    await permit.api.tenants.deleteTenantUser('acme', 'tom');
    expect((await permit.api.tenants.listTenantUsers({ tenantKey: 'acme' })).data.map((u) => u.key)).not.toContain('tom');
    expect(await check('tom', 'read', 'folder:docs')).toBe(false);
  });

  it('resourceInstances.update and list; an assignment or a tuple with a tenant creates the missing instance', async () => {
    expect(await permit.api.resourceInstances.update('folder:docs', { attributes: { private: true } })).toMatchObject({
      attributes: { private: true },
    });
    await permit.api.roleAssignments.assign({ user: 'ed', role: 'editor', resource_instance: 'folder:reports', tenant: 'acme' });
    await permit.api.relationshipTuples.create({ subject: 'folder:reports', relation: 'parent', object: 'file:q1', tenant: 'acme' });
    expect((await permit.api.resourceInstances.get('file:q1')).tenant).toBe('acme');
    expect((await permit.api.resourceInstances.list({ tenant: 'acme', resource: 'folder' })).map((i) => i.key).sort()).toEqual([
      'docs',
      'reports',
    ]);
    expect(await check('ed', 'read', 'file:q1')).toBe(true);
  });

  it('roleAssignments list detailed and bulk; relationshipTuples bulk', async () => {
    const detailed = (await permit.api.roleAssignments.list({ user: 'ed', detailed: true })) as Array<Record<string, any>>;
    expect(detailed[0]).toMatchObject({
      user: { key: 'ed' },
      role: { key: 'editor' },
      resource_instance: { key: 'reports', resource: 'folder' },
    });

    const created = await permit.api.roleAssignments.bulkAssign([
      { user: 'ann', role: 'member', tenant: 'acme' },
      { user: 'ann', role: 'viewer', resource_instance: 'file:q1' },
    ]);
    expect(created).toEqual({ assignments_created: 2 });
    expect(await permit.api.roleAssignments.bulkUnassign([{ user: 'ann', role: 'member', tenant: 'acme' }])).toEqual({
      assignments_removed: 1,
    });

    await permit.api.relationshipTuples.bulkRelationshipTuples([
      { subject: 'folder:docs', relation: 'parent', object: 'file:q2', tenant: 'acme' },
    ]);
    expect(await permit.api.relationshipTuples.list({ object: 'file:q2' })).toHaveLength(1);
    await permit.api.relationshipTuples.bulkUnRelationshipTuples([{ subject: 'folder:docs', relation: 'parent', object: 'file:q2' }]);
    expect(await permit.api.relationshipTuples.list({ object: 'file:q2' })).toHaveLength(0);
  });
});
