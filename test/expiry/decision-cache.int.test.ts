import { ManualClock } from '../../shared/clock';
import { startTestServer, type TestServer } from '../support/embedded-server';
import { Scrape } from '../support/prometheus';
import { until } from '../support/until';
import { Scenario } from '../grants/support/scenario';
import { at, T0 } from './support/instants';
import { folderAndDocument } from './support/world';

/**
 * The decision cache across expiry events (shared/read-models/answer-changes.ts): an expiry drops
 * a fact that stopped counting at its end, so the cache outlives it, except where applying it may
 * change an answer all the same: in an environment with `no_direct_roles_on_object` roles, whose
 * derived role comes back when the user's direct role on the object ends, a deny kept from before
 * must not be answered after the expiry event.
 */
describe('the decision cache across expiries', () => {
  let server: TestServer;
  const clock = new ManualClock(T0);
  beforeAll(async () => {
    server = await startTestServer({ clock, env: { EXPIRY_POLL_MS: '20' } });
  });
  afterAll(() => server.close());

  const hits = async () => (await Scrape.of(server.url)).sum('rebac_decision_cache_lookups_total', { result: 'hit' });
  const expiries = async (s: Scenario) =>
    (await s.ok(s.api.get(`/v2/events/default/${s.envKey}?type=RoleAssignmentExpired`))).data.length as number;

  async function world(envKey: string): Promise<Scenario> {
    clock.set(T0);
    const s = await folderAndDocument(server, envKey);
    await s.tuple('folder:f', 'parent', 'document:d');
    return s;
  }

  it('keeps its decisions across an expiry that changed no answer', async () => {
    const s = await world('cache-expiry');
    await s.ok(
      s.api.post(`${s.facts}/role_assignments`, {
        user: 'alice',
        role: 'editor',
        resource_instance: 'folder:f',
        expires_at: at(T0 + 1_000),
      }),
    );
    await s.assign('bob', 'editor', 'folder:f');
    clock.set(T0 + 500);
    expect(await s.allowed('bob', 'write', 'document:d')).toBe(true);
    const before = await hits();
    expect(await s.allowed('bob', 'write', 'document:d')).toBe(true);
    expect(await hits()).toBe(before + 1);

    clock.set(T0 + 1_000);
    await until('the expiry event', async () => ((await expiries(s)) === 1 ? true : undefined), 10_000);
    expect(await s.allowed('bob', 'write', 'document:d')).toBe(true);
    expect(await hits()).toBe(before + 2);
    expect(await s.allowed('alice', 'write', 'document:d')).toBe(false);
  });

  it('is emptied by an expiry where roles are guarded, which may give one back', async () => {
    const s = await world('cache-guarded');
    await s.ok(
      s.api.request('PUT', `${s.schema}/resources/document/roles/editor/implicit_grants/conditions`, { no_direct_roles_on_object: true }),
    );
    await s.assign('carol', 'editor', 'folder:f');
    // A direct viewer role on the document takes the derived editor role away there, until it ends.
    await s.ok(
      s.api.post(`${s.facts}/role_assignments`, {
        user: 'carol',
        role: 'viewer',
        resource_instance: 'document:d',
        expires_at: at(T0 + 1_000),
      }),
    );
    clock.set(T0 + 500);
    expect(await s.allowed('carol', 'write', 'document:d')).toBe(false);
    expect(await s.allowed('carol', 'write', 'document:d')).toBe(false);

    // The derived role is back once the direct one ended (docs/expiring-access.md): a deny cached
    // before must not outlive the end, nor the expiry event (test/expiry/support/guarded-at-the-end-suite.ts
    // asks between the two).
    clock.set(T0 + 1_000);
    await until('the expiry event', async () => ((await expiries(s)) === 1 ? true : undefined), 10_000);
    const fromStore = await s.ok(s.api.post('/allowed?explain=true', { user: 'carol', action: 'write', resource: 'document:d' }));
    expect(fromStore.allow).toBe(true);
    expect(await s.allowed('carol', 'write', 'document:d')).toBe(true);
  });
});
