import { startTestServer, type ApiClient, type TestServer } from '../support/embedded-server';

/** Proxy configs (Permit's API proxy): stored, read, updated, deleted and copied; nothing is proxied. */
describe('proxy configs', () => {
  let server: TestServer;
  let api: ApiClient;
  const facts = '/v2/facts/default/production';
  const ok = async (p: Promise<{ status: number; body: any }>) => {
    const r = await p;
    if (r.status >= 300) throw new Error(`${r.status}: ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const rule = (url: string, http_method: string, extra: Record<string, unknown> = {}) => ({
    url,
    http_method,
    resource: 'invoice',
    ...extra,
  });
  const stored = (url: string, http_method: string, extra: Record<string, unknown> = {}) => ({
    url,
    url_type: null,
    http_method,
    resource: 'invoice',
    headers: {},
    action: null,
    priority: null,
    ...extra,
  });
  const invoices = 'https://billing.example.com/v1/invoices';
  const refunds = 'https://billing.example.com/v1/refunds';

  beforeAll(async () => {
    server = await startTestServer();
    api = server.api;
  });
  afterAll(() => server.close());

  it('lives as Permit\u2019s ProxyConfigRead: created, read by key or id, updated, listed, deleted', async () => {
    const created = await ok(
      api.post(`${facts}/proxy_configs`, {
        key: 'billing',
        name: 'Billing API',
        secret: 'tok-1',
        mapping_rules: [rule(invoices, 'get', { action: 'read' }), rule(refunds, 'post', { url_type: null, headers: null, priority: 3 })],
      }),
    );
    expect(created).toMatchObject({
      key: 'billing',
      name: 'Billing API',
      auth_mechanism: 'Bearer',
      secret: 'tok-1',
      proxied: false,
      mapping_rules: [stored(invoices, 'get', { action: 'read' }), stored(refunds, 'post', { priority: 3 })],
    });
    expect(Object.keys(created).sort()).toEqual(
      [
        'auth_mechanism',
        'created_at',
        'environment_id',
        'id',
        'key',
        'mapping_rules',
        'name',
        'organization_id',
        'project_id',
        'proxied',
        'secret',
        'updated_at',
      ].sort(),
    );
    expect(await ok(api.get(`${facts}/proxy_configs/billing`))).toEqual(created);
    expect(await ok(api.get(`${facts}/proxy_configs/${created.id}`))).toEqual(created);

    // The provider's update: should_delete for each prior rule, then the planned ones; merged by url and http_method.
    const updated = await ok(
      api.patch(`${facts}/proxy_configs/billing`, {
        name: 'Billing',
        auth_mechanism: 'Basic',
        secret: 'me:pw',
        mapping_rules: [
          rule(invoices, 'get', { should_delete: true }),
          rule(refunds, 'post', { should_delete: true }),
          rule(refunds, 'post'),
          rule(invoices, 'get', { action: 'list' }),
        ],
      }),
    );
    expect(updated).toMatchObject({
      id: created.id,
      name: 'Billing',
      auth_mechanism: 'Basic',
      secret: 'me:pw',
      mapping_rules: [stored(refunds, 'post'), stored(invoices, 'get', { action: 'list' })],
    });
    // A rule it does not name stays; one it names is replaced in place; a new one goes at the end.
    const merged = await ok(
      api.patch(`${facts}/proxy_configs/${created.id}`, {
        mapping_rules: [rule(refunds, 'post', { action: 'refund' }), rule(refunds, 'get')],
      }),
    );
    expect(merged.mapping_rules).toEqual([
      stored(refunds, 'post', { action: 'refund' }),
      stored(invoices, 'get', { action: 'list' }),
      stored(refunds, 'get'),
    ]);
    expect(merged.secret).toBe('me:pw');
    // Headers: the secret is the header values.
    const headers = await ok(api.patch(`${facts}/proxy_configs/billing`, { auth_mechanism: 'Headers', secret: { 'X-Api-Key': 'k' } }));
    expect(headers).toMatchObject({ auth_mechanism: 'Headers', secret: { 'X-Api-Key': 'k' } });

    expect((await ok(api.get(`${facts}/proxy_configs`))).map((c: any) => c.key)).toEqual(['billing']);
    expect((await api.delete(`${facts}/proxy_configs/billing`)).status).toBe(204);
    expect((await api.get(`${facts}/proxy_configs/billing`)).status).toBe(404);
    expect((await api.delete(`${facts}/proxy_configs/billing`)).status).toBe(404);
    expect(await ok(api.get(`${facts}/proxy_configs`))).toEqual([]);
  });

  it('refuses bad input by name, and appends nothing', async () => {
    await ok(api.post(`${facts}/proxy_configs`, { key: 'pay', name: 'Pay', secret: 'tok' }));
    const before = await server.service.eventStore.headPosition();
    const refused = async (method: 'post' | 'patch', path: string, body: unknown, status: number, loc?: Array<string | number>) => {
      const answer = await api[method](path, body);
      expect({ status: answer.status, body: answer.body }).toMatchObject({ status });
      if (loc) expect(answer.body.detail.map((d: any) => d.loc)).toContainEqual(loc);
    };
    await refused('post', `${facts}/proxy_configs`, { key: 'x', name: 'X', secret: 't', surprise: 1 }, 422, ['body', 'surprise']);
    await refused('post', `${facts}/proxy_configs`, { key: 'x', name: 'X' }, 422, ['body', 'secret']);
    await refused('post', `${facts}/proxy_configs`, { key: 'x', name: 'X', secret: null }, 422, ['body', 'secret']);
    await refused('post', `${facts}/proxy_configs`, { key: 'x y', name: 'X', secret: 't' }, 422, ['body', 'key']);
    await refused('post', `${facts}/proxy_configs`, { key: 'x', name: 'X', secret: 't', auth_mechanism: 'Digest' }, 422, [
      'body',
      'auth_mechanism',
    ]);
    await refused('post', `${facts}/proxy_configs`, { key: 'x', name: 'X', secret: 'no-colon', auth_mechanism: 'Basic' }, 422, [
      'body',
      'secret',
    ]);
    await refused('post', `${facts}/proxy_configs`, { key: 'x', name: 'X', secret: 'str', auth_mechanism: 'Headers' }, 422, [
      'body',
      'secret',
    ]);
    await refused('post', `${facts}/proxy_configs`, { key: 'x', name: 'X', secret: { a: 'b' } }, 422, ['body', 'secret']);
    await refused(
      'post',
      `${facts}/proxy_configs`,
      { key: 'x', name: 'X', secret: 't', mapping_rules: [rule(invoices, 'get', { extra: true })] },
      422,
      ['body', 'mapping_rules', 0, 'extra'],
    );
    await refused(
      'post',
      `${facts}/proxy_configs`,
      { key: 'x', name: 'X', secret: 't', mapping_rules: [rule(invoices, 'get', { should_delete: true })] },
      422,
      ['body', 'mapping_rules', 0, 'should_delete'],
    );
    await refused('post', `${facts}/proxy_configs`, { key: 'x', name: 'X', secret: 't', mapping_rules: [rule(invoices, 'fetch')] }, 422, [
      'body',
      'mapping_rules',
      0,
      'http_method',
    ]);
    await refused(
      'post',
      `${facts}/proxy_configs`,
      { key: 'x', name: 'X', secret: 't', mapping_rules: [rule(invoices, 'get'), rule(invoices, 'get', { action: 'other' })] },
      422,
      ['body', 'mapping_rules', 1],
    );
    await refused('post', `${facts}/proxy_configs`, { key: 'pay', name: 'Again', secret: 't' }, 409);
    await refused('patch', `${facts}/proxy_configs/pay`, { key: 'renamed' }, 422, ['body', 'key']);
    // The stored secret does not fit the new mechanism: a rule on the current state (400), not a body that contradicts itself.
    await refused('patch', `${facts}/proxy_configs/pay`, { auth_mechanism: 'Headers' }, 400);
    await refused('patch', `${facts}/proxy_configs/pay`, { auth_mechanism: 'Headers', secret: 'str' }, 422, ['body', 'secret']);
    await refused('patch', `${facts}/proxy_configs/nowhere`, { name: 'N' }, 404);
    expect(await server.service.eventStore.headPosition()).toBe(before);
    // An explicit null is the member left out: nothing changes but the version.
    const same = await ok(api.patch(`${facts}/proxy_configs/pay`, { name: null, secret: null, mapping_rules: null, auth_mechanism: null }));
    expect(same).toMatchObject({ name: 'Pay', secret: 'tok', auth_mechanism: 'Bearer', mapping_rules: [] });
  });

  it('the audit log tells a secret was set, never what it is', async () => {
    await ok(api.post(`${facts}/proxy_configs`, { key: 'audited', name: 'A', secret: 'very-secret-token' }));
    await ok(api.patch(`${facts}/proxy_configs/audited`, { secret: 'another-secret-token' }));
    const log = await ok(api.get('/v2/events/default/production'));
    const entries = log.data.filter((e: any) => String(e.type).startsWith('ProxyConfig'));
    expect(entries.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(log)).not.toContain('secret-token');
  });

  it('environment copies carry them: to a new environment, and merged into an existing one', async () => {
    await ok(
      api.post(`${facts}/proxy_configs`, {
        key: 'crm',
        name: 'CRM',
        secret: { 'X-Key': 'v' },
        auth_mechanism: 'Headers',
        mapping_rules: [rule(invoices, 'get')],
      }),
    );
    const copy = (body: Record<string, unknown>) => api.post('/v2/projects/default/envs/production/copy', body);
    expect((await copy({ target_env: { new: { key: 'copied', name: 'Copied' } } })).status).toBe(200);
    const copied = await ok(api.get('/v2/facts/default/copied/proxy_configs/crm'));
    const original = await ok(api.get(`${facts}/proxy_configs/crm`));
    expect(copied).toMatchObject({
      key: 'crm',
      secret: { 'X-Key': 'v' },
      auth_mechanism: 'Headers',
      mapping_rules: original.mapping_rules,
    });
    expect(copied.id).not.toBe(original.id);

    await ok(api.post('/v2/projects/default/envs', { key: 'target', name: 'Target' }));
    await ok(api.post('/v2/facts/default/target/proxy_configs', { key: 'crm', name: 'Other CRM', secret: 'tok' }));
    await ok(api.post('/v2/facts/default/target/proxy_configs', { key: 'own', name: 'Own', secret: 'tok' }));
    const refused = await copy({ target_env: { existing: 'target' } });
    expect(refused.status).toBe(409);
    expect(JSON.stringify(refused.body)).toContain('crm');
    expect((await copy({ target_env: { existing: 'target' }, conflict_strategy: 'overwrite' })).status).toBe(200);
    const target = await ok(api.get('/v2/facts/default/target/proxy_configs'));
    expect(target.map((c: any) => c.key).sort()).toEqual(['audited', 'crm', 'own', 'pay']);
    expect(target.find((c: any) => c.key === 'crm')).toMatchObject({
      name: 'CRM',
      secret: { 'X-Key': 'v' },
      mapping_rules: original.mapping_rules,
    });
  });

  it('is in the OpenAPI document', async () => {
    const doc = await ok(api.get('/openapi.json'));
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/v2/facts/{proj_id}/{env_id}/proxy_configs',
        '/v2/facts/{proj_id}/{env_id}/proxy_configs/{proxy_config_id}',
      ]),
    );
  });
});
