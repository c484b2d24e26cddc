import { FACTS, SCHEMA, type ApiClient, type TestServer } from '../../support/embedded-server';

/**
 * Set rules in /allowed and /allowed/bulk (stored and sent attributes, context, explain, the
 * decision cache), the list endpoints and /allowed/history; run on each read-model engine.
 */
export function abacCheckSuite(name: string, start: () => Promise<TestServer>): void {
  describe(name, () => {
    let server: TestServer;
    let api: ApiClient;
    const ok = async (p: Promise<{ status: number; body: any }>, status = 200) => {
      const r = await p;
      if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${JSON.stringify(r.body)}`);
      return r.body;
    };
    const allowed = async (check: unknown) => (await ok(api.post('/allowed', check))).allow as boolean;

    beforeAll(async () => {
      server = await start();
      api = await server.api.environmentClient();
      await ok(
        api.post(`${SCHEMA}/resources`, {
          key: 'document',
          name: 'Document',
          actions: { read: {}, edit: {} },
          attributes: { classification: { type: 'string' }, pages: { type: 'number' } },
        }),
      );
      await ok(api.post(`${SCHEMA}/roles`, { key: 'auditor', name: 'Auditor' }));
      await ok(api.post(`${FACTS}/tenants`, { key: 'acme', name: 'Acme', attributes: { plan: 'pro' } }));
      await ok(api.post(`${FACTS}/users`, { key: 'ann', attributes: { age: 30, region: 'eu' } }));
      await ok(api.post(`${FACTS}/users`, { key: 'kid', attributes: { age: 12, region: 'eu' } }));
      await ok(
        api.post(`${FACTS}/resource_instances`, {
          key: 'memo',
          resource: 'document',
          tenant: 'acme',
          attributes: { classification: 'public' },
        }),
      );
      await ok(
        api.post(`${FACTS}/resource_instances`, {
          key: 'plan',
          resource: 'document',
          tenant: 'acme',
          attributes: { classification: 'secret' },
        }),
      );
      await ok(
        api.post(`${SCHEMA}/condition_sets`, {
          key: 'adults',
          name: 'Adults',
          conditions: { allOf: [{ 'user.age': { 'greater-than-equals': 18 } }] },
        }),
      );
      await ok(
        api.post(`${SCHEMA}/condition_sets`, {
          key: 'public-docs',
          name: 'Public',
          type: 'resourceset',
          resource_id: 'document',
          conditions: { allOf: [{ 'resource.classification': { equals: 'public' } }] },
        }),
      );
    });
    afterAll(() => server.close());

    it('a set rule allows what roles do not, and the cache follows its creation and deletion', async () => {
      const check = { user: 'ann', action: 'read', resource: 'document:memo' };
      expect(await allowed(check)).toBe(false);
      const rule = { user_set: 'adults', permission: 'document:read', resource_set: 'public-docs' };
      await ok(api.post(`${FACTS}/set_rules`, rule));
      expect(await allowed(check)).toBe(true);
      expect(await allowed({ ...check, user: 'kid' })).toBe(false);
      expect(await allowed({ ...check, resource: 'document:plan' })).toBe(false);
      expect(await allowed({ ...check, action: 'edit' })).toBe(false);
      await ok(api.delete(`${FACTS}/set_rules`, rule), 204);
      expect(await allowed(check)).toBe(false);
      await ok(api.post(`${FACTS}/set_rules`, rule));
    });

    it('attributes sent with the check are merged over the stored ones, and cached only under them', async () => {
      const check = { user: 'kid', action: 'read', resource: 'document:memo' };
      expect(await allowed(check)).toBe(false);
      expect(await allowed({ ...check, user: { key: 'kid', attributes: { age: 40 } } })).toBe(true);
      expect(await allowed({ ...check, user: { key: 'kid', attributes: { age: 11 } } })).toBe(false);
      expect(await allowed(check)).toBe(false);
      // An unknown user and a type-level check: only what the check sends.
      const typeLevel = {
        user: { key: 'stranger', attributes: { age: 50 } },
        action: 'read',
        resource: { type: 'document', tenant: 'acme' },
      };
      expect(await allowed(typeLevel)).toBe(false);
      expect(await allowed({ ...typeLevel, resource: { ...typeLevel.resource, attributes: { classification: 'public' } } })).toBe(true);
      // The instance's stored attribute is overridden by the one sent.
      expect(
        await allowed({
          ...check,
          user: { key: 'ann' },
          resource: { type: 'document', key: 'memo', attributes: { classification: 'secret' } },
        }),
      ).toBe(false);
    });

    it('a cached answer follows writes to the attributes it read; as_of decides with the sets and rules of then', async () => {
      await ok(api.post(`${FACTS}/users`, { key: 'teen', attributes: { age: 17 } }));
      const check = { user: 'teen', action: 'read', resource: 'document:memo' };
      expect(await allowed(check)).toBe(false);
      expect(await allowed(check)).toBe(false);
      const before = (await api.post('/allowed', check)).headers.get('x-event-position');
      await ok(api.patch(`${FACTS}/users/teen`, { attributes: { age: 18 } }));
      expect(await allowed(check)).toBe(true);
      expect((await ok(api.post('/allowed', { ...check, as_of: Number(before) }))).allow).toBe(false);
      await ok(api.patch(`${FACTS}/resource_instances/document:memo`, { attributes: { classification: 'secret' } }));
      expect(await allowed(check)).toBe(false);
      await ok(api.patch(`${FACTS}/resource_instances/document:memo`, { attributes: { classification: 'public' } }));
      expect(await allowed(check)).toBe(true);
    });

    it('context and tenant attributes', async () => {
      await ok(
        api.post(`${SCHEMA}/condition_sets`, {
          key: 'trusted',
          name: 'Trusted network, pro tenant',
          conditions: { allOf: [{ 'context.network': { equals: 'office' } }, { 'tenant.plan': { equals: 'pro' } }] },
        }),
      );
      await ok(
        api.post(`${FACTS}/set_rules`, { user_set: 'trusted', permission: 'document:edit', resource_set: 'document', is_resource: true }),
      );
      const check = { user: 'kid', action: 'edit', resource: 'document:plan' };
      expect(await allowed(check)).toBe(false);
      expect(await allowed({ ...check, context: { network: 'office' } })).toBe(true);
      expect(await allowed({ ...check, context: { network: 'cafe' } })).toBe(false);
      // Permit's SDK may send the context inside the resource.
      expect(await allowed({ ...check, resource: { type: 'document', key: 'plan', context: { network: 'office' } } })).toBe(true);
    });

    it('explain names the set rule and each condition, and a value of the wrong type is a deny with a reason', async () => {
      const allow = await ok(api.post('/allowed?explain=true', { user: 'ann', action: 'read', resource: 'document:memo' }));
      expect(allow.explanation.granted_by).toEqual([
        { kind: 'set_rule', set_rule: expect.any(String), user_set: 'adults', permission: 'document:read', resource_set: 'public-docs' },
      ]);
      expect(allow.explanation.summary).toContain('set rule');
      const deny = await ok(
        api.post('/allowed?explain=true', {
          user: { key: 'ann', attributes: { age: 'thirty' } },
          action: 'read',
          resource: 'document:memo',
        }),
      );
      expect(deny.allow).toBe(false);
      expect(deny.explanation.set_rules).toEqual([
        expect.objectContaining({
          user_set: 'adults',
          matched: false,
          user_set_matched: false,
          conditions: [
            { set: 'adults', condition: 'user.age greater-than-equals 18', matched: false, reason: expect.stringContaining('is string') },
          ],
        }),
      ]);
    });

    it('a role as a user set', async () => {
      await ok(
        api.post(`${FACTS}/set_rules`, {
          user_set: 'auditor',
          is_role: true,
          permission: 'document:read',
          resource_set: 'document',
          is_resource: true,
        }),
      );
      expect(await allowed({ user: 'kid', action: 'read', resource: 'document:plan' })).toBe(false);
      await ok(api.post(`${FACTS}/role_assignments`, { user: 'kid', role: 'auditor', tenant: 'acme' }));
      expect(await allowed({ user: 'kid', action: 'read', resource: 'document:plan' })).toBe(true);
      // In another tenant the role is not held.
      expect(await allowed({ user: 'kid', action: 'read', resource: { type: 'document', tenant: 'other' } })).toBe(false);
    });

    it('/allowed/bulk evaluates each check with its own attributes', async () => {
      const base = {
        user: 'stranger',
        action: 'read',
        resource: { type: 'document', tenant: 'acme', attributes: { classification: 'public' } },
      };
      const answers = await ok(
        api.post('/allowed/bulk', [
          { ...base, user: { key: 'stranger', attributes: { age: 20 } } },
          { ...base, user: { key: 'stranger', attributes: { age: 2 } } },
          { ...base, user: { key: 'stranger', attributes: { age: 20 } } },
        ]),
      );
      expect(answers.allow.map((a: any) => a.allow)).toEqual([true, false, true]);
    });

    it('/user-permissions lists instances set rules grant on, merged with the role ones and paged in instance order', async () => {
      await ok(
        api.post(`${FACTS}/resource_instances`, {
          key: 'faq',
          resource: 'document',
          tenant: 'acme',
          attributes: { classification: 'public' },
        }),
      );
      await ok(api.post(`${FACTS}/role_assignments`, { user: 'ann', role: 'auditor', tenant: 'acme' }));
      const all = await ok(api.post('/user-permissions', { user: 'ann', resource_types: ['document'] }));
      // auditor (a role user set) reads every document; adults read the public ones; the trusted set needs context.
      expect(Object.keys(all.result.permissions).sort()).toEqual(['__tenant:acme', 'document:faq', 'document:memo', 'document:plan']);
      expect(all.result.permissions['__tenant:acme'].roles).toEqual(['auditor']);
      expect(all.result.permissions['document:memo']).toMatchObject({ permissions: ['document:read'], roles: [] });
      const withContext = await ok(
        api.post('/user-permissions', { user: 'ann', resource_types: ['document'], context: { network: 'office' } }),
      );
      expect(withContext.result.permissions['document:plan'].permissions).toEqual(['document:edit', 'document:read']);
      // One instance a page: the cursor walks them in order.
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await ok(
          api.post('/user-permissions', { user: 'ann', resource_types: ['document'], limit: 1, ...(cursor ? { cursor } : {}) }),
        );
        seen.push(...Object.keys(page.result.permissions).filter((k) => k.startsWith('document:')));
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      expect(seen).toEqual(['document:faq', 'document:memo', 'document:plan']);
    });

    it('/authorized_users and /allowed/all-tenants count set rules', async () => {
      const who = await ok(api.post('/authorized_users', { action: 'read', resource: 'document:memo' }));
      // ann: adults and auditor; kid: auditor only (12 is not an adult); teen: adults (18 now).
      expect(Object.keys(who.users).sort()).toEqual(['ann', 'kid', 'teen']);
      expect(who.users.ann.map((a: any) => a.role).sort()).toEqual(['adults', 'auditor']);
      const editors = await ok(
        api.post('/authorized_users', { action: 'edit', resource: 'document:plan', context: { network: 'office' } }),
      );
      // The trusted set holds every user on the office network of a pro tenant.
      expect(Object.keys(editors.users).sort()).toEqual(['ann', 'kid', 'teen']);
      const page = await ok(api.post('/authorized_users', { action: 'read', resource: 'document:memo', limit: 2 }));
      expect(Object.keys(page.users)).toEqual(['ann', 'kid']);
      const rest = await ok(
        api.post('/authorized_users', { action: 'read', resource: 'document:memo', limit: 2, cursor: page.next_cursor }),
      );
      expect(Object.keys(rest.users)).toEqual(['teen']);
      expect(rest.next_cursor).toBeNull();
      const tenants = await ok(
        api.post('/allowed/all-tenants', {
          user: { key: 'newcomer', attributes: { age: 40 } },
          action: 'read',
          resource: { type: 'document', attributes: { classification: 'public' } },
        }),
      );
      expect(tenants.allowed_tenants.map((t: any) => t.tenant.key)).toContain('acme');
    });

    it('refuses attributes that are not an object (422), never ignores them', async () => {
      const r = await api.post('/allowed', { user: { key: 'ann', attributes: [1] }, action: 'read', resource: 'document:memo' });
      expect(r.status).toBe(422);
      expect(r.body.detail[0].loc.slice(0, 2)).toEqual(['body', 'user']);
      const context = await api.post('/allowed', { user: 'ann', action: 'read', resource: { type: 'document', context: [1] } });
      expect(context.status).toBe(422);
      expect((await api.post('/allowed', { user: 'ann', action: 'read', resource: 'document:memo', context: 'office' })).status).toBe(422);
    });

    it('/allowed/history finds the changes set rules make (an attribute, a rule)', async () => {
      await ok(api.post(`${FACTS}/users`, { key: 'grower', attributes: { age: 16 } }));
      const check = { user: 'grower', action: 'read', resource: 'document:faq2' };
      await ok(
        api.post(`${FACTS}/resource_instances`, {
          key: 'faq2',
          resource: 'document',
          tenant: 'acme',
          attributes: { classification: 'public' },
        }),
      );
      const since = Number((await api.post('/allowed', check)).headers.get('x-event-position'));
      await ok(api.patch(`${FACTS}/users/grower`, { attributes: { age: 19 } }));
      await ok(api.patch(`${FACTS}/resource_instances/document:faq2`, { attributes: { classification: 'secret' } }));
      const h = await ok(api.post('/allowed/history', { ...check, since }));
      expect(h.changes.filter((c: any) => c.decision_changed).map((c: any) => [c.allow, c.event.type])).toEqual([
        [true, 'UserUpdated'],
        [false, 'ResourceInstanceUpdated'],
      ]);
    });
    it('AuthZEN decides as /allowed: properties and context reach set rules (an owner rule)', async () => {
      // Its own resource type, so the rules above are not disturbed.
      await ok(api.post(`${SCHEMA}/resources`, { key: 'note', name: 'Note', actions: { edit: {} } }));
      await ok(api.post(`${FACTS}/users`, { key: 'olga', email: 'olga@example.com' }));
      await ok(api.post(`${FACTS}/resource_instances`, { key: 'n1', resource: 'note', tenant: 'acme' }));
      await ok(
        api.post(`${SCHEMA}/condition_sets`, {
          key: 'owners',
          name: 'Owners',
          conditions: { allOf: [{ 'resource.ownerID': { equals: { ref: 'user.email' } } }] },
        }),
      );
      await ok(
        api.post(`${SCHEMA}/condition_sets`, {
          key: 'on-duty',
          name: 'On duty',
          conditions: { allOf: [{ 'context.shift': { equals: 'day' } }, { 'user.clearance': { 'greater-than-equals': 2 } }] },
        }),
      );
      await ok(api.post(`${FACTS}/set_rules`, { user_set: 'owners', permission: 'note:edit', resource_set: 'note', is_resource: true }));
      await ok(api.post(`${FACTS}/set_rules`, { user_set: 'on-duty', permission: 'note:edit', resource_set: 'note', is_resource: true }));
      /** One question, asked as /allowed and as AuthZEN (properties for attributes, the action's properties in the context). */
      const both = async (q: { user: string; userAttributes?: object; resource: object; context?: object; actionProperties?: object }) => {
        const viaAllowed = await allowed({
          user: { key: q.user, ...(q.userAttributes ? { attributes: q.userAttributes } : {}) },
          action: 'edit',
          resource: { type: 'note', key: 'n1', tenant: 'acme', attributes: q.resource },
          ...(q.context || q.actionProperties ? { context: { ...q.actionProperties, ...q.context } } : {}),
        });
        const evaluation = {
          subject: { type: 'user', id: q.user, ...(q.userAttributes ? { properties: q.userAttributes } : {}) },
          action: { name: 'edit', ...(q.actionProperties ? { properties: q.actionProperties } : {}) },
          resource: { type: 'note', id: 'n1', properties: { tenant: 'acme', ...q.resource } },
          ...(q.context ? { context: q.context } : {}),
        };
        const viaAuthzen = (await ok(api.post('/access/v1/evaluation', evaluation))).decision as boolean;
        const viaBatch = (await ok(api.post('/access/v1/evaluations', { evaluations: [evaluation] }))).evaluations[0].decision as boolean;
        expect([viaAuthzen, viaBatch]).toEqual([viaAllowed, viaAllowed]);
        return viaAllowed;
      };
      expect(await both({ user: 'olga', resource: { ownerID: 'olga@example.com' } })).toBe(true);
      expect(await both({ user: 'olga', resource: { ownerID: 'someone@example.com' } })).toBe(false);
      expect(await both({ user: 'olga', resource: {} })).toBe(false);
      // Sent user attributes are merged over the stored user (its email included).
      expect(await both({ user: 'olga', userAttributes: { email: 'x@example.com' }, resource: { ownerID: 'x@example.com' } })).toBe(true);
      // The context, and the action's properties through it.
      expect(await both({ user: 'ann', userAttributes: { clearance: 3 }, resource: {}, context: { shift: 'day' } })).toBe(true);
      expect(await both({ user: 'ann', userAttributes: { clearance: 3 }, resource: {}, actionProperties: { shift: 'day' } })).toBe(true);
      expect(await both({ user: 'ann', userAttributes: { clearance: 3 }, resource: {}, context: { shift: 'night' } })).toBe(false);
      expect(
        await both({
          user: 'ann',
          userAttributes: { clearance: 3 },
          resource: {},
          actionProperties: { shift: 'day' },
          context: { shift: 'night' },
        }),
      ).toBe(false);
      expect(await both({ user: 'ann', userAttributes: { clearance: 1 }, resource: {}, context: { shift: 'day' } })).toBe(false);
      // The searches read them too: who may edit n1 as owned by olga, and what olga may do on it.
      const owned = { type: 'note', id: 'n1', properties: { tenant: 'acme', ownerID: 'olga@example.com' } };
      const subjects = await ok(
        api.post('/access/v1/search/subject', { subject: { type: 'user' }, action: { name: 'edit' }, resource: owned }),
      );
      expect(subjects.results).toContainEqual({ type: 'user', id: 'olga' });
      const actions = await ok(api.post('/access/v1/search/action', { subject: { type: 'user', id: 'olga' }, resource: owned }));
      expect(actions.results).toEqual([{ name: 'edit' }]);
    });
  });
}
