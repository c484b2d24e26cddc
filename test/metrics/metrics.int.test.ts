import { bulkFeature } from '../../app/features/bulk';
import { environmentCopyFeature } from '../../app/features/environment-copy';
import { grantsFeature } from '../../app/features/grants';
import { gatedQueue } from '../copy/support/queues';
import { FACTS, loadFolderFileExample, startTestServer, type ApiClient, type TestServer } from '../support/embedded-server';
import { Scrape } from '../support/prometheus';

/**
 * `GET /metrics` of the one-process service: each family moves under a small
 * load (requests, checks with cache hits, writes, a copy), labelled by route
 * templates, never by raw paths.
 */
describe('GET /metrics on the embedded service', () => {
  const queue = gatedQueue();
  let server: TestServer;
  let envApi: ApiClient;
  let before: Scrape;

  beforeAll(async () => {
    server = await startTestServer({ features: [environmentCopyFeature({ queue }), grantsFeature(), bulkFeature()] });
    before = await Scrape.of(server.url);
    envApi = await server.api.environmentClient();
    await loadFolderFileExample(envApi);
  });
  afterAll(async () => {
    queue.open();
    await server?.close();
  });

  it('is served without a key, as Prometheus text, with the default process metrics, and stays out of /openapi.json', async () => {
    const scrape = await Scrape.of(server.url);
    expect(scrape.has('process_cpu_user_seconds_total')).toBe(true);
    expect(scrape.has('nodejs_eventloop_lag_seconds')).toBe(true);
    const openapi = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(openapi.paths)).not.toContain('/metrics');
  });

  it('counts requests by route template, method and status, with their latency', async () => {
    await envApi.get(`${FACTS}/users/alice`);
    await envApi.get(`${FACTS}/users/nobody-${Date.now()}`); // 404 from the route
    expect((await server.api.get('/v2/facts/default/no-such-env/users')).status).toBe(404); // before any route took it
    await envApi.get(`/no/such/path/${Date.now()}`);
    const after = await Scrape.of(server.url);

    const user = { route: '/v2/facts/{proj_id}/{env_id}/users/{user_id}', method: 'GET' };
    expect(after.value('rebac_http_requests_total', { ...user, status: '200' })).toBeGreaterThanOrEqual(1);
    expect(after.value('rebac_http_requests_total', { ...user, status: '404' })).toBeGreaterThanOrEqual(1);
    expect(after.value('rebac_http_request_duration_seconds_count', { ...user, status: '200' })).toBeGreaterThanOrEqual(1);
    expect(after.value('rebac_http_request_duration_seconds_sum', { ...user, status: '200' })).toBeGreaterThan(0);
    expect(after.value('rebac_http_requests_total', { route: '/v2/facts/{proj_id}/{env_id}/users', method: 'GET', status: '404' })).toBe(1);
    expect(after.value('rebac_http_requests_total', { route: 'unmatched', method: 'GET', status: '404' })).toBe(1);
    // The writes of the example, by their templates.
    expect(
      after.sum('rebac_http_requests_total', { route: '/v2/schema/{proj_id}/{env_id}/resources', method: 'POST', status: '200' }),
    ).toBe(2);
    expect(after.value('rebac_http_requests_total', { route: '/metrics', method: 'GET', status: '200' })).toBeGreaterThanOrEqual(1);

    // Bounded: no label holds a raw path (an id, a key, a query).
    for (const route of after.labelValues('rebac_http_requests_total', 'route')) {
      expect(route === 'unmatched' || route.startsWith('/')).toBe(true);
      expect(route).not.toMatch(/alice|nobody|no-such|production|\?/);
    }
  });

  it('counts check decisions by endpoint, and the decision cache hits and misses', async () => {
    const start = await Scrape.of(server.url);
    const check = { user: 'alice', action: 'write', resource: 'file:readme' };
    expect((await envApi.post('/allowed', check)).body).toEqual({ allow: true });
    expect((await envApi.post('/allowed', check)).body).toEqual({ allow: true });
    expect((await envApi.post('/allowed', { ...check, user: 'bob' })).body).toEqual({ allow: false });
    const bulk = await envApi.post('/allowed/bulk', [check, { ...check, user: 'bob' }, { ...check, user: 'carol' }]);
    expect(bulk.body).toEqual({ allow: [{ allow: true }, { allow: false }, { allow: false }] });
    const after = await Scrape.of(server.url);

    const moved = (name: string, labels: Record<string, string>) => after.sum(name, labels) - start.sum(name, labels);
    expect(moved('rebac_check_decisions_total', { endpoint: '/allowed', decision: 'allow' })).toBe(2);
    expect(moved('rebac_check_decisions_total', { endpoint: '/allowed', decision: 'deny' })).toBe(1);
    expect(moved('rebac_check_decisions_total', { endpoint: '/allowed/bulk', decision: 'allow' })).toBe(1);
    expect(moved('rebac_check_decisions_total', { endpoint: '/allowed/bulk', decision: 'deny' })).toBe(2);
    // alice: miss, hit; bob: miss; bulk: alice and bob hit, carol misses (no write in between: the position stayed).
    expect(moved('rebac_decision_cache_lookups_total', { result: 'hit' })).toBe(3);
    expect(moved('rebac_decision_cache_lookups_total', { result: 'miss' })).toBe(3);
    expect(moved('rebac_http_requests_total', { route: '/allowed', method: 'POST', status: '200' })).toBe(3);
    // The three single checks were plain: the fast lane answered them (bulk checks are never its).
    expect(moved('rebac_check_fast_lane_requests_total', { outcome: 'answered' })).toBe(3);
    expect(moved('rebac_check_fast_lane_requests_total', { outcome: 'handed_over' })).toBe(0);
  });

  it("observes append latency and group commit sizes, and the read models' position and lag", async () => {
    const after = await Scrape.of(server.url);
    const appends = after.value('rebac_event_store_append_duration_seconds_count');
    expect(appends).toBeGreaterThan(before.sum('rebac_event_store_append_duration_seconds_count'));
    expect(after.value('rebac_event_store_append_duration_seconds_sum')).toBeGreaterThan(0);
    expect(after.value('rebac_event_store_batch_appends_count')).toBeGreaterThan(0);
    expect(after.value('rebac_event_store_batch_appends_sum')).toBe(appends); // every append of the load was stored
    expect(after.value('rebac_event_store_batch_events_sum')).toBeGreaterThanOrEqual(after.value('rebac_event_store_batch_appends_sum'));

    const head = after.value('rebac_event_log_head_position');
    expect(head).toBeGreaterThan(before.value('rebac_event_log_head_position'));
    expect(head).toBe(await server.service.eventStore.headPosition());
    // Every write waited for the read models (read-your-writes): nothing is behind.
    expect(after.value('rebac_projection_position', { projection: 'read-models' })).toBe(head);
    expect(after.value('rebac_projection_lag', { projection: 'read-models' })).toBe(0);
  });

  it('counts the copies requested and not finished, and the events copied', async () => {
    const start = await Scrape.of(server.url);
    expect(start.value('rebac_task_queue_depth')).toBe(0);
    const requested = await server.api.post('/v2/projects/default/envs/production/copy/async', {
      target_env: { new: { key: 'metrics-copy', name: 'Copy' } },
      scope: { facts: true },
    });
    expect(requested.status).toBe(202);
    const held = await Scrape.of(server.url);
    expect(held.value('rebac_task_queue_depth')).toBe(1); // the queue holds its delivery
    expect(held.value('rebac_copy_events_copied_total')).toBe(start.value('rebac_copy_events_copied_total'));

    queue.open();
    const result = `/v2/projects/default/envs/production/copy/async/${requested.body.task_id}/result`;
    for (let i = 0; i < 200 && (await server.api.get(result)).body.status === 'processing'; i++)
      await new Promise((r) => setTimeout(r, 25));
    const done = await Scrape.of(server.url);
    expect((await server.api.get(result)).body.status).toBe('success');
    expect(done.value('rebac_task_queue_depth')).toBe(0);
    expect(done.value('rebac_copy_events_copied_total') - start.value('rebac_copy_events_copied_total')).toBeGreaterThan(10);
    expect(done.value('rebac_copy_tasks_running')).toBe(0);
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  const token = 'metrics-token-0123456789abcdef';
  let server: TestServer;
  beforeAll(async () => (server = await startTestServer({ env: { METRICS_TOKEN: token } })));
  afterAll(() => server?.close());

  it('answers only the token, and an API key is not the token', async () => {
    expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${server.adminKey}` } })).status).toBe(401);
    expect((await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${token}x` } })).status).toBe(401);
    const scrape = await Scrape.of(server.url, { authorization: `Bearer ${token}` });
    expect(scrape.has('rebac_projection_lag', { projection: 'read-models' })).toBe(true);
    // Still not behind an API key: the rest of the API is.
    expect((await fetch(`${server.url}/v2/api-key/scope`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
  });
});
