import { FACTS, SCHEMA, loadFolderFileExample, startTestServer, type ApiClient, type TestServer } from '../support/embedded-server';

/** Tenants' and instances' updates, tenant users, list filters (repeated, search, resource), detailed reads, implicit instances. */
describe('facts: tenants, instances, filters and detailed reads', () => {
  let server: TestServer;
  let api: ApiClient;
  beforeAll(async () => {
    server = await startTestServer();
    api = await server.api.environmentClient();
    await loadFolderFileExample(api);
    await api.post(`${SCHEMA}/roles`, { key: 'member', name: 'Member', permissions: ['folder:read'] });
    await api.post(`${FACTS}/tenants`, { key: 'globex', name: 'Globex Corp' });
  });
  afterAll(() => server.close());

  const sorted = (items: Array<Record<string, unknown>>, field = 'key') => items.map((i) => i[field] as string).sort();

  it('PATCH changes a tenant’s fields given; search finds tenants by key or name', async () => {
    const patched = await api.patch(`${FACTS}/tenants/globex`, { description: 'The other one', attributes: { tier: 'gold' } });
    expect(patched.status).toBe(200);
    // The version before the update is kept (as_of reads).
    const before = Number(patched.headers.get('x-event-position')) - 1;
    expect((await api.get(`${FACTS}/tenants/globex?as_of=${before}`)).body).toMatchObject({ description: null, attributes: {} });
    expect(patched.body).toMatchObject({ key: 'globex', name: 'Globex Corp', description: 'The other one', attributes: { tier: 'gold' } });
    expect((await api.patch(`${FACTS}/tenants/nowhere`, { name: 'x' })).status).toBe(404);
    expect(sorted((await api.get(`${FACTS}/tenants?search=CORP`)).body)).toEqual(['globex']);
    expect(sorted((await api.get(`${FACTS}/tenants?search=ac`)).body)).toEqual(['acme']);
  });

  it('lists a tenant’s users (paged) and removes a user from a tenant, unassigning every role there', async () => {
    await api.post(`${FACTS}/role_assignments`, { user: 'tina', role: 'member', tenant: 'acme' });
    await api.post(`${FACTS}/role_assignments`, { user: 'tina', role: 'viewer', resource_instance: 'file:readme' });
    await api.post(`${FACTS}/role_assignments`, { user: 'tina', role: 'member', tenant: 'globex' });
    const users = (await api.get(`${FACTS}/tenants/acme/users`)).body;
    expect(users).toMatchObject({ total_count: 2, page_count: 1 });
    expect(sorted(users.data)).toEqual(['alice', 'tina']);
    expect(sorted((await api.get(`${FACTS}/tenants/acme/users?role=member`)).body.data)).toEqual(['tina']);
    expect(sorted((await api.get(`${FACTS}/tenants/acme/users?search=ali`)).body.data)).toEqual(['alice']);
    expect((await api.get(`${FACTS}/tenants/nowhere/users`)).status).toBe(404);

    expect((await api.delete(`${FACTS}/tenants/acme/users/tina`)).status).toBe(204);
    const left = (await api.get(`${FACTS}/role_assignments?user=tina`)).body;
    expect(left.map((a: { tenant: string }) => a.tenant)).toEqual(['globex']);
    expect(
      (await api.post('/allowed', { user: { key: 'tina' }, action: 'read', resource: { type: 'file', key: 'readme', tenant: 'acme' } }))
        .body.allow,
    ).toBe(false);
    expect((await api.delete(`${FACTS}/tenants/acme/users/tina`)).status).toBe(404);
  });

  it('the last page a list takes answers empty, now and as of a position; one past it is a 422 naming page', async () => {
    const lastPage = Math.floor(Number.MAX_SAFE_INTEGER / 100);
    const written = await api.patch(`${FACTS}/tenants/acme`, { description: 'paged' });
    const position = Number(written.headers.get('x-event-position'));
    expect(position).toBeGreaterThan(0);
    for (const asOf of ['', `&as_of=${position}`]) {
      const last = await api.get(`${FACTS}/resource_instances?tenant=acme&per_page=100&page=${lastPage}${asOf}`);
      expect(last.status).toBe(200);
      expect(last.body).toEqual([]);
      const past = await api.get(`${FACTS}/resource_instances?tenant=acme&page=${lastPage + 1}${asOf}`);
      expect(past.status).toBe(422);
      expect(past.body.detail).toEqual([expect.objectContaining({ loc: ['query', 'page'], msg: `must be at most ${lastPage}` })]);
    }
    expect((await api.get(`/v2/api-key?page=${lastPage + 1}`)).status).toBe(422);
  });

  it('bulk creates and deletes tenants, all or none', async () => {
    const created = await api.post(`${FACTS}/bulk/tenants`, {
      operations: [
        { key: 't1', name: 'T1' },
        { key: 't2', name: 'T2' },
      ],
    });
    expect(created.body).toEqual({ tenants_created: 2 });
    expect(
      (
        await api.post(`${FACTS}/bulk/tenants`, {
          operations: [
            { key: 't3', name: 'T3' },
            { key: 't1', name: 'again' },
          ],
        })
      ).status,
    ).toBe(409);
    expect((await api.get(`${FACTS}/tenants/t3`)).status).toBe(404);
    expect((await api.post(`${FACTS}/bulk/tenants`, { operations: [{ key: 't4', name: 'T4', color: 'red' }] })).status).toBe(422);
    expect((await api.delete(`${FACTS}/bulk/tenants`, { idents: ['t1', 't2'] })).body).toEqual({ tenants_deleted: 2 });
    expect((await api.get(`${FACTS}/tenants/t1`)).status).toBe(404);
  });

  it('PATCH replaces an instance’s attributes; search and repeated filters list instances', async () => {
    const patched = await api.patch(`${FACTS}/resource_instances/file:readme`, { attributes: { secret: true } });
    expect(patched.status).toBe(200);
    const before = Number(patched.headers.get('x-event-position')) - 1;
    expect((await api.get(`${FACTS}/resource_instances/file:readme?as_of=${before}`)).body.attributes).toEqual({});
    // No attributes: nothing changes, nothing is appended.
    expect((await api.patch(`${FACTS}/resource_instances/file:readme`, {})).body.attributes).toEqual({ secret: true });
    expect(patched.body).toMatchObject({ key: 'readme', attributes: { secret: true } });
    expect((await api.get(`${FACTS}/resource_instances/file:readme`)).body.attributes).toEqual({ secret: true });
    expect((await api.patch(`${FACTS}/resource_instances/file:none`, { attributes: {} })).status).toBe(404);

    await api.post(`${FACTS}/resource_instances`, { key: 'report', resource: 'file', tenant: 'globex' });
    expect(sorted((await api.get(`${FACTS}/resource_instances?resource=file&resource=folder&tenant=acme`)).body)).toEqual([
      'docs',
      'readme',
    ]);
    expect(sorted((await api.get(`${FACTS}/resource_instances?tenant=acme&tenant=globex&resource=file`)).body)).toEqual([
      'readme',
      'report',
    ]);
    expect(sorted((await api.get(`${FACTS}/resource_instances?search=RE`)).body)).toEqual(['readme', 'report']);
    const detailed = (await api.get(`${FACTS}/resource_instances?search=docs&detailed=true`)).body;
    expect(detailed).toHaveLength(1);
    expect(detailed[0].relationships.map((t: { object: string }) => t.object)).toEqual(['file:readme']);
    expect((await api.get(`${FACTS}/resource_instances/detailed?search=docs`)).body).toEqual(detailed);
  });

  it('filters role assignments by any of several values and by resource type; detailed embeds the objects', async () => {
    await api.post(`${FACTS}/role_assignments`, { user: 'rita', role: 'viewer', resource_instance: 'folder:docs' });
    await api.post(`${FACTS}/role_assignments`, { user: 'rita', role: 'member', tenant: 'acme' });
    await api.post(`${FACTS}/role_assignments`, { user: 'sid', role: 'editor', resource_instance: 'file:report' });
    const users = async (query: string) => sorted((await api.get(`${FACTS}/role_assignments?${query}`)).body, 'user');
    expect(await users('user=rita&user=sid')).toEqual(['rita', 'rita', 'sid']);
    expect(await users('resource=file')).toEqual(['sid']);
    expect(await users('resource=folder&resource=file')).toEqual(['alice', 'rita', 'sid']);
    expect(await users('resource=folder&resource_instance=file:report')).toEqual([]);
    expect(await users('role=member&role=editor&user=rita')).toEqual(['rita']);
    // Ids work as keys do.
    const rita = (await api.get(`${FACTS}/users/rita`)).body.id as string;
    const docs = (await api.get(`${FACTS}/resource_instances/folder:docs`)).body.id as string;
    expect(await users(`user=${rita}&resource_instance=${docs}`)).toEqual(['rita']);
    expect(await users(`resource_instance=${docs}&resource_instance=file:report`)).toEqual(['alice', 'rita', 'sid']);

    const detailed = (await api.get(`${FACTS}/role_assignments?user=rita&detailed=true&include_total_count=true`)).body;
    expect(detailed.total_count).toBe(2);
    const onDocs = detailed.data.find((a: { resource_instance?: unknown }) => a.resource_instance);
    expect(onDocs).toMatchObject({
      user: { key: 'rita' },
      role: { key: 'viewer', name: 'Viewer', permissions: ['read'] },
      tenant: { key: 'acme', name: 'Acme' },
      resource_instance: { key: 'docs', resource: 'folder' },
    });
    const viaPath = (await api.get(`${FACTS}/role_assignments/detailed?user=rita&role=member`)).body;
    expect(viaPath).toHaveLength(1);
    expect(viaPath[0]).toMatchObject({ role: { key: 'member', name: 'Member' }, tenant: { key: 'acme' } });
    expect(viaPath[0].resource_instance).toBeUndefined();
  });

  it('filters tuples by repeated values and types; detailed adds subject, relation, object and tenant details', async () => {
    await api.post(`${FACTS}/resource_instances`, { key: 'archive', resource: 'folder', tenant: 'globex' });
    await api.post(`${FACTS}/relationship_tuples`, { subject: 'folder:archive', relation: 'parent', object: 'file:report' });
    const objects = async (query: string) => sorted((await api.get(`${FACTS}/relationship_tuples?${query}`)).body, 'object');
    expect(await objects('subject=folder:docs&subject=folder:archive')).toEqual(['file:readme', 'file:report']);
    expect(await objects('tenant=globex')).toEqual(['file:report']);
    expect(await objects('object_type=file&subject_type=folder')).toEqual(['file:readme', 'file:report']);
    expect(await objects('object_type=folder')).toEqual([]);
    const archive = (await api.get(`${FACTS}/resource_instances/folder:archive`)).body.id as string;
    expect(await objects(`subject=${archive}`)).toEqual(['file:report']);
    const detailed = (await api.get(`${FACTS}/relationship_tuples/detailed?object=file:report`)).body;
    expect(detailed[0]).toMatchObject({
      subject_details: { key: 'archive', resource: 'folder', tenant: 'globex' },
      relation_details: { key: 'parent', name: 'Parent' },
      object_details: { key: 'report', resource: 'file' },
      tenant_details: { key: 'globex', name: 'Globex Corp' },
    });
    expect((await api.get(`${FACTS}/relationship_tuples?object=file:report&detailed=true`)).body).toEqual(detailed);
  });

  it('creates a missing instance in the named tenant for an assignment, a tuple and their bulk forms; without a tenant: 404', async () => {
    const assigned = await api.post(`${FACTS}/role_assignments`, {
      user: 'ivy',
      role: 'viewer',
      resource_instance: 'file:fresh',
      tenant: 'globex',
    });
    expect(assigned.status).toBe(200);
    expect((await api.get(`${FACTS}/resource_instances/file:fresh`)).body).toMatchObject({ tenant: 'globex', resource: 'file' });
    expect((await api.post(`${FACTS}/role_assignments`, { user: 'ivy', role: 'viewer', resource_instance: 'file:nope' })).status).toBe(404);
    expect((await api.get(`${FACTS}/resource_instances/file:nope`)).status).toBe(404);

    const tuple = await api.post(`${FACTS}/relationship_tuples`, {
      subject: 'folder:new',
      relation: 'parent',
      object: 'file:newer',
      tenant: 'globex',
    });
    expect(tuple.status).toBe(200);
    expect(tuple.body).toMatchObject({ subject: 'folder:new', object: 'file:newer', tenant: 'globex' });
    expect((await api.get(`${FACTS}/resource_instances/folder:new`)).body.tenant).toBe('globex');
    // The new folder's viewer sees the new file through the derivation.
    await api.post(`${FACTS}/role_assignments`, { user: 'ivy', role: 'viewer', resource_instance: 'folder:new' });
    const check = await api.post('/allowed', {
      user: { key: 'ivy' },
      action: 'read',
      resource: { type: 'file', key: 'newer', tenant: 'globex' },
    });
    expect(check.body.allow).toBe(true);

    // Without a tenant, a missing instance joins the existing one's tenant (Permit: the tenant is needed only when neither exists).
    const joined = await api.post(`${FACTS}/relationship_tuples`, { subject: 'folder:new', relation: 'parent', object: 'file:sibling' });
    expect(joined.status).toBe(200);
    expect((await api.get(`${FACTS}/resource_instances/file:sibling`)).body.tenant).toBe('globex');
    expect((await api.post(`${FACTS}/relationship_tuples`, { subject: 'folder:x1', relation: 'parent', object: 'file:x2' })).status).toBe(
      404,
    );

    const bulk = await api.post(`${FACTS}/relationship_tuples/bulk`, {
      operations: [{ subject: 'folder:b1', relation: 'parent', object: 'file:b2', tenant: 'acme' }],
    });
    expect(bulk.status).toBe(200);
    expect((await api.get(`${FACTS}/resource_instances/file:b2`)).body.tenant).toBe('acme');
    const bulkAssign = await api.post(`${FACTS}/role_assignments/bulk`, [
      { user: 'ivy', role: 'editor', resource_instance: 'file:b3', tenant: 'acme' },
      { user: 'ivy', role: 'editor', resource_instance: 'file:b4' },
    ]);
    expect(bulkAssign.status).toBe(404);
    expect((await api.get(`${FACTS}/resource_instances/file:b3`)).status).toBe(404);
    // An unknown resource type is not created.
    expect(
      (await api.post(`${FACTS}/role_assignments`, { user: 'ivy', role: 'viewer', resource_instance: 'disk:d', tenant: 'acme' })).status,
    ).toBe(404);
  });

  it('refuses filters it does not honour and malformed repeated ones', async () => {
    expect((await api.get(`${FACTS}/role_assignments?detailed=yes`)).status).toBe(422);
    expect((await api.get(`${FACTS}/resource_instances?search=`)).status).toBe(422);
  });
});
