import { Permit } from 'permitio';
import { startTestServer, type TestServer } from '../support/embedded-server';

/**
 * The schema families through the official `permitio` SDK: resources
 * (create with inline roles and relations, update, replace), and the
 * resourceActions, resourceAttributes, resourceActionGroups and
 * resourceRelations wrappers. The Node SDK has no user-attributes wrapper.
 */
describe('permitio SDK: resources and their parts', () => {
  let server: TestServer;
  let permit: Permit;
  const uuid = expect.stringMatching(/^[0-9a-f-]{36}$/);

  beforeAll(async () => {
    server = await startTestServer();
    const envApi = await server.api.environmentClient();
    permit = new Permit({ token: envApi.key, apiUrl: server.url, pdp: server.url, log: { level: 'error' } });
  });
  afterAll(() => server.close());

  it('creates, updates and replaces resources', async () => {
    await permit.api.resources.create({ key: 'folder', name: 'Folder', actions: { read: {} } });
    const created = await permit.api.resources.create({
      key: 'doc',
      name: 'Doc',
      urn: 'urn:example:doc',
      actions: { read: {}, write: { name: 'Write' }, share: {} },
      attributes: { private: { type: 'bool', description: 'Hidden' } },
      roles: { editor: { name: 'Editor', permissions: ['read', 'write'] } },
      relations: { parent: 'folder' },
    });
    expect(created).toMatchObject({
      key: 'doc',
      urn: 'urn:example:doc',
      description: null,
      actions: { write: { id: uuid, key: 'write', name: 'Write' } },
      attributes: { private: { id: uuid, key: 'private', type: 'bool', description: 'Hidden' } },
      relations: { parent: { resource: 'folder', resource_id: uuid } },
    });
    expect((await permit.api.resourceRoles.get('doc', 'editor')).permissions).toEqual(['read', 'write']);
    expect((await permit.api.resourceRelations.get('doc', 'parent')).subject_resource).toBe('folder');

    const updated = await permit.api.resources.update('doc', { description: 'Documents', actions: { print: {} } });
    expect(updated.description).toBe('Documents');
    expect(Object.keys(updated.actions ?? {}).sort()).toEqual(['print', 'read', 'share', 'write']);

    const replaced = await permit.api.resources.replace('doc', { name: 'Document', actions: { read: {}, write: {}, print: {} } });
    expect(replaced).toMatchObject({ name: 'Document', description: null, urn: null, attributes: {} });
    expect(Object.keys(replaced.actions ?? {}).sort()).toEqual(['print', 'read', 'write']);
    expect((await permit.api.resources.get(created.id)).name).toBe('Document');
  });

  it('manages actions, attributes and action groups, and an action removed leaves the roles and checks', async () => {
    const action = await permit.api.resourceActions.create('doc', { key: 'archive', name: 'Archive' });
    expect(action).toMatchObject({ key: 'archive', name: 'Archive', permission_name: 'doc:archive', resource_id: uuid });
    expect((await permit.api.resourceActions.get('doc', 'archive')).id).toBe(action.id);
    expect((await permit.api.resourceActions.update('doc', 'archive', { description: 'Put away' })).description).toBe('Put away');
    expect((await permit.api.resourceActions.list({ resourceKey: 'doc' })).map((a) => a.key)).toEqual([
      'archive',
      'print',
      'read',
      'write',
    ]);

    const attribute = await permit.api.resourceAttributes.create('doc', { key: 'pages', type: 'number' });
    expect(attribute).toMatchObject({ key: 'pages', type: 'number', resource_key: 'doc', built_in: false });
    expect((await permit.api.resourceAttributes.update('doc', 'pages', { type: 'string' })).type).toBe('string');
    expect((await permit.api.resourceAttributes.get('doc', attribute.id)).key).toBe('pages');
    expect((await permit.api.resourceAttributes.list({ resourceKey: 'doc' })).map((a) => a.key)).toEqual(['pages']);
    await permit.api.resourceAttributes.delete('doc', 'pages');
    expect(await permit.api.resourceAttributes.list({ resourceKey: 'doc' })).toEqual([]);

    const group = await permit.api.actionGroups.create('doc', { key: 'keep', name: 'Keep', actions: ['archive', 'print'] });
    expect(group).toMatchObject({ key: 'keep', actions: ['archive', 'print'] });
    expect((await permit.api.actionGroups.update('doc', 'keep', { name: 'Keepers' })).name).toBe('Keepers');
    expect((await permit.api.actionGroups.list({ resourceKey: 'doc' })).map((g) => g.key)).toEqual(['keep']);

    await permit.api.resourceRoles.create('doc', { key: 'archivist', name: 'Archivist', permissions: ['read', 'archive'] });
    await permit.api.tenants.create({ key: 'acme', name: 'Acme' });
    await permit.api.resourceInstances.create({ key: 'd1', resource: 'doc', tenant: 'acme' });
    await permit.api.roleAssignments.assign({ user: 'ann', role: 'archivist', resource_instance: 'doc:d1' });
    expect(await permit.check('ann', 'archive', 'doc:d1')).toBe(true);

    await permit.api.resourceActions.delete('doc', 'archive');
    expect((await permit.api.resourceRoles.get('doc', 'archivist')).permissions).toEqual(['read']);
    expect((await permit.api.actionGroups.get('doc', 'keep')).actions).toEqual(['print']);
    expect(await permit.check('ann', 'archive', 'doc:d1')).toBe(false);
    expect(await permit.check('ann', 'read', 'doc:d1')).toBe(true);
    await expect(permit.api.resourceActions.get('doc', 'archive')).rejects.toThrow(/archive/);

    await permit.api.actionGroups.delete('doc', 'keep');
    expect(await permit.api.actionGroups.list({ resourceKey: 'doc' })).toEqual([]);
    await permit.api.resourceRelations.delete('doc', 'parent');
    // Relations are always listed as a page (Permit's PaginatedResultRelationRead), whatever the Node SDK's type says.
    expect(await permit.api.resourceRelations.list({ resourceKey: 'doc' })).toMatchObject({ data: [], total_count: 0 });
  });

  it('refuses an attribute type Permit does not define', async () => {
    await expect(permit.api.resourceAttributes.create('doc', { key: 'when', type: 'date' as never })).rejects.toThrow();
    await expect(
      permit.api.resources.create({ key: 'bad', name: 'Bad', actions: {}, attributes: { a: { type: 'float' as never } } }),
    ).rejects.toThrow();
  });
});
