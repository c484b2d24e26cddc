import type { ApiClient, TestServer } from '../../support/embedded-server';
import { documentSchema, Scenario } from '../../grants/support/scenario';

/**
 * `as_of` on the list and get reads of the facts and schema APIs: the answer
 * as of a past log position (or time) is exactly the answer the same request
 * got when the log was there — same documents, same order, same shape —
 * through deletes, cascades and rule and permission changes.
 */
export function asOfReadSuite(title: string, start: () => Promise<TestServer>): void {
  describe(title, () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await start();
    });
    afterAll(() => server.close());

    /** The read models' position now (writes answer once the read models reflect them). */
    const position = () => server.service.runner.position;

    it('answers every list and get as the current read did at that position, through deletes, cascades and rule changes', async () => {
      const s = await Scenario.create(server, 'reads-1');
      await documentSchema(s);
      await s.tenantRole('auditor', ['document:read']);
      await s.instance('account:a', 'acme');
      await s.instance('folder:top', 'acme');
      await s.instance('folder:sub', 'acme');
      await s.instance('document:d', 'acme');
      await s.instance('document:g', 'globex');
      await s.tuple('account:a', 'account', 'folder:top');
      await s.tuple('folder:top', 'parent', 'folder:sub');
      await s.tuple('folder:sub', 'parent', 'document:d');
      await s.assign('alice', 'admin', 'account:a');
      await s.assign('bob', 'viewer', 'folder:sub');
      await s.assignTenantRole('carol', 'auditor', 'acme');
      const moments: Array<{ at: number; view: Snapshot }> = [{ at: position(), view: await snapshot(s.api, s) }];
      const remember = async () => moments.push({ at: position(), view: await snapshot(s.api, s) });

      // A cascade: the instance takes its tuples and assignments with it.
      await s.ok(s.api.delete(`${s.facts}/resource_instances/folder:sub`));
      await remember();
      // A rule change and a permission change (new versions of one role document).
      await s.ok(
        s.api.patch(`${s.schema}/resources/document/roles/editor`, {
          permissions: ['read'],
          granted_to: { users_with_role: [] },
        }),
      );
      await s.tenantRole('reader', ['document:read']);
      await s.assignTenantRole('carol', 'reader', 'acme');
      await remember();
      // Larger cascades: a tenant (its instances and assignments) and a resource type (its roles, relations, instances…).
      await s.ok(s.api.delete(`${s.facts}/tenants/globex`));
      await s.ok(s.api.delete(`${s.schema}/resources/account`));
      await s.ok(s.api.delete(`${s.schema}/roles/auditor`));
      await remember();
      // The same keys created again: a new object, not the old one.
      await s.resource('account', ['read']);
      await s.instance('folder:sub', 'acme');
      await remember();

      for (const { at, view } of moments) expect({ at, view: await snapshot(s.api, s, at) }).toEqual({ at, view });
      expect(moments.map((m) => m.view.instances.length)).toEqual([5, 4, 4, 2, 3]);
    });

    it('says the position it answers as of, and resolves a time to the environment as it was then', async () => {
      const s = await Scenario.create(server, 'reads-2');
      await s.tenant('t1');
      await pause();
      const between = new Date().toISOString();
      const at = position();
      await pause();
      await s.tenant('t2');
      await s.ok(s.api.delete(`${s.facts}/tenants/t1`));

      const byPosition = await s.api.get(`${s.facts}/tenants?as_of=${at}`);
      expect(byPosition.status).toBe(200);
      expect(byPosition.headers.get('x-event-position')).toBe(String(at));
      // (`default`: the tenant every environment has from its creation; the engines list in orders of their own)
      expect(byPosition.body.map((t: { key: string }) => t.key).sort()).toEqual(['default', 't1']);

      const byTime = await s.api.get(`${s.facts}/tenants?as_of=${encodeURIComponent(between)}`);
      expect(byTime.status).toBe(200);
      expect(byTime.body).toEqual(byPosition.body);
      expect(Number(byTime.headers.get('x-event-position'))).toBeGreaterThanOrEqual(at);
      expect(Number(byTime.headers.get('x-event-position'))).toBeLessThan(position());
      expect((await s.api.get(`${s.facts}/tenants/t1?as_of=${encodeURIComponent(between)}`)).body.key).toBe('t1');
      expect((await s.api.get(`${s.facts}/tenants/t1`)).status).toBe(404);
      expect((await s.api.get(`${s.facts}/tenants/t2?as_of=${at}`)).status).toBe(404);
      // The current answer carries no position header (only `as_of` reads and checks do).
      expect((await s.api.get(`${s.facts}/tenants`)).headers.get('x-event-position')).toBeNull();
    });

    it('refuses an as_of beyond the log (422), in the future (422) or malformed (422); before the environment existed it is not found (404)', async () => {
      const before = position();
      const beforeTime = new Date(Date.now() - 60_000).toISOString();
      const s = await Scenario.create(server, 'reads-3');
      const created = position();
      await s.tenant('t1');

      const beyond = await s.api.get(`${s.facts}/tenants?as_of=${position() + 1000}`);
      expect(beyond.status).toBe(422);
      expect(beyond.body.detail[0].loc).toEqual(['query', 'as_of']);
      expect(beyond.body.detail[0].msg).toMatch(/the log only reaches position \d+/);
      const future = await s.api.get(`${s.facts}/tenants?as_of=${encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())}`);
      expect(future.status).toBe(422);
      expect(future.body.detail[0].msg).toMatch(/in the future/);
      for (const bad of ['yesterday', '-1', '1.5']) expect((await s.api.get(`${s.facts}/tenants?as_of=${bad}`)).status).toBe(422);

      const early = await s.api.get(`${s.facts}/tenants?as_of=${before}`);
      expect(early.status).toBe(404);
      expect(early.body.message).toMatch(/did not exist yet at log position/);
      expect((await s.api.get(`${s.schema}/resources?as_of=${encodeURIComponent(beforeTime)}`)).status).toBe(404);
      // Created, with nothing but the `default` tenant it is created with.
      const empty = await s.api.get(`${s.facts}/tenants?as_of=${created}&include_total_count=true`);
      expect(empty.status).toBe(200);
      expect(empty.body).toMatchObject({ data: [{ key: 'default' }], total_count: 1, page_count: 1 });
    });
  });

  interface Snapshot {
    resources: unknown[];
    topLevelRoles: unknown[];
    tenants: unknown[];
    users: unknown;
    instances: unknown[];
    [read: string]: unknown;
  }

  /** Every list (with its filters and pages) and every get, exactly as answered (order included), optionally as of a position. */
  async function snapshot(api: ApiClient, s: Scenario, asOf?: number): Promise<Snapshot> {
    const get = async (path: string) => {
      const url = asOf === undefined ? path : `${path}${path.includes('?') ? '&' : '?'}as_of=${asOf}`;
      const r = await api.get(url);
      if (r.status !== 200 && r.status !== 404) throw new Error(`GET ${url}: ${r.status} ${JSON.stringify(r.body)}`);
      return r.status === 404 ? { status: 404 } : r.body;
    };
    const view: Snapshot = {
      resources: (await get(`${s.schema}/resources`)) as unknown[],
      topLevelRoles: (await get(`${s.schema}/roles`)) as unknown[],
      tenants: (await get(`${s.facts}/tenants`)) as unknown[],
      users: await get(`${s.facts}/users?per_page=2&page=1`),
      usersPage2: await get(`${s.facts}/users?per_page=2&page=2`),
      instances: (await get(`${s.facts}/resource_instances`)) as unknown[],
      instancesOfAcme: await get(`${s.facts}/resource_instances?tenant=acme`),
      folders: await get(`${s.facts}/resource_instances?resource=folder&include_total_count=true`),
      assignments: await get(`${s.facts}/role_assignments`),
      assignmentsOfCarol: await get(`${s.facts}/role_assignments?user=carol`),
      tuples: await get(`${s.facts}/relationship_tuples?include_total_count=true`),
      tuplesIntoSub: await get(`${s.facts}/relationship_tuples?object=folder:sub`),
    };
    for (const resource of ['account', 'folder', 'document']) {
      view[`resource ${resource}`] = await get(`${s.schema}/resources/${resource}`);
      view[`roles of ${resource}`] = await get(`${s.schema}/resources/${resource}/roles`);
      view[`relations of ${resource}`] = await get(`${s.schema}/resources/${resource}/relations`);
      for (const role of ['admin', 'editor', 'viewer'])
        view[`role ${resource}#${role}`] = await get(`${s.schema}/resources/${resource}/roles/${role}`);
      view[`relation ${resource}#parent`] = await get(`${s.schema}/resources/${resource}/relations/parent`);
    }
    for (const role of ['auditor', 'reader']) view[`role ${role}`] = await get(`${s.schema}/roles/${role}`);
    for (const tenant of ['acme', 'globex']) view[`tenant ${tenant}`] = await get(`${s.facts}/tenants/${tenant}`);
    for (const user of ['alice', 'bob', 'carol']) view[`user ${user}`] = await get(`${s.facts}/users/${user}`);
    for (const instance of ['account:a', 'folder:top', 'folder:sub', 'document:d', 'document:g'])
      view[`instance ${instance}`] = await get(`${s.facts}/resource_instances/${instance}`);
    // By id too: every object listed, looked up by its id.
    for (const doc of [...view.resources, ...view.tenants, ...view.instances] as Array<{ id: string }>) {
      view[`by id ${doc.id}`] = await get(
        view.instances.includes(doc)
          ? `${s.facts}/resource_instances/${doc.id}`
          : view.tenants.includes(doc)
            ? `${s.facts}/tenants/${doc.id}`
            : `${s.schema}/resources/${doc.id}`,
      );
    }
    return view;
  }

  const pause = () => new Promise((r) => setTimeout(r, 15));
}
