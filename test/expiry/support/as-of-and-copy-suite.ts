import { ManualClock } from '../../../shared/clock';
import type { TestServer } from '../../support/embedded-server';
import { documentSchema, Scenario } from '../../grants/support/scenario';
import type { StartExpiryServer } from './start-server';
import { at, T0 } from './instants';
import { folderAndDocument } from './world';

/**
 * `as_of` across an end, and copies that keep the ends (docs/expiring-access.md). The scheduler is
 * off: what was in force then is answered from the ends alone, before any expiry event. Run on each
 * read-model engine.
 */
export function asOfAndCopySuite(title: string, start: StartExpiryServer): void {
  describe(title, () => {
    let server: TestServer;
    const clock = new ManualClock(T0);
    beforeAll(async () => {
      server = await start({ clock, env: { EXPIRY_POLL_MS: '0' } });
    });
    afterAll(() => server.close());

    async function world(name: string): Promise<Scenario> {
      clock.set(T0);
      const s = await folderAndDocument(server, name);
      await s.ok(s.api.post(`${s.facts}/relationship_tuples`, { subject: 'folder:f', relation: 'parent', object: 'document:d' }));
      await s.ok(
        s.api.post(`${s.facts}/role_assignments`, {
          user: 'alice',
          role: 'editor',
          resource_instance: 'folder:f',
          expires_at: at(T0 + 1_000),
        }),
      );
      await s.ok(s.api.post(`${s.facts}/role_assignments`, { user: 'bob', role: 'viewer', resource_instance: 'folder:f' }));
      return s;
    }

    it('answers checks and lists as_of a time with what was in force then, the end included', async () => {
      const s = await world('expiry-as-of');
      clock.set(T0 + 60_000);
      const allowedAsOf = async (asOf: string | number) => {
        const r = await s.ok(
          s.api.post(`/allowed?as_of=${encodeURIComponent(String(asOf))}`, { user: 'alice', action: 'write', resource: 'document:d' }),
        );
        return r.allow as boolean;
      };
      expect(await allowedAsOf(at(T0 + 999))).toBe(true);
      expect(await allowedAsOf(at(T0 + 1_000))).toBe(false);
      expect(await s.allowed('alice', 'write', 'document:d')).toBe(false);
      const listed = async (asOf: number) =>
        (await s.ok(s.api.get(`${s.facts}/role_assignments?as_of=${encodeURIComponent(at(asOf))}`))).map((a: any) => [
          a.user,
          a.expires_at,
        ]);
      expect((await listed(T0 + 999)).sort()).toEqual([
        ['alice', at(T0 + 1_000)],
        ['bob', null],
      ]);
      expect(await listed(T0 + 1_000)).toEqual([['bob', null]]);
      // A log position: the instant its event was appended (before the end).
      const log = await s.ok(s.api.get(`/v2/events/default/${s.envKey}?type=RoleAssigned`));
      const head = (log.data ?? log).at(-1).position as number;
      expect(await allowedAsOf(head)).toBe(true);
    });

    it('copies the ends with the facts, into a new environment and into an existing one', async () => {
      const s = await world('expiry-copy-source');
      const copied = await server.api.post(`/v2/projects/default/envs/${s.envKey}/copy/async?wait=30`, {
        target_env: { new: { key: 'expiry-copy-new', name: 'Copy' } },
        scope: { facts: true },
      });
      expect(copied.body.status).toBe('success');
      const fresh = Scenario.existing(await server.api.environmentClient('default', 'expiry-copy-new'), 'expiry-copy-new');
      const ends = async (t: Scenario) =>
        Object.fromEntries((await t.ok(t.api.get(`${t.facts}/role_assignments`))).map((a: any) => [a.user, a.expires_at]));
      expect(await ends(fresh)).toEqual({ alice: at(T0 + 1_000), bob: null });

      const existing = await Scenario.create(server, 'expiry-copy-existing');
      await documentSchema(existing);
      await existing.instance('folder:f', 'acme');
      await existing.ok(
        existing.api.post(`${existing.facts}/role_assignments`, {
          user: 'bob',
          role: 'viewer',
          resource_instance: 'folder:f',
          expires_at: at(T0 + 5),
        }),
      );
      const merged = await server.api.post(`/v2/projects/default/envs/${s.envKey}/copy/async?wait=30`, {
        target_env: { existing: existing.envKey },
        conflict_strategy: 'overwrite',
        scope: { facts: true },
      });
      expect(merged.body.status).toBe('success');
      expect(await ends(existing)).toEqual({ alice: at(T0 + 1_000), bob: null });

      for (const t of [fresh, existing]) {
        clock.set(T0 + 999);
        expect(await t.can('alice', 'document:d')).toEqual(['read', 'write']);
        clock.set(T0 + 1_000);
        expect(await t.can('alice', 'document:d')).toEqual([]);
        expect(await t.can('bob', 'document:d')).toEqual(['read']);
      }
    });
  });
}
