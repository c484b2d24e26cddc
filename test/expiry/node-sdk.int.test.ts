import { Permit } from 'permitio';
import type { RoleAssignmentCreate } from 'permitio';
import { ManualClock } from '../../shared/clock';
import { startTestServer, type TestServer } from '../support/embedded-server';
import { documentSchema, Scenario } from '../grants/support/scenario';
import { at, T0 } from './support/instants';

/**
 * `expires_at` from the official Node SDK (`permitio`), whose models do not declare it: its request
 * bodies are sent as given, so the field rides along in the object (typed with an intersection;
 * docs/expiring-access.md).
 */
describe('expires_at from the permitio SDK', () => {
  let server: TestServer;
  let s: Scenario;
  let permit: Permit;
  const clock = new ManualClock(T0);
  beforeAll(async () => {
    server = await startTestServer({ clock, env: { EXPIRY_POLL_MS: '0' } });
    s = await Scenario.create(server, 'expiry-sdk');
    await documentSchema(s);
    await s.instance('folder:f', 'acme');
    await s.instance('document:d', 'acme');
    permit = new Permit({ token: s.api.key, apiUrl: server.url, pdp: server.url, log: { level: 'error' } });
  });
  afterAll(() => server.close());

  it('assigns a role and creates a tuple with an end, in one call and in bulk, and checks across it', async () => {
    const assignment: RoleAssignmentCreate & { expires_at: string } = {
      user: 'alice',
      role: 'editor',
      resource_instance: 'folder:f',
      expires_at: at(T0 + 1_000),
    };
    const assigned = await permit.api.roleAssignments.assign(assignment);
    expect((assigned as unknown as { expires_at: string }).expires_at).toBe(at(T0 + 1_000));
    const tuple: Parameters<Permit['api']['relationshipTuples']['create']>[0] & { expires_at: string } = {
      subject: 'folder:f',
      relation: 'parent',
      object: 'document:d',
      expires_at: at(T0 + 2_000),
    };
    await permit.api.relationshipTuples.create(tuple);
    await permit.api.roleAssignments.bulkAssign([
      { user: 'bob', role: 'viewer', resource_instance: 'folder:f', expires_at: at(T0 + 3_000) } as RoleAssignmentCreate,
    ]);

    clock.set(T0 + 999);
    expect(await permit.check('alice', 'write', 'document:d')).toBe(true);
    clock.set(T0 + 1_000);
    expect(await permit.check('alice', 'write', 'document:d')).toBe(false);
    expect(await permit.check('bob', 'read', 'folder:f')).toBe(true);
    expect(await permit.check('bob', 'read', 'document:d')).toBe(true);
    clock.set(T0 + 2_000);
    expect(await permit.check('bob', 'read', 'document:d')).toBe(false);
    expect(await permit.check('bob', 'read', 'folder:f')).toBe(true);
    clock.set(T0 + 3_000);
    expect(await permit.check('bob', 'read', 'folder:f')).toBe(false);
  });
});
