import { Permit } from 'permitio';
import { FACTS, loadFolderFileExample, startTestServer, type ApiClient, type TestServer } from '../support/embedded-server';

/**
 * The bulk facts endpoints: tuples, role assignments, resource instances. Each
 * request is all or nothing, and a refused one names the item and appends nothing.
 */
describe('bulk facts endpoints', () => {
  let server: TestServer;
  let api: ApiClient;
  const head = () => server.service.eventStore.headPosition();

  beforeAll(async () => {
    server = await startTestServer();
    api = await server.api.environmentClient();
    await loadFolderFileExample(api);
  });
  afterAll(() => server.close());

  const files = (prefix: string, n: number) =>
    Array.from({ length: n }, (_, i) => ({ key: `${prefix}${i}`, resource: 'file', tenant: 'acme' }));
  const allowed = async (user: string, action: string, file: string) =>
    (await api.post('/allowed', { user: { key: user }, action, resource: { type: 'file', key: file, tenant: 'acme' } })).body
      .allow as boolean;

  it('creates instances, tuples and assignments in bulk, visible to reads and checks when the write answers', async () => {
    const instances = await api.request('PUT', `${FACTS}/bulk/resource_instances`, { operations: files('b', 50) });
    expect(instances.status).toBe(200);
    expect(instances.body).toEqual({ instances_created: 50 });
    expect(Number(instances.headers.get('x-event-position'))).toBe(await head());

    const tuples = await api.post(`${FACTS}/relationship_tuples/bulk`, {
      operations: files('b', 50).map((f) => ({ subject: 'folder:docs', relation: 'parent', object: `file:${f.key}` })),
    });
    expect(tuples.status).toBe(200);
    expect(tuples.body).toEqual({ tuples_created: 50 });
    const listed = await api.get(`${FACTS}/relationship_tuples?subject=folder:docs&per_page=100`);
    expect(listed.body).toHaveLength(51);
    // alice is editor on folder:docs (the example): derived onto every new file.
    expect(await allowed('alice', 'write', 'b49')).toBe(true);

    const assigned = await api.post(`${FACTS}/role_assignments/bulk`, [
      { user: 'carol', role: 'viewer', resource_instance: 'file:b1' },
      { user: 'carol', role: 'editor', resource_instance: 'file:b2' },
      { user: 'dave', role: 'viewer', resource_instance: 'folder:docs', tenant: 'acme' },
    ]);
    expect(assigned.status).toBe(200);
    expect(assigned.body).toEqual({ assignments_created: 3 });
    expect((await api.get(`${FACTS}/users/carol`)).status).toBe(200);
    expect(await allowed('carol', 'write', 'b2')).toBe(true);
    expect(await allowed('carol', 'write', 'b1')).toBe(false);
    expect(await allowed('dave', 'read', 'b7')).toBe(true);

    const removed = await api.delete(`${FACTS}/role_assignments/bulk`, [
      { user: 'carol', role: 'editor', resource_instance: 'file:b2' },
      { user: 'dave', role: 'viewer', resource_instance: 'folder:docs' },
    ]);
    expect(removed.body).toEqual({ assignments_removed: 2 });
    expect(await allowed('carol', 'write', 'b2')).toBe(false);
    expect(await allowed('dave', 'read', 'b7')).toBe(false);

    const untied = await api.delete(`${FACTS}/relationship_tuples/bulk`, {
      idents: [{ subject: 'folder:docs', relation: 'parent', object: 'file:b49' }],
    });
    expect(untied.body).toEqual({ tuples_deleted: 1 });
    expect(await allowed('alice', 'write', 'b49')).toBe(false);

    const deleted = await api.delete(`${FACTS}/bulk/resource_instances`, { idents: ['file:b0', 'file:b1'] });
    expect(deleted.body).toEqual({ instances_deleted: 2 });
    expect((await api.get(`${FACTS}/resource_instances/file:b0`)).status).toBe(404);
    // The cascade took the tuple and carol's assignment on b1 with them.
    expect((await api.get(`${FACTS}/relationship_tuples?object=file:b0`)).body).toEqual([]);
    expect((await api.get(`${FACTS}/role_assignments?user=carol`)).body).toEqual([]);
  });

  it('refuses a bulk with a malformed item with 422 naming its index, appending nothing', async () => {
    const before = await head();
    const refused = await api.post(`${FACTS}/relationship_tuples/bulk`, {
      operations: [
        { subject: 'folder:docs', relation: 'parent', object: 'file:readme' },
        { subject: 'folder:docs', relation: '', object: 'file:x' },
      ],
    });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'operations', 1, 'relation'] })]);
    const bare = await api.post(`${FACTS}/role_assignments/bulk`, [{ user: 'u', role: 'viewer', tenant: 'acme' }, { role: 'viewer' }]);
    expect(bare.status).toBe(422);
    expect(bare.body.detail[0].loc).toEqual(['body', 1, 'user']);
    expect(await head()).toBe(before);
  });

  it('refuses a bulk when the domain refuses one item, with that item status and index, appending nothing', async () => {
    await api.post(`${FACTS}/resource_instances`, { key: 'dup', resource: 'file', tenant: 'acme' });
    const before = await head();
    const missing = await api.request('PUT', `${FACTS}/bulk/resource_instances`, {
      operations: [
        { key: 'ok1', resource: 'file', tenant: 'acme' },
        { key: 'ok2', resource: 'file', tenant: 'acme' },
        { key: 'bad', resource: 'file', tenant: 'nowhere' },
      ],
    });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({
      error_code: 'NOT_FOUND',
      message: "Item 2: Tenant 'nowhere' not found",
      additional_info: { index: 2 },
    });

    const duplicate = await api.post(`${FACTS}/relationship_tuples/bulk`, {
      operations: [
        { subject: 'folder:docs', relation: 'parent', object: 'file:dup' },
        { subject: 'folder:docs', relation: 'parent', object: 'file:dup' },
      ],
    });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.message).toMatch(/^Item 1: /);

    const absent = await api.delete(`${FACTS}/role_assignments/bulk`, [
      { user: 'nobody', role: 'viewer', resource_instance: 'file:readme' },
    ]);
    expect(absent.status).toBe(404);
    expect(absent.body.message).toMatch(/^Item 0: User 'nobody' has no role 'viewer'/);

    expect(await head()).toBe(before);
    expect((await api.get(`${FACTS}/resource_instances/file:ok1`)).status).toBe(404);
  });

  it(`refuses more than 10,000 items with 422, and accepts an empty list`, async () => {
    const before = await head();
    const idents = Array.from({ length: 10_001 }, (_, i) => `file:x${i}`);
    const tooMany = await api.delete(`${FACTS}/bulk/resource_instances`, { idents });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.detail[0].loc).toEqual(['body', 'idents']);
    expect(await head()).toBe(before);

    const empty = await api.post(`${FACTS}/role_assignments/bulk`, []);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ assignments_created: 0 });
    expect(await head()).toBe(before);
  });

  it('works through the official SDK (bulkRelationshipTuples, bulkAssign, bulkUnassign)', async () => {
    const permit = new Permit({ token: api.key, apiUrl: server.url, pdp: server.url, log: { level: 'error' } });
    await api.request('PUT', `${FACTS}/bulk/resource_instances`, { operations: files('sdk', 3) });
    await permit.api.relationshipTuples.bulkRelationshipTuples(
      files('sdk', 3).map((f) => ({ subject: 'folder:docs', relation: 'parent', object: `file:${f.key}` })),
    );
    const report = await permit.api.roleAssignments.bulkAssign([{ user: 'erin', role: 'viewer', resource_instance: 'folder:docs' }]);
    expect(report).toEqual({ assignments_created: 1 });
    expect(await permit.check('erin', 'read', { type: 'file', key: 'sdk2', tenant: 'acme' })).toBe(true);
    expect(await permit.api.roleAssignments.bulkUnassign([{ user: 'erin', role: 'viewer', resource_instance: 'folder:docs' }])).toEqual({
      assignments_removed: 1,
    });
    expect(await permit.check('erin', 'read', { type: 'file', key: 'sdk2', tenant: 'acme' })).toBe(false);
  });
});
