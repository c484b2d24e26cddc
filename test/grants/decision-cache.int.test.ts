import { startTestServer, type TestServer } from '../support/embedded-server';
import { documentSchema, Scenario } from './support/scenario';

/**
 * Decisions are cached while the read models stay at one position. Every write
 * moves the position, so an answer never outlives the facts it came from, with
 * or without X-Min-Event-Position; `Cache-Control: no-cache` reads the store.
 */
describe('decision cache', () => {
  let server: TestServer;
  let s: Scenario;
  const check = { user: 'carol', action: 'read', resource: 'document:doc' };
  const bulk = [check, { ...check, action: 'write' }, { user: 'nobody', action: 'read', resource: 'document:doc' }];
  const allowBulk = async (headers: Record<string, string> = {}) =>
    ((await s.api.request('POST', '/allowed/bulk', bulk, headers)).body.allow as Array<{ allow: boolean }>).map((a) => a.allow);

  beforeAll(async () => {
    server = await startTestServer();
    s = await Scenario.create(server, 'decision-cache');
    await documentSchema(s);
    await s.instance('folder:f', 'acme');
    await s.instance('document:doc', 'acme');
    await s.tuple('folder:f', 'parent', 'document:doc');
  });
  afterAll(() => server.close());

  it('follows every write that changes the answer, single and bulk', async () => {
    expect(await s.allowed('carol', 'read', 'document:doc')).toBe(false);
    expect(await allowBulk()).toEqual([false, false, false]);

    await s.assign('carol', 'viewer', 'folder:f');
    expect(await s.allowed('carol', 'read', 'document:doc')).toBe(true);
    expect(await allowBulk()).toEqual([true, false, false]);

    await s.untuple('folder:f', 'parent', 'document:doc');
    expect(await s.allowed('carol', 'read', 'document:doc')).toBe(false);
    expect(await allowBulk()).toEqual([false, false, false]);

    await s.tuple('folder:f', 'parent', 'document:doc');
    await s.ok(s.api.patch(`${s.schema}/resources/document/roles/viewer`, { permissions: ['read', 'write'] }));
    expect(await allowBulk()).toEqual([true, true, false]);
  });

  it('answers the same from the store with Cache-Control: no-cache', async () => {
    const cached = await allowBulk();
    expect(await allowBulk({ 'cache-control': 'no-cache' })).toEqual(cached);
    const single = await s.api.request('POST', '/allowed', check, { 'cache-control': 'no-cache' });
    expect(single.body).toEqual({ allow: cached[0] });
  });
});
