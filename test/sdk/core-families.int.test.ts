import { Permit } from 'permitio';
import { startTestServer, type TestServer } from '../support/embedded-server';

/**
 * The official `permitio` SDK's calls that test/sdk/permit-sdk.int.test.ts does
 * not drive: the PDP calls (check, bulkCheck, getUserPermissions), projects and
 * environments (organisation key), and the relations list.
 */
describe('the permitio SDK: checks, projects and environments', () => {
  let server: TestServer;
  let permit: Permit;
  let orgPermit: Permit;
  beforeAll(async () => {
    server = await startTestServer();
    const envApi = await server.api.environmentClient();
    const options = { apiUrl: server.url, pdp: server.url, log: { level: 'error' as const } };
    permit = new Permit({ token: envApi.key, ...options });
    orgPermit = new Permit({ token: server.adminKey, ...options });

    // folder and file, editor (read, write) and viewer (read) on each; file editors derive from
    // folder editors through file#parent. alice edits folder docs, bob views it; readme's parent is docs.
    for (const resource of ['folder', 'file']) {
      await permit.api.resources.create({ key: resource, name: resource, actions: { read: {}, write: {} } });
      await permit.api.resourceRoles.create(resource, { key: 'editor', name: 'Editor', permissions: ['read', 'write'] });
      await permit.api.resourceRoles.create(resource, { key: 'viewer', name: 'Viewer', permissions: ['read'] });
    }
    await permit.api.resourceRelations.create('file', { key: 'parent', name: 'Parent', subject_resource: 'folder' });
    await permit.api.resourceRoles.createRoleDerivation('file', 'editor', {
      role: 'editor',
      on_resource: 'folder',
      linked_by_relation: 'parent',
    });
    await permit.api.tenants.create({ key: 'acme', name: 'Acme' });
    await permit.api.resourceInstances.create({ key: 'docs', resource: 'folder', tenant: 'acme' });
    await permit.api.resourceInstances.create({ key: 'readme', resource: 'file', tenant: 'acme' });
    await permit.api.relationshipTuples.create({ subject: 'folder:docs', relation: 'parent', object: 'file:readme' });
    await permit.api.roleAssignments.assign({ user: 'alice', role: 'editor', resource_instance: 'folder:docs' });
    await permit.api.roleAssignments.assign({ user: 'bob', role: 'viewer', resource_instance: 'folder:docs' });
  });
  afterAll(() => server.close());

  it('check: direct and derived roles, string and object forms', async () => {
    expect(await permit.check('alice', 'write', 'folder:docs')).toBe(true);
    expect(await permit.check('bob', 'read', 'folder:docs')).toBe(true);
    expect(await permit.check('bob', 'write', 'folder:docs')).toBe(false);
    expect(await permit.check('alice', 'write', 'file:readme')).toBe(true);
    expect(await permit.check('bob', 'read', 'file:readme')).toBe(false);
    expect(await permit.check({ key: 'alice' }, 'write', { type: 'file', key: 'readme', tenant: 'acme' })).toBe(true);
    expect(await permit.check('nobody', 'read', 'folder:docs')).toBe(false);
  });

  it('bulkCheck answers each check in order', async () => {
    expect(
      await permit.bulkCheck([
        { user: 'alice', action: 'write', resource: 'file:readme' },
        { user: 'bob', action: 'write', resource: 'folder:docs' },
        { user: { key: 'bob' }, action: 'read', resource: { type: 'folder', key: 'docs', tenant: 'acme' } },
      ]),
    ).toEqual([true, false, true]);
  });

  it('getUserPermissions lists what a user may do per instance, with filters', async () => {
    const alice = await permit.getUserPermissions('alice', ['acme']);
    expect(Object.keys(alice).sort()).toEqual(['file:readme', 'folder:docs']);
    expect(alice['folder:docs']).toEqual({
      permissions: ['folder:read', 'folder:write'],
      roles: ['editor'],
      resource: { type: 'folder', key: 'docs', attributes: {} },
    });
    expect([...alice['file:readme']!.permissions].sort()).toEqual(['file:read', 'file:write']);
    expect(Object.keys(await permit.getUserPermissions('alice', ['acme'], undefined, ['file']))).toEqual(['file:readme']);
    const bob = await permit.getUserPermissions('bob');
    expect(bob['folder:docs']!.permissions).toEqual(['folder:read']);
    expect(bob['file:readme']).toBeUndefined();
  });

  it('projects and environments: list and get with the organisation key', async () => {
    const projects = await orgPermit.api.projects.list();
    expect(projects.map((p) => p.key)).toContain('default');
    const project = await orgPermit.api.projects.get('default');
    expect(project).toMatchObject({ key: 'default', id: projects.find((p) => p.key === 'default')!.id });

    const envs = await orgPermit.api.environments.list({ projectKey: 'default' });
    expect(envs.map((e) => e.key)).toContain('production');
    const production = await orgPermit.api.environments.get('default', 'production');
    expect(production).toMatchObject({ key: 'production', project_id: project.id, organization_id: project.organization_id });
  });

  it('resourceRelations.list gets the page Permit answers (permitio 2.7.6 declares an array)', async () => {
    const page = (await permit.api.resourceRelations.list({ resourceKey: 'file' })) as unknown;
    expect(page).toMatchObject({
      total_count: 1,
      page_count: 1,
      data: [expect.objectContaining({ key: 'parent', subject_resource: 'folder' })],
    });
  });
});
