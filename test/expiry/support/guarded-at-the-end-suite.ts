import pino from 'pino';
import { ExpiryScheduler } from '../../../command-service/expiry/scheduler';
import { ManualClock } from '../../../shared/clock';
import type { TestServer } from '../../support/embedded-server';
import { Scrape } from '../../support/prometheus';
import { until } from '../../support/until';
import { documentSchema, Scenario } from '../../grants/support/scenario';
import type { StartExpiryServer } from './start-server';
import { at, T0 } from './instants';

/** The end of the direct roles in these tests. */
const END = T0 + 1_000;

/**
 * `no_direct_roles_on_object` at the end of a user's last direct role on an instance
 * (docs/expiring-access.md §2): the guarded role derived there is given back at the end itself,
 * not when the expiry event is projected, in checks (cached or not, one or in bulk), lists and
 * `as_of`. The scheduler is off: the tests append the expiry event themselves, after asking at the
 * end, and ask again once it is projected. Run on each read-model engine.
 */
export function guardedAtTheEndSuite(title: string, start: StartExpiryServer): void {
  describe(title, () => {
    let server: TestServer;
    const clock = new ManualClock(T0);
    beforeAll(async () => {
      server = await start({ clock, env: { EXPIRY_POLL_MS: '0' } }, 'guarded');
    });
    afterAll(() => server.close());

    /**
     * Folders f > g and a document d under f. `guarded` (folder#editor, whose grants are stored: it
     * derives further; or document#editor, a sink) is derived only where the user holds no direct
     * role. alice: editor of folder:f, with a direct viewer role on the guarded role's instance
     * (folder:g or document:d) until END.
     */
    async function world(name: string, guarded: 'folder' | 'document'): Promise<{ s: Scenario; on: string }> {
      clock.set(T0);
      const s = await Scenario.create(server, name);
      await documentSchema(s);
      for (const ref of ['folder:f', 'folder:g', 'document:d']) await s.instance(ref, 'acme');
      await s.tuple('folder:f', 'parent', 'folder:g');
      await s.tuple('folder:f', 'parent', 'document:d');
      await s.ok(
        s.api.request('PUT', `${s.schema}/resources/${guarded}/roles/editor/implicit_grants/conditions`, {
          no_direct_roles_on_object: true,
        }),
      );
      await s.assign('alice', 'editor', 'folder:f');
      const on = guarded === 'folder' ? 'folder:g' : 'document:d';
      await s.ok(s.api.post(`${s.facts}/role_assignments`, { user: 'alice', role: 'viewer', resource_instance: on, expires_at: at(END) }));
      return { s, on };
    }

    /** Appends the expiries due now (as the scheduler would) and waits until the read models have applied them. */
    async function expireDue(s: Scenario): Promise<void> {
      const { services } = server.service;
      const logger = pino({ level: 'silent' });
      const scheduler = new ExpiryScheduler({
        readModels: services.readModels,
        envCommands: services.envCommands,
        clock,
        logger,
        pollMs: 0,
      });
      // Every environment's expiries due (earlier tests' too): this one's among them.
      expect(await scheduler.runOnce()).toBeGreaterThanOrEqual(1);
      const position = await until('the expiry event in the log', async () => {
        const log = await s.ok(s.api.get(`/v2/events/default/${s.envKey}?type=RoleAssignmentExpired`));
        return (log.data ?? log).at(-1)?.position as number | undefined;
      });
      const projected = await s.api.request(
        'POST',
        '/allowed',
        { user: 'nobody', action: 'read', resource: 'document:d' },
        { 'X-Min-Event-Position': String(position) },
      );
      expect(projected.status).toBe(200);
    }

    const bulk = async (s: Scenario, user: string, action: string, ref: string) => {
      const [type, key] = ref.split(':');
      const answer = await s.ok(s.api.post('/allowed/bulk', [{ user: { key: user }, action, resource: { type, key } }]));
      return answer.allow[0].allow as boolean;
    };
    const authorized = async (s: Scenario, ref: string) => {
      const [type, key] = ref.split(':');
      const answer = await s.ok(s.api.post('/authorized_users', { action: 'write', resource: { type, key, tenant: 'acme' } }));
      return Object.keys(answer.users).sort();
    };
    const roles = async (s: Scenario, user: string, ref: string) => {
      const answer = await s.ok(s.api.post('/user-permissions', { user }));
      return answer.result.permissions[ref]?.roles ?? [];
    };
    const rolesOn = async (s: Scenario, user: string, ref: string) => {
      const answer = await s.ok(s.api.post('/user-permissions', { user, resources: [ref] }));
      return answer.result.permissions[ref]?.roles ?? [];
    };
    const hits = async () => (await Scrape.of(server.url)).sum('rebac_decision_cache_lookups_total', { result: 'hit' });

    for (const guarded of ['folder', 'document'] as const) {
      const kind = guarded === 'folder' ? 'a stored guarded role (folder#editor)' : 'a sink guarded role (document#editor)';

      it(`gives ${kind} back at the end of the last direct role, before the expiry event, and the same after it`, async () => {
        const { s, on } = await world(`guarded-end-${guarded}`, guarded);
        const everyAnswer = async () => ({
          can: await s.can('alice', on),
          bulk: await bulk(s, 'alice', 'write', on),
          authorized: await authorized(s, on),
          roles: await roles(s, 'alice', on),
          rolesOn: await rolesOn(s, 'alice', on),
        });
        clock.set(END - 1);
        expect(await everyAnswer()).toEqual({ can: ['read'], bulk: false, authorized: [], roles: ['viewer'], rolesOn: ['viewer'] });
        clock.set(END + 1);
        const given = { can: ['read', 'write'], bulk: true, authorized: ['alice'], roles: ['editor'], rolesOn: ['editor'] };
        expect(await everyAnswer()).toEqual(given);
        // Not a read of the cache: the store answers so too.
        const fromStore = await s.ok(s.api.post('/allowed?explain=true', { user: 'alice', action: 'write', resource: on }));
        expect(fromStore.allow).toBe(true);
        await expireDue(s);
        expect(await everyAnswer()).toEqual(given);
      });

      it(`does not serve a deny it cached before the end past it (${kind})`, async () => {
        const { s, on } = await world(`guarded-cache-${guarded}`, guarded);
        clock.set(END - 1);
        expect(await s.allowed('alice', 'write', on)).toBe(false);
        const before = await hits();
        expect(await s.allowed('alice', 'write', on)).toBe(false);
        expect(await bulk(s, 'alice', 'write', on)).toBe(false);
        // Both from the cache: the deny is kept until the end.
        expect(await hits()).toBe(before + 2);
        clock.set(END);
        expect(await s.allowed('alice', 'write', on)).toBe(true);
        expect(await bulk(s, 'alice', 'write', on)).toBe(true);
        await expireDue(s);
        expect(await s.allowed('alice', 'write', on)).toBe(true);
      });
    }

    it('keeps a deny in the cache while a direct role without an end holds the guarded role back', async () => {
      const { s, on } = await world('guarded-cache-kept', 'folder');
      // A second direct role there, without an end.
      await s.role('folder', 'commenter', ['read']);
      await s.assign('alice', 'commenter', on);
      clock.set(END - 1);
      expect(await s.allowed('alice', 'write', on)).toBe(false);
      clock.set(END + 1);
      const before = await hits();
      expect(await s.allowed('alice', 'write', on)).toBe(false);
      expect(await hits()).toBe(before + 1);
    });

    it('holds a guarded sink role back while a direct role is in force, though that role is also derived and its grant keeps the derivation', async () => {
      clock.set(T0);
      const s = await Scenario.create(server, 'guarded-derived-direct');
      await documentSchema(s);
      // folder#auditor: a sink (it derives nothing), guarded, derived from an editor of the parent folder.
      await s.role('folder', 'auditor', ['share']);
      await s.derive('folder', 'auditor', 'folder', 'editor', 'parent');
      await s.ok(
        s.api.request('PUT', `${s.schema}/resources/folder/roles/auditor/implicit_grants/conditions`, { no_direct_roles_on_object: true }),
      );
      for (const ref of ['folder:f', 'folder:g']) await s.instance(ref, 'acme');
      await s.tuple('folder:f', 'parent', 'folder:g');
      await s.assign('alice', 'editor', 'folder:f');
      // Viewer of g twice over: derived from f without an end, and assigned directly until END. The
      // stored grant keeps the support that ends last (the derivation); the direct role is there all the same.
      await s.assign('alice', 'viewer', 'folder:f');
      await s.ok(
        s.api.post(`${s.facts}/role_assignments`, { user: 'alice', role: 'viewer', resource_instance: 'folder:g', expires_at: at(END) }),
      );
      const share = async () =>
        (await s.ok(s.api.post('/allowed?explain=true', { user: 'alice', action: 'share', resource: 'folder:g' }))).allow as boolean;
      clock.set(END - 1);
      expect(await share()).toBe(false);
      expect(await rolesOn(s, 'alice', 'folder:g')).not.toContain('auditor');
      clock.set(END + 1);
      expect(await share()).toBe(true);
      await expireDue(s);
      expect(await share()).toBe(true);
    });

    it('answers as_of a time between the end and the expiry event with the guarded role given back', async () => {
      const { s, on } = await world('guarded-as-of', 'folder');
      const allowedAsOf = async (asOf: number) =>
        (await s.ok(s.api.post(`/allowed?as_of=${encodeURIComponent(at(asOf))}`, { user: 'alice', action: 'write', resource: on })))
          .allow as boolean;
      clock.set(END + 5_000);
      expect(await allowedAsOf(END - 1)).toBe(false);
      expect(await allowedAsOf(END + 1)).toBe(true);
      expect(await s.allowed('alice', 'write', on)).toBe(true);
      // After it (events carry the system's time, not the test's clock: as_of a time of the test's
      // is the log's head, which the expiry event is now part of).
      await expireDue(s);
      expect(await allowedAsOf(END + 1)).toBe(true);
      expect(await s.allowed('alice', 'write', on)).toBe(true);
    });
  });
}
