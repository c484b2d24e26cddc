import type { TestServer } from '../../support/embedded-server';
import { documentSchema, Scenario } from '../../grants/support/scenario';

/**
 * `as_of` on the PDP endpoints, and decision receipts: every answer says the
 * position it was decided at, and the same question with that `as_of` (and
 * `explain`) answers it again later, exactly, whatever happened since —
 * deletes, cascades, rule and permission changes.
 */
export function asOfCheckSuite(title: string, start: () => Promise<TestServer>): void {
  describe(title, () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await start();
    });
    afterAll(() => server.close());

    const USERS = ['alice', 'bob', 'carol', 'dave'];
    const RESOURCES = ['account:a', 'folder:top', 'folder:sub', 'document:d', 'document:e', 'document'];
    const ACTIONS = ['read', 'write', 'manage'];

    /** Every answer of the PDP endpoints for the scenario's users and resources, as answered now, with its receipt. */
    async function answers(s: Scenario, asOf?: number) {
      const extra = asOf === undefined ? {} : { as_of: asOf };
      const checks = USERS.flatMap((user) =>
        RESOURCES.flatMap((resource) =>
          ACTIONS.map((action) => ({ user, action, resource: resource.includes(':') ? resource : { type: resource, tenant: 'acme' } })),
        ),
      );
      const out: Record<string, unknown> = {};
      const positions = new Set<string | null>();
      for (const check of checks) {
        const r = await s.api.post('/allowed', { ...check, ...extra });
        expect(r.status).toBe(200);
        positions.add(r.headers.get('x-event-position'));
        out[`${check.user} ${check.action} ${JSON.stringify(check.resource)}`] = r.body.allow;
      }
      const bulk = await s.api.post(`/allowed/bulk${asOf === undefined ? '' : `?as_of=${asOf}`}`, checks);
      positions.add(bulk.headers.get('x-event-position'));
      out.bulk = bulk.body;
      for (const user of USERS) {
        const r = await s.api.post('/user-permissions', { user: { key: user }, ...extra });
        positions.add(r.headers.get('x-event-position'));
        out[`permissions of ${user}`] = r.body;
        out[`permissions of ${user}, 1 a page`] = (await s.api.post('/user-permissions', { user, limit: 1, ...extra })).body;
      }
      for (const resource of RESOURCES)
        for (const action of ACTIONS) {
          const r = await s.api.post('/authorized_users', { action, resource, ...extra });
          positions.add(r.headers.get('x-event-position'));
          out[`who may ${action} ${resource}`] = r.body;
        }
      return { out, positions: [...positions] };
    }

    it('answers every check, bulk check, user-permissions and authorized-users page as it was answered then', async () => {
      const s = await Scenario.create(server, 'checks-1');
      await documentSchema(s);
      await s.tenantRole('reader', ['document:read']);
      await s.instance('account:a', 'acme');
      await s.instance('folder:top', 'acme');
      await s.instance('folder:sub', 'acme');
      await s.instance('document:d', 'acme');
      await s.instance('document:e', 'acme');
      await s.tuple('account:a', 'account', 'folder:top');
      await s.tuple('folder:top', 'parent', 'folder:sub');
      await s.tuple('folder:sub', 'parent', 'document:d');
      await s.tuple('folder:sub', 'parent', 'document:e');
      await s.assign('alice', 'admin', 'account:a');
      await s.assign('bob', 'viewer', 'folder:top');
      await s.assign('carol', 'editor', 'document:e');
      await s.assignTenantRole('dave', 'reader', 'acme');

      const moments: Array<{ position: number; answers: Record<string, unknown> }> = [];
      const remember = async () => {
        const { out, positions } = await answers(s);
        // Nothing was written meanwhile: every answer has the same receipt.
        expect(positions).toHaveLength(1);
        moments.push({ position: Number(positions[0]), answers: out });
      };
      await remember();
      // A tuple two hops up goes: alice loses the folder below and both documents.
      await s.untuple('folder:top', 'parent', 'folder:sub');
      await remember();
      await s.tuple('folder:top', 'parent', 'folder:sub');
      // A rule goes, a role's permissions change, a tenant role's too.
      await s.underive('document', 'viewer', 'folder', 'viewer', 'parent');
      await s.ok(s.api.patch(`${s.schema}/resources/document/roles/editor`, { permissions: ['read'] }));
      await s.ok(s.api.patch(`${s.schema}/roles/reader`, { permissions: ['document:read', 'document:write'] }));
      await remember();
      // Cascades: an instance with its tuples and assignments; a role with its assignments and the rules using it.
      await s.ok(s.api.delete(`${s.facts}/resource_instances/folder:sub`));
      await s.ok(s.api.delete(`${s.schema}/resources/account/roles/admin`));
      await remember();

      const distinct = new Set(moments.map((m) => JSON.stringify(m.answers)));
      expect(distinct.size).toBe(moments.length);
      for (const { position, answers: then } of moments) {
        const again = await answers(s, position);
        expect(again.positions).toEqual([String(position)]);
        expect({ position, answers: again.out }).toEqual({ position, answers: then });
      }
    });

    it('gives a receipt that re-derives the decision later with as_of and explain, chain included', async () => {
      const s = await Scenario.create(server, 'checks-2');
      await documentSchema(s);
      await s.instance('account:a', 'acme');
      await s.instance('folder:top', 'acme');
      await s.instance('document:d', 'acme');
      await s.tuple('account:a', 'account', 'folder:top');
      await s.tuple('folder:top', 'parent', 'document:d');
      await s.assign('alice', 'admin', 'account:a');

      const decided = await s.api.post('/allowed', { user: 'alice', action: 'write', resource: 'document:d', explain: true });
      const receipt = Number(decided.headers.get('x-event-position'));
      expect(decided.body.allow).toBe(true);
      expect(receipt).toBe(server.service.runner.position);
      const cached = await s.api.post('/allowed', { user: 'alice', action: 'write', resource: 'document:d' });
      expect(cached.headers.get('x-event-position')).toBe(String(receipt));

      // Everything that granted it goes.
      await s.ok(s.api.delete(`${s.facts}/resource_instances/folder:top`));
      expect(await s.allowed('alice', 'write', 'document:d')).toBe(false);

      const again = await s.api.post('/allowed', { user: 'alice', action: 'write', resource: 'document:d', explain: true, as_of: receipt });
      expect(again.status).toBe(200);
      expect(again.headers.get('x-event-position')).toBe(String(receipt));
      expect(again.body).toEqual(decided.body);
      expect(
        again.body.explanation.granted_by[0].chain.map((step: { step: string; resource_instance: string }) => step.resource_instance),
      ).toEqual(['account:a', 'folder:top', 'document:d']);
      // The query form, and a time.
      const byQuery = await s.api.post(`/allowed?as_of=${receipt}&explain=true`, {
        user: 'alice',
        action: 'write',
        resource: 'document:d',
      });
      expect(byQuery.body).toEqual(decided.body);
      const denied = await s.api.post('/allowed', { user: 'alice', action: 'write', resource: 'document:d', explain: true });
      expect(denied.body.explanation.decision).toBe('deny');
      const later = Number(denied.headers.get('x-event-position'));
      expect(later).toBeGreaterThan(receipt);
      expect(
        (await s.api.post('/allowed', { user: 'alice', action: 'write', resource: 'document:d', explain: true, as_of: later })).body,
      ).toEqual(denied.body);
    });

    it('continues a page of /user-permissions as of the first page’s receipt, whatever was written since', async () => {
      const s = await Scenario.create(server, 'checks-4');
      await documentSchema(s);
      for (const key of ['d1', 'd3', 'd5']) {
        await s.instance(`document:${key}`, 'acme');
        await s.assign('alice', 'viewer', `document:${key}`);
      }
      const first = await s.api.post('/user-permissions', { user: 'alice', limit: 1 });
      const receipt = Number(first.headers.get('x-event-position'));
      const secondThen = (await s.api.post('/user-permissions', { user: 'alice', limit: 1, cursor: first.body.next_cursor })).body;
      // A grant that would sort onto the second page now, and one that goes.
      await s.instance('document:d2', 'acme');
      await s.assign('alice', 'viewer', 'document:d2');
      await s.unassign('alice', 'viewer', 'document:d3');
      const secondNow = (await s.api.post('/user-permissions', { user: 'alice', limit: 1, cursor: first.body.next_cursor })).body;
      expect(Object.keys(secondNow.result.permissions)).toEqual(['document:d2']);
      const secondAsOf = await s.api.post('/user-permissions', { user: 'alice', limit: 1, cursor: first.body.next_cursor, as_of: receipt });
      expect(Object.keys(secondAsOf.body.result.permissions)).toEqual(['document:d3']);
      expect(secondAsOf.body).toEqual(secondThen);
    });

    it('refuses an as_of beyond the log (422 at the field) and answers 404 before the environment existed', async () => {
      const before = server.service.runner.position;
      const s = await Scenario.create(server, 'checks-3');
      const check = { user: 'alice', action: 'read', resource: 'document:d' };
      const beyond = await s.api.post('/allowed', { ...check, as_of: before + 10_000 });
      expect(beyond.status).toBe(422);
      expect(beyond.body.detail[0].loc).toEqual(['body', 'as_of']);
      const beyondInQuery = await s.api.post(`/allowed/bulk?as_of=${before + 10_000}`, [check]);
      expect(beyondInQuery.status).toBe(422);
      expect(beyondInQuery.body.detail[0].loc).toEqual(['query', 'as_of']);
      const beyondInItem = await s.api.post('/allowed/bulk', [check, { ...check, as_of: before + 10_000 }]);
      expect(beyondInItem.status).toBe(422);
      expect(beyondInItem.body.detail[0].loc).toEqual(['body', 1, 'as_of']);
      expect((await s.api.post('/allowed', { ...check, as_of: 'last week' })).status).toBe(422);
      const bodies = {
        '/allowed': check,
        '/user-permissions': { user: check.user },
        '/authorized_users': { action: check.action, resource: check.resource },
      };
      for (const [path, body] of Object.entries(bodies)) {
        const r = await s.api.post(path, { ...body, as_of: before });
        expect({ path, status: r.status }).toEqual({ path, status: 404 });
      }
    });
  });
}
