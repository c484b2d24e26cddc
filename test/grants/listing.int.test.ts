import { startTestServer, type TestServer } from '../support/embedded-server';
import { documentSchema, Scenario } from './support/scenario';

/** Follows next_cursor until it is null; returns every page's body. */
async function allPages(s: Scenario, path: string, body: Record<string, unknown>): Promise<any[]> {
  const pages = [];
  let cursor: string | undefined;
  for (let i = 0; i < 100; i++) {
    const r = await s.api.post(path, cursor === undefined ? body : { ...body, cursor });
    expect(r.status).toBe(200);
    pages.push(r.body);
    if (r.body.next_cursor === null) return pages;
    cursor = r.body.next_cursor;
  }
  throw new Error('pagination did not end');
}

describe('/user-permissions and /authorized_users', () => {
  let server: TestServer;
  let s: Scenario;
  const docs = Array.from({ length: 23 }, (_, i) => `document:doc${String(i).padStart(2, '0')}`);
  beforeAll(async () => {
    server = await startTestServer();
    s = await Scenario.create(server, 'listing');
    await documentSchema(s);
    await s.tenantRole('reader', ['document:read', 'folder:read']);
    await s.instance('folder:f', 'acme');
    for (const doc of docs) {
      await s.instance(doc, 'acme');
      await s.tuple('folder:f', 'parent', doc);
    }
    await s.instance('document:elsewhere', 'globex');
    await s.assign('alice', 'editor', 'folder:f');
    await s.assign('alice', 'viewer', docs[3]!);
    await s.assign('alice', 'viewer', 'document:elsewhere');
    await s.assignTenantRole('alice', 'reader', 'acme');
    // Who can read doc03: 12 users by folder viewer role, alice (editor+viewer), 3 tenant readers.
    for (let i = 0; i < 12; i++) await s.assign(`viewer${String(i).padStart(2, '0')}`, 'viewer', 'folder:f');
    for (const u of ['reader-a', 'reader-b', 'viewer05']) await s.assignTenantRole(u, 'reader', 'acme');
  });
  afterAll(() => server.close());

  it('lists every instance a user holds roles on, page by page, with the tenant roles first', async () => {
    const pages = await allPages(s, '/user-permissions', { user: { key: 'alice' }, limit: 10 });
    expect(pages).toHaveLength(3);
    const entries = Object.assign({}, ...pages.map((p) => p.result.permissions));
    expect(Object.keys(pages[0].result.permissions)).toContain('__tenant:acme');
    expect(Object.keys(pages[1].result.permissions)).not.toContain('__tenant:acme');
    expect(Object.keys(entries).sort()).toEqual(['__tenant:acme', ...docs, 'document:elsewhere', 'folder:f'].sort());
    // Every instance once, in order, never split between pages.
    const instances = pages.flatMap((p) => Object.keys(p.result.permissions).filter((k) => !k.startsWith('__tenant:')));
    expect(instances).toEqual([...docs, 'document:elsewhere', 'folder:f']);
    expect(entries['__tenant:acme']).toEqual({
      permissions: ['document:read', 'folder:read'],
      roles: ['reader'],
      tenant: { key: 'acme', attributes: {} },
    });
    expect(entries[docs[3]!]).toEqual({
      permissions: ['document:read', 'document:write'],
      roles: ['editor', 'viewer'],
      resource: { type: 'document', key: 'doc03', attributes: {} },
    });
    expect(entries['folder:f'].permissions).toEqual(['folder:read', 'folder:write']);
  });

  it('filters by tenant, resource type and listed resources', async () => {
    const byTenant = await s.api.post('/user-permissions', { user: 'alice', tenants: ['globex'] });
    expect(Object.keys(byTenant.body.result.permissions)).toEqual(['document:elsewhere']);
    // Permit's Python SDK sends null for each filter it was not given: null is no filter.
    const withNulls = await s.api.post('/user-permissions', { user: 'alice', tenants: ['globex'], resources: null, resource_types: null });
    expect(withNulls.body).toEqual(byTenant.body);
    const byType = await s.api.post('/user-permissions', { user: 'alice', resource_types: ['folder'] });
    expect(byType.body.result.permissions).toEqual({
      '__tenant:acme': { permissions: ['folder:read'], roles: ['reader'], tenant: { key: 'acme', attributes: {} } },
      'folder:f': expect.objectContaining({ roles: ['editor'] }),
    });
    const listed = await allPages(s, '/user-permissions', {
      user: 'alice',
      resources: [docs[5], docs[1], 'document:nope', docs[9]],
      limit: 2,
    });
    expect(listed.flatMap((p) => Object.keys(p.result.permissions).filter((k) => !k.startsWith('__')))).toEqual([
      docs[1],
      docs[5],
      docs[9],
    ]);
  });

  it("pages a user's instances in byte order whatever their keys, every instance once with all its roles", async () => {
    // Keys that sort differently by other rules ('-' and '_' around the digits and letters, one key the
    // prefix of another) and two roles on some instances: pages are read as ranges of grant ids.
    const keys = ['k', 'k-', 'k-1', 'k0', 'kA', 'k_', 'ka', 'k_a', 'K'];
    for (const key of keys) {
      await s.instance(`folder:${key}`, 'acme');
      await s.assign('carol', 'viewer', `folder:${key}`);
    }
    for (const key of ['k', 'k0', 'k_a']) await s.assign('carol', 'editor', `folder:${key}`);
    for (const limit of [1, 2, 4, 100]) {
      const pages = await allPages(s, '/user-permissions', { user: 'carol', limit });
      const instances = pages.flatMap((p) => Object.keys(p.result.permissions));
      expect(instances).toEqual(keys.map((k) => `folder:${k}`).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
      const entries = Object.assign({}, ...pages.map((p) => p.result.permissions));
      for (const key of keys)
        expect(entries[`folder:${key}`].roles).toEqual(['k', 'k0', 'k_a'].includes(key) ? ['editor', 'viewer'] : ['viewer']);
    }
    const narrowed = await allPages(s, '/user-permissions', { user: 'carol', limit: 2, resource_types: ['document'] });
    expect(narrowed.flatMap((p) => Object.keys(p.result.permissions))).toEqual([]);
  });

  it('refuses a malformed cursor or one from another query', async () => {
    const first = await s.api.post('/user-permissions', { user: 'alice', limit: 5 });
    expect(first.body.next_cursor).toEqual(expect.any(String));
    expect((await s.api.post('/user-permissions', { user: 'alice', limit: 5, cursor: 'garbage' })).status).toBe(422);
    expect((await s.api.post('/user-permissions', { user: 'bob', limit: 5, cursor: first.body.next_cursor })).status).toBe(422);
    expect((await s.api.post('/user-permissions', { user: 'alice', limit: 7, cursor: first.body.next_cursor })).status).toBe(200);
  });

  it('lists who may do an action on an instance, through any kind of role, page by page', async () => {
    const pages = await allPages(s, '/authorized_users', {
      action: 'read',
      resource: { type: 'document', key: 'doc03', tenant: 'default' },
      limit: 4,
    });
    expect(pages.length).toBeGreaterThanOrEqual(4);
    for (const page of pages) expect(Object.keys(page.users).length).toBeLessThanOrEqual(4);
    const users = Object.assign({}, ...pages.map((p) => p.users));
    const keys = pages.flatMap((p) => Object.keys(p.users));
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.sort()).toEqual(
      ['alice', 'reader-a', 'reader-b', ...Array.from({ length: 12 }, (_, i) => `viewer${String(i).padStart(2, '0')}`)].sort(),
    );
    expect(pages[0]).toMatchObject({ resource: 'document:doc03', tenant: 'acme' });
    // As Permit's PDP names them: the assignments behind the grants, `<type>#<role>` on their own instance (alice's
    // editor role on the document derives from her folder assignment), and a tenant role as it is.
    expect(users.alice).toEqual([
      { user: 'alice', tenant: 'acme', resource: 'document:doc03', role: 'document#viewer' },
      { user: 'alice', tenant: 'acme', resource: 'folder:f', role: 'folder#editor' },
      { user: 'alice', tenant: 'acme', resource: '__tenant:acme', role: 'reader' },
    ]);
    expect(users.viewer05).toHaveLength(2);
    expect(users['reader-a']).toEqual([{ user: 'reader-a', tenant: 'acme', resource: '__tenant:acme', role: 'reader' }]);
  });

  it('lists only the roles that permit the action', async () => {
    const r = await s.api.post('/authorized_users', { action: 'write', resource: `${docs[3]}` });
    // Permit's PDP answers AuthorizedUsersResult itself (the Python SDK parses the body as one); `next_cursor` is ours.
    expect(r.body).toEqual({
      resource: 'document:doc03',
      tenant: 'acme',
      users: { alice: [{ user: 'alice', tenant: 'acme', resource: 'folder:f', role: 'folder#editor' }] },
      next_cursor: null,
    });
    const typeLevel = await s.api.post('/authorized_users', { action: 'read', resource: { type: 'document', tenant: 'acme' } });
    expect(typeLevel.body.resource).toBe('document:*');
    expect(Object.keys(typeLevel.body.users).sort()).toEqual(['alice', 'reader-a', 'reader-b', 'viewer05']);
  });
});
