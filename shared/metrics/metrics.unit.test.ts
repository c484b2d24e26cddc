import { Scrape } from '../../test/support/prometheus';
import { Metrics } from './metrics';

const scrape = async (metrics: Metrics) => new Scrape(await metrics.scrape());

describe('Metrics', () => {
  it('reports the counters kept in place, by their labels, at each scrape', async () => {
    const metrics = new Metrics();
    metrics.http.record('/allowed', 'POST', 200, 0.002);
    metrics.http.record('/allowed', 'POST', 200, 0.004);
    metrics.http.record('/allowed', 'POST', 422, 0.001);
    metrics.http.record('unmatched', 'GET', 404, 0.0001);
    const single = metrics.checks.decisions('/allowed');
    single.allow += 2;
    single.deny++;
    metrics.checks.cache.hits += 5;
    metrics.checks.cache.misses += 1;
    metrics.copies.eventsCopied += 1000;
    metrics.copies.running = 1;

    let s = await scrape(metrics);
    expect(s.value('rebac_http_requests_total', { route: '/allowed', method: 'POST', status: '200' })).toBe(2);
    expect(s.value('rebac_http_requests_total', { route: '/allowed', method: 'POST', status: '422' })).toBe(1);
    expect(s.value('rebac_http_request_duration_seconds_count', { route: '/allowed', method: 'POST', status: '200' })).toBe(2);
    expect(s.value('rebac_http_request_duration_seconds_bucket', { route: '/allowed', status: '200', le: '0.0025' })).toBe(1);
    expect(s.value('rebac_http_request_duration_seconds_sum', { route: '/allowed', status: '200' })).toBeCloseTo(0.006);
    expect(s.value('rebac_http_requests_total', { route: 'unmatched', method: 'GET', status: '404' })).toBe(1);
    expect(s.value('rebac_check_decisions_total', { endpoint: '/allowed', decision: 'allow' })).toBe(2);
    expect(s.value('rebac_check_decisions_total', { endpoint: '/allowed', decision: 'deny' })).toBe(1);
    expect(s.value('rebac_decision_cache_lookups_total', { result: 'hit' })).toBe(5);
    expect(s.value('rebac_decision_cache_lookups_total', { result: 'miss' })).toBe(1);
    expect(s.value('rebac_copy_events_copied_total')).toBe(1000);
    expect(s.value('rebac_copy_tasks_running')).toBe(1);

    // Counted since the last scrape, reported at the next: counters only grow.
    single.allow++;
    metrics.http.record('/allowed', 'POST', 200, 0.002);
    metrics.copies.running = 0;
    s = await scrape(metrics);
    expect(s.value('rebac_check_decisions_total', { endpoint: '/allowed', decision: 'allow' })).toBe(3);
    expect(s.value('rebac_http_requests_total', { route: '/allowed', method: 'POST', status: '200' })).toBe(3);
    expect(s.value('rebac_copy_tasks_running')).toBe(0);
  });

  it("reports each follower's position and its lag behind the log's head; a standby reports neither", async () => {
    const metrics = new Metrics();
    let head = 120;
    let standby = false;
    metrics.readLogHead(async () => head);
    metrics.followLog('read-models', () => 100);
    metrics.followLog('other', () => (standby ? null : 120));

    let s = await scrape(metrics);
    expect(s.value('rebac_event_log_head_position')).toBe(120);
    expect(s.value('rebac_projection_position', { projection: 'read-models' })).toBe(100);
    expect(s.value('rebac_projection_lag', { projection: 'read-models' })).toBe(20);
    expect(s.value('rebac_projection_lag', { projection: 'other' })).toBe(0);

    head = 150;
    standby = true;
    s = await scrape(metrics);
    expect(s.value('rebac_projection_lag', { projection: 'read-models' })).toBe(50);
    expect(s.has('rebac_projection_lag', { projection: 'other' })).toBe(false);
    expect(s.has('rebac_projection_position', { projection: 'other' })).toBe(false);
  });

  it('reports NaN for what a store that cannot be read would tell, never a stale or made-up value', async () => {
    const metrics = new Metrics();
    let down = false;
    metrics.readLogHead(async () => (down ? Promise.reject(new Error('store down')) : 10));
    metrics.countOpenTasks(async () => (down ? Promise.reject(new Error('store down')) : 3));
    metrics.followLog('read-models', () => 7);
    let s = await scrape(metrics);
    expect(s.value('rebac_projection_lag', { projection: 'read-models' })).toBe(3);
    expect(s.value('rebac_task_queue_depth')).toBe(3);

    down = true;
    s = await scrape(metrics);
    expect(s.value('rebac_event_log_head_position')).toBeNaN();
    expect(s.value('rebac_projection_lag', { projection: 'read-models' })).toBeNaN();
    expect(s.value('rebac_task_queue_depth')).toBeNaN();
    expect(s.value('rebac_projection_position', { projection: 'read-models' })).toBe(7);
  });

  it('shows no log or task queue family in a service that has no source for it', async () => {
    const s = await scrape(new Metrics());
    for (const name of ['rebac_event_log_head_position', 'rebac_projection_position', 'rebac_projection_lag', 'rebac_task_queue_depth']) {
      expect(s.has(name)).toBe(false);
      expect(s.text).not.toContain(`# TYPE ${name} `);
    }
    expect(s.has('rebac_http_requests_total')).toBe(false); // no request yet: a family without samples
    expect(s.text).toContain('# TYPE rebac_http_requests_total counter');
  });

  it("observes the event store's append latency and group commit sizes", async () => {
    const metrics = new Metrics();
    metrics.eventStore.appended(0.003);
    metrics.eventStore.appended(0.004);
    metrics.eventStore.committed(2, 9);
    const s = await scrape(metrics);
    expect(s.value('rebac_event_store_append_duration_seconds_count')).toBe(2);
    expect(s.value('rebac_event_store_append_duration_seconds_bucket', { le: '0.005' })).toBe(2);
    expect(s.value('rebac_event_store_batch_appends_count')).toBe(1);
    expect(s.value('rebac_event_store_batch_appends_sum')).toBe(2);
    expect(s.value('rebac_event_store_batch_events_sum')).toBe(9);
    expect(s.value('rebac_event_store_batch_events_bucket', { le: '16' })).toBe(1);
    expect(s.value('rebac_event_store_batch_events_bucket', { le: '4' })).toBe(0);
  });

  it("adds the library's default process metrics, once per process, to every service's scrape", async () => {
    const [a, b] = [new Metrics(), new Metrics()];
    for (const s of [await scrape(a), await scrape(b)]) {
      expect(s.has('process_cpu_user_seconds_total')).toBe(true);
      expect(s.has('nodejs_eventloop_lag_seconds')).toBe(true);
      expect(s.has('nodejs_heap_size_used_bytes')).toBe(true);
      expect(s.samples.filter((x) => x.name === 'process_cpu_user_seconds_total')).toHaveLength(1);
    }
  });
});
