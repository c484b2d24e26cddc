import { ManualClock } from '../../../shared/clock';
import type { TestServer } from '../../support/embedded-server';
import { documentSchema, Scenario } from '../../grants/support/scenario';
import type { StartExpiryServer } from './start-server';
import { at, T0 } from './instants';

/**
 * Checks and lists at the instant they are asked (docs/expiring-access.md): the service's clock is
 * the test's, held still and moved by a millisecond. The expiry scheduler runs beside them (every
 * 250 ms, at the test's clock) and may append an expiry as soon as its end is due, after which the
 * read models drop the fact: so within a world the clock only moves forward past an end, as a
 * real one does, and the answers are the same whether or not the scheduler has acted. Run on each
 * read-model engine: the ends and the grants they end are theirs.
 */
export function exactChecksSuite(title: string, start: StartExpiryServer): void {
  describe(title, () => {
    let server: TestServer;
    const clock = new ManualClock(T0);
    let envs = 0;
    beforeAll(async () => {
      server = await start({ clock });
    });
    afterAll(() => server.close());

    async function world(): Promise<Scenario> {
      clock.set(T0);
      const s = await Scenario.create(server, `expiry-checks-${++envs}`);
      await documentSchema(s);
      await s.instance('account:a', 'acme');
      await s.instance('folder:f', 'acme');
      await s.instance('folder:g', 'acme');
      await s.instance('document:d', 'acme');
      return s;
    }
    const assign = (s: Scenario, user: string, role: string, instance: string, end: number | null) =>
      s.ok(
        s.api.post(`${s.facts}/role_assignments`, { user, role, resource_instance: instance, expires_at: end === null ? null : at(end) }),
      );
    const tuple = (s: Scenario, subject: string, relation: string, object: string, end: number | null) =>
      s.ok(s.api.post(`${s.facts}/relationship_tuples`, { subject, relation, object, expires_at: end === null ? null : at(end) }));

    it('allows a direct role until the millisecond before its end, and denies from its end on', async () => {
      const s = await world();
      await assign(s, 'alice', 'editor', 'document:d', T0 + 10_000);
      clock.set(T0 + 9_999);
      expect(await s.can('alice', 'document:d')).toEqual(['read', 'write']);
      clock.set(T0 + 10_000);
      expect(await s.can('alice', 'document:d')).toEqual([]);
      clock.set(T0 + 10_001);
      expect(await s.can('alice', 'document:d')).toEqual([]);
    });

    it('ends what a folder editor derives (folders and their documents) at the instant the assignment ends', async () => {
      const s = await world();
      await tuple(s, 'folder:f', 'parent', 'folder:g', null);
      await tuple(s, 'folder:g', 'parent', 'document:d', null);
      await assign(s, 'alice', 'editor', 'folder:f', T0 + 5_000);
      clock.set(T0 + 4_999);
      expect(await s.can('alice', 'folder:g')).toEqual(['read', 'write']);
      expect(await s.can('alice', 'document:d')).toEqual(['read', 'write']);
      clock.set(T0 + 5_000);
      expect(await s.can('alice', 'folder:f')).toEqual([]);
      expect(await s.can('alice', 'folder:g')).toEqual([]);
      expect(await s.can('alice', 'document:d')).toEqual([]);
    });

    it('cuts the derivation through a tuple at its end, and keeps what another support still gives', async () => {
      const s = await world();
      await tuple(s, 'account:a', 'account', 'folder:f', T0 + 3_000);
      await tuple(s, 'folder:f', 'parent', 'document:d', null);
      await assign(s, 'alice', 'admin', 'account:a', null);
      // bob: editor of folder:f directly until +8s, and through the account until +3s.
      await assign(s, 'bob', 'admin', 'account:a', null);
      await assign(s, 'bob', 'editor', 'folder:f', T0 + 8_000);
      clock.set(T0 + 2_999);
      expect(await s.can('alice', 'document:d')).toEqual(['read', 'write']);
      clock.set(T0 + 3_000);
      expect(await s.can('alice', 'folder:f')).toEqual([]);
      expect(await s.can('alice', 'document:d')).toEqual([]);
      expect(await s.can('alice', 'account:a', ['read', 'manage'])).toEqual(['read', 'manage']);
      expect(await s.can('bob', 'document:d')).toEqual(['read', 'write']);
      clock.set(T0 + 7_999);
      expect(await s.can('bob', 'document:d')).toEqual(['read', 'write']);
      clock.set(T0 + 8_000);
      expect(await s.can('bob', 'document:d')).toEqual([]);
    });

    it('keeps the support that ends last, whichever order the supports arrive in', async () => {
      const s = await world();
      await tuple(s, 'folder:f', 'parent', 'folder:g', null);
      // folder:g editor: directly until +2s, derived from folder:f until +6s (arriving after), and back.
      await assign(s, 'carol', 'editor', 'folder:g', T0 + 2_000);
      await assign(s, 'carol', 'editor', 'folder:f', T0 + 6_000);
      await tuple(s, 'folder:g', 'parent', 'document:d', T0 + 4_000);
      await assign(s, 'dave', 'editor', 'folder:f', T0 + 6_000);
      await assign(s, 'dave', 'editor', 'folder:g', T0 + 2_000);
      // Both users at each instant: the clock only moves forward, as the scheduler may append the
      // expiries due at one instant (it runs beside the test), and the read models then drop them.
      const both = async (object: string) => [await s.can('carol', object), await s.can('dave', object)];
      clock.set(T0 + 2_000);
      expect(await both('folder:g')).toEqual([
        ['read', 'write'],
        ['read', 'write'],
      ]);
      clock.set(T0 + 3_999);
      expect(await both('document:d')).toEqual([
        ['read', 'write'],
        ['read', 'write'],
      ]);
      clock.set(T0 + 4_000);
      expect(await both('document:d')).toEqual([[], []]);
      clock.set(T0 + 5_999);
      expect(await both('folder:g')).toEqual([
        ['read', 'write'],
        ['read', 'write'],
      ]);
      clock.set(T0 + 6_000);
      expect(await both('folder:g')).toEqual([[], []]);
    });

    it('follows an end moved later, earlier, or removed', async () => {
      const s = await world();
      await tuple(s, 'folder:f', 'parent', 'document:d', null);
      await assign(s, 'erin', 'viewer', 'folder:f', T0 + 1_000);
      await assign(s, 'erin', 'viewer', 'folder:f', T0 + 9_000);
      clock.set(T0 + 8_999);
      expect(await s.can('erin', 'document:d')).toEqual(['read']);
      clock.set(T0 + 100);
      await assign(s, 'erin', 'viewer', 'folder:f', T0 + 200);
      clock.set(T0 + 200);
      expect(await s.can('erin', 'document:d')).toEqual([]);
      clock.set(T0 + 150);
      await tuple(s, 'folder:f', 'parent', 'document:d', T0 + 180);
      await assign(s, 'erin', 'viewer', 'folder:f', null);
      clock.set(T0 + 179);
      expect(await s.can('erin', 'document:d')).toEqual(['read']);
      clock.set(T0 + 180);
      expect(await s.can('erin', 'document:d')).toEqual([]);
      expect(await s.can('erin', 'folder:f')).toEqual(['read']);
      clock.set(T0 + 10_000_000);
      expect(await s.can('erin', 'folder:f')).toEqual(['read']);
    });

    it('ends a tenant role at its end', async () => {
      const s = await world();
      await s.tenantRole('reader', ['document:read']);
      await s.ok(s.api.post(`${s.facts}/role_assignments`, { user: 'fay', role: 'reader', tenant: 'acme', expires_at: at(T0 + 50) }));
      clock.set(T0 + 49);
      expect(await s.can('fay', 'document:d')).toEqual(['read']);
      clock.set(T0 + 50);
      expect(await s.can('fay', 'document:d')).toEqual([]);
      expect(await s.ok(s.api.get(`${s.facts}/role_assignments?user=fay`))).toEqual([]);
    });

    it('never serves a cached allow past the end it was derived from', async () => {
      const s = await world();
      await tuple(s, 'folder:f', 'parent', 'document:d', null);
      await assign(s, 'gus', 'editor', 'folder:f', T0 + 1_000);
      clock.set(T0 + 999);
      // Asked twice: the second is a cache hit at the same read-model position.
      expect(await s.allowed('gus', 'write', 'document:d')).toBe(true);
      expect(await s.allowed('gus', 'write', 'document:d')).toBe(true);
      const bulk = async () =>
        (await s.ok(s.api.post('/allowed/bulk', [{ user: { key: 'gus' }, action: 'write', resource: { type: 'document', key: 'd' } }])))
          .allow[0].allow;
      expect(await bulk()).toBe(true);
      clock.set(T0 + 1_000);
      expect(await s.allowed('gus', 'write', 'document:d')).toBe(false);
      expect(await bulk()).toBe(false);
    });

    it('lists permissions and authorized users as of the instant', async () => {
      const s = await world();
      await tuple(s, 'folder:f', 'parent', 'document:d', null);
      await assign(s, 'hal', 'viewer', 'folder:f', T0 + 500);
      await assign(s, 'ida', 'viewer', 'folder:f', null);
      const authorized = async () =>
        Object.keys(
          (await s.ok(s.api.post('/authorized_users', { action: 'read', resource: { type: 'document', key: 'd', tenant: 'acme' } }))).users,
        ).sort();
      const permissions = async () => Object.keys((await s.ok(s.api.post('/user-permissions', { user: 'hal' }))).result.permissions).sort();
      clock.set(T0 + 499);
      expect(await authorized()).toEqual(['hal', 'ida']);
      expect(await permissions()).toEqual(['document:d', 'folder:f']);
      clock.set(T0 + 500);
      expect(await authorized()).toEqual(['ida']);
      expect(await permissions()).toEqual([]);
      expect((await s.ok(s.api.get(`${s.facts}/role_assignments?resource_instance=folder:f`))).map((a: any) => a.user)).toEqual(['ida']);
    });
  });
}
