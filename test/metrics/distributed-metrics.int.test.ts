import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { embeddedFeatures } from '../../app/features';
import { startCommandService, type CommandService } from '../../app/start-command-service';
import { startProjectionService, type ProjectionService } from '../../app/start-projection-service';
import { startTaskService, type TaskService } from '../../app/start-task-service';
import { loadConfig } from '../../shared/config';
import { ApiClient, FACTS, loadFolderFileExample } from '../support/embedded-server';
import { Scrape } from '../support/prometheus';

/**
 * `GET /metrics` of the three services started apart (in this process, over
 * one SQLite log and read-model file, the task queue in the task service):
 * the command service on its API port, the projection and task services on
 * their health ports, all behind METRICS_TOKEN here.
 */
describe('GET /metrics of the separate services', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rebac-metrics-distributed-'));
  const adminKey = 'metrics-distributed-admin-key-0123';
  const token = 'metrics-distributed-token-0123456789';
  const auth = { authorization: `Bearer ${token}` };
  const config = loadConfig({
    PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    ADMIN_API_KEY: adminKey,
    SECRETS_KEY: Buffer.alloc(32, 'metrics').toString('base64'),
    METRICS_TOKEN: token,
    READ_YOUR_WRITES_TIMEOUT_MS: '300',
  });
  const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  let projection: ProjectionService;
  let command: CommandService;
  let task: TaskService;
  let api: ApiClient;

  async function until(what: string, condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
    for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
      if (await condition()) return;
    }
    throw new Error(`timed out waiting until ${what}`);
  }

  beforeAll(async () => {
    projection = await startProjectionService(config, logger, embeddedFeatures());
    command = await startCommandService(config, logger, embeddedFeatures());
    task = await startTaskService(config, logger, embeddedFeatures());
    await until('the command service is ready', async () => (await fetch(`${command.url}/readyz`)).status === 200);
    api = new ApiClient(command.url, adminKey);
    await loadFolderFileExample(await api.environmentClient());
  });
  afterAll(async () => {
    await command?.close();
    await task?.close();
    await projection?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('each service answers only the token', async () => {
    for (const url of [command.url, projection.url, task.url]) {
      expect((await fetch(`${url}/metrics`)).status).toBe(401);
      expect((await Scrape.of(url, auth)).has('process_cpu_user_seconds_total')).toBe(true);
    }
  });

  it('the projection service reports its position and lag; the command service the polled checkpoint', async () => {
    const onProjection = await Scrape.of(projection.url, auth);
    const head = onProjection.value('rebac_event_log_head_position');
    expect(head).toBeGreaterThan(0);
    expect(onProjection.value('rebac_projection_position', { projection: 'read-models' })).toBe(head);
    expect(onProjection.value('rebac_projection_lag', { projection: 'read-models' })).toBe(0);
    // The projection service serves no API: no request families moved there.
    expect(onProjection.has('rebac_http_requests_total')).toBe(false);

    const onCommand = await Scrape.of(command.url, auth);
    expect(onCommand.value('rebac_projection_lag', { projection: 'read-models' })).toBe(
      onCommand.value('rebac_event_log_head_position') - onCommand.value('rebac_projection_position', { projection: 'read-models' }),
    );
    expect(onCommand.sum('rebac_http_requests_total', { route: '/v2/facts/{proj_id}/{env_id}/resource_instances', method: 'POST' })).toBe(
      2,
    );
    expect(onCommand.value('rebac_event_store_append_duration_seconds_count')).toBeGreaterThan(10);
  });

  it('the task service reports the events a copy wrote, and no open task once it is done', async () => {
    const before = await Scrape.of(task.url, auth);
    expect(before.value('rebac_task_queue_depth')).toBe(0);
    const copied = await api.post('/v2/projects/default/envs/production/copy/async?wait=30', {
      target_env: { new: { key: 'metrics-copy', name: 'Copy' } },
      scope: { facts: true },
    });
    expect(copied.body.status).toBe('success');
    const after = await Scrape.of(task.url, auth);
    expect(after.value('rebac_copy_events_copied_total') - before.value('rebac_copy_events_copied_total')).toBeGreaterThan(10);
    expect(after.value('rebac_copy_tasks_running')).toBe(0);
    expect(after.value('rebac_task_queue_depth')).toBe(0);
    // The copy's appends are the task service's own.
    expect(after.value('rebac_event_store_batch_events_sum')).toBeGreaterThan(before.value('rebac_event_store_batch_events_sum'));
  });

  it('the command service shows the read models falling behind while the projection service is down, and catching up after', async () => {
    const lag = async () => (await Scrape.of(command.url, auth)).value('rebac_projection_lag', { projection: 'read-models' });
    await until('the command service sees no lag', async () => (await lag()) === 0);
    await projection.close();

    const write = await api.post(`/v2/projects`, { key: 'while-down', name: 'While down' });
    expect(write.status).toBe(503); // stored, not yet projected
    expect(await lag()).toBeGreaterThanOrEqual(1);

    projection = await startProjectionService(config, logger, embeddedFeatures());
    await until('the lag is gone', async () => (await lag()) === 0);
    expect((await api.get('/v2/projects/while-down')).status).toBe(200);
    expect((await api.get(`${FACTS}/users`)).status).toBe(200);
  });
});
