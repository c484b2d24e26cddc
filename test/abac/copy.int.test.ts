import { startTestServer, type ApiClient, type TestServer } from '../support/embedded-server';

/** Environment copies take condition sets and set rules with the policy; user_sets / resource_sets filters select them. */
describe('copies of condition sets and set rules', () => {
  let server: TestServer;
  let api: ApiClient;
  const source = '/v2/schema/default/production';
  const facts = '/v2/facts/default/production';
  const copy = (body: Record<string, unknown>) => api.post('/v2/projects/default/envs/production/copy', body);
  const keys = (items: Array<{ key: string }>) => items.map((i) => i.key).sort();
  const ok = async (p: Promise<{ status: number; body: any }>) => {
    const r = await p;
    if (r.status >= 300) throw new Error(`${r.status}: ${JSON.stringify(r.body)}`);
    return r.body;
  };

  beforeAll(async () => {
    server = await startTestServer();
    api = server.api;
    await ok(api.post(`${source}/resources`, { key: 'doc', name: 'Doc', actions: { read: {} } }));
    await ok(
      api.post(`${source}/condition_sets`, { key: 'adults', name: 'Adults', conditions: { 'user.age': { 'greater-than-equals': 18 } } }),
    );
    await ok(
      api.post(`${source}/condition_sets`, { key: 'eu', name: 'EU', parent_id: 'adults', conditions: { 'user.region': { equals: 'eu' } } }),
    );
    await ok(api.post(`${source}/condition_sets`, { key: 'paris', name: 'Paris', parent_id: 'eu' }));
    await ok(api.post(`${source}/condition_sets`, { key: 'open', name: 'Open', type: 'resourceset', resource_id: 'doc' }));
    await ok(api.post(`${facts}/set_rules`, { user_set: 'adults', permission: 'doc:read', resource_set: 'open' }));
    await ok(api.post(`${facts}/set_rules`, { user_set: 'paris', permission: 'doc:read', resource_set: 'open' }));
  });
  afterAll(() => server.close());

  it('a copy to a new environment takes every set and rule', async () => {
    expect((await copy({ target_env: { new: { key: 'all', name: 'All' } } })).status).toBe(200);
    expect(keys(await ok(api.get('/v2/schema/default/all/condition_sets')))).toEqual(['adults', 'eu', 'open', 'paris']);
    expect((await ok(api.get('/v2/schema/default/all/condition_sets/paris/ancestors'))).map((s: any) => s.key)).toEqual(['eu', 'adults']);
    expect((await ok(api.get('/v2/facts/default/all/set_rules'))).map((r: any) => r.user_set).sort()).toEqual(['adults', 'paris']);
  });

  it('user_sets exclude takes the set, its descendants and their rules', async () => {
    expect((await copy({ target_env: { new: { key: 'no-eu', name: 'No EU' } }, scope: { user_sets: { exclude: ['eu'] } } })).status).toBe(
      200,
    );
    expect(keys(await ok(api.get('/v2/schema/default/no-eu/condition_sets')))).toEqual(['adults', 'open']);
    expect((await ok(api.get('/v2/facts/default/no-eu/set_rules'))).map((r: any) => r.user_set)).toEqual(['adults']);
  });

  it('resource_sets include keeps only the sets named, and the rules on them', async () => {
    expect(
      (await copy({ target_env: { new: { key: 'none', name: 'None' } }, scope: { resource_sets: { include: ['nothing*'] } } })).status,
    ).toBe(200);
    expect(keys(await ok(api.get('/v2/schema/default/none/condition_sets')))).toEqual(['adults', 'eu', 'paris']);
    expect(await ok(api.get('/v2/facts/default/none/set_rules'))).toEqual([]);
  });

  it('a copy into an existing environment merges them, and reports a differing set as a conflict', async () => {
    await ok(api.post('/v2/projects/default/envs', { key: 'other', name: 'Other' }));
    await ok(api.post('/v2/schema/default/other/resources', { key: 'doc', name: 'Doc', actions: { read: {} } }));
    await ok(
      api.post('/v2/schema/default/other/condition_sets', {
        key: 'adults',
        name: 'Adults',
        conditions: { 'user.age': { 'greater-than-equals': 21 } },
      }),
    );
    const refused = await copy({ target_env: { existing: 'other' } });
    expect(refused.status).toBe(409);
    expect(JSON.stringify(refused.body)).toContain('adults');
    expect((await copy({ target_env: { existing: 'other' }, conflict_strategy: 'overwrite' })).status).toBe(200);
    expect((await ok(api.get('/v2/schema/default/other/condition_sets/adults'))).conditions).toEqual({
      'user.age': { 'greater-than-equals': 18 },
    });
    expect(keys(await ok(api.get('/v2/schema/default/other/condition_sets')))).toEqual(['adults', 'eu', 'open', 'paris']);
    expect(await ok(api.get('/v2/facts/default/other/set_rules'))).toHaveLength(2);
  });
});
