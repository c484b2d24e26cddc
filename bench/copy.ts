/**
 * Benchmark: copy an environment of 1,000,000 events (policy + facts) with
 * `scope: {facts: true}` and print the copy's throughput and the process's
 * peak memory, with the task's progress while it runs.
 *
 *   node -r @swc-node/register bench/copy.ts            # 1,000,000 events
 *   COPY_BENCH_EVENTS=200000 node -r @swc-node/register bench/copy.ts
 *   COPY_BENCH_MODE=services node -r @swc-node/register bench/copy.ts
 *
 * Default mode (`embedded`): everything in one process, as the embedded service
 * runs (`npm start`), the copy sharing the machine with the projections of
 * what it writes. `services` mode: as deployed in distributed mode, the command,
 * task and projection services each in its own process
 * (bench/lib/copy-service.ts) over the same data directory: the task service
 * copies while the projection service projects what it writes, and the
 * command service answers the API.
 *
 * The source is appended straight into its stream through the event store port
 * (fast), then the projections catch up before the copy starts (in services
 * mode, the embedded service that did this stops and the three start on its
 * data). Only the copy feature runs, so the figures are the copy's, not other
 * projections'.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { ADMIN_KEY_FILE } from '../command-service/bootstrap';
import { startEmbedded } from '../app/embedded';
import { loadConfig, type Config } from '../shared/config';
import { streams } from '../shared/events';
import { environmentCopyFeature } from '../app/features/environment-copy';
import { syntheticEnvironment } from '../test/copy/support/synthetic-environment';
import { sqliteEventsPath } from '../app/stores';
import { SqliteEventStore } from '../shared/eventstore/sqlite-event-store';
import type { RecordedEvent } from '../shared/events';
import { cpuSecondsOf, freePort, memoryOf, sleep, spawnNode, type NodeChild } from './lib/child';
import { HttpClient } from './lib/http';
import { npmStartEnv } from './lib/service';

const TOTAL = Number(process.env.COPY_BENCH_EVENTS ?? 1_000_000);
const MODE = process.env.COPY_BENCH_MODE ?? 'embedded';
if (MODE !== 'embedded' && MODE !== 'services') throw new Error(`COPY_BENCH_MODE: embedded or services, not ${MODE}`);
const rate = (n: number, ms: number) => `${Math.round((n / ms) * 1000).toLocaleString('en-US')} events/s`;

class PeakRss {
  peak = process.memoryUsage().rss;
  private readonly timer = setInterval(() => this.sample(), 25);
  sample(): void {
    this.peak = Math.max(this.peak, process.memoryUsage().rss);
  }
  reset(): void {
    this.peak = process.memoryUsage().rss;
  }
  stop(): void {
    clearInterval(this.timer);
  }
}

/** Where the copy runs, as the measurement sees it: the API, the task's log, and what it costs the machine. */
interface CopyHost {
  call(method: string, path: string, body?: unknown): Promise<any>;
  taskEvents(taskId: string): Promise<RecordedEvent[]>;
  /** The projections' position, for the progress lines. */
  projectionsAt(): Promise<number | null>;
  /** CPU time used so far by every thread of every process of the service, in seconds. */
  cpuSeconds(): number;
  /** From now on, peakRssMb() counts from the current RSS. */
  resetPeak(): void;
  rssMb(): number;
  peakRssMb(): number;
  close(): Promise<void>;
}

/** The API through `client`: a 2xx answer's body (anything else throws with the answer). */
const apiCall = (client: HttpClient) => (method: string, path: string, body?: unknown) => client.ok(method, path, body);

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'rebac-bench-copy-'));
  const rss = new PeakRss();
  const config = loadConfig({
    PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    // Where the projections run follows the environment (PROJECTION_THREAD), with `npm start`'s default when unset.
    ...(process.env.PROJECTION_THREAD ? { PROJECTION_THREAD: process.env.PROJECTION_THREAD } : {}),
  });
  const service = await startEmbedded(config, pino({ level: process.env.BENCH_LOG_LEVEL ?? 'silent' }), [environmentCopyFeature()]);
  const key = readFileSync(join(dataDir, ADMIN_KEY_FILE), 'utf8').trim();
  // Closed once: in services mode before the services start on its data, and again (a no-op) if they fail to.
  let closing: Promise<void> | null = null;
  let host: CopyHost = {
    call: apiCall(new HttpClient(service.url, key)),
    taskEvents: (taskId) => service.eventStore.readStream(streams.task(taskId)),
    projectionsAt: async () => service.runner.position,
    cpuSeconds: () => {
      const cpu = process.cpuUsage();
      return (cpu.user + cpu.system) / 1e6;
    },
    resetPeak: () => rss.reset(),
    rssMb: () => process.memoryUsage().rss / 1024 / 1024,
    peakRssMb: () => rss.peak / 1024 / 1024,
    close: () => (closing ??= service.close()),
  };
  try {
    console.log(`copy benchmark: ${TOTAL.toLocaleString('en-US')} source events, scope.facts, ${MODE} mode, data in ${dataDir}`);
    const source = await host.call('GET', '/v2/projects/default/envs/production');

    // 1. The source environment, straight into its stream.
    let started = Date.now();
    // The environment's stream already holds what its creation wrote (its `default` tenant).
    let version = await service.eventStore.streamVersion(streams.environment(source.id));
    let head = 0;
    for (const batch of syntheticEnvironment(TOTAL, 20_000)) {
      const result = await service.eventStore.append(streams.environment(source.id), batch, version === -1 ? 'no_stream' : version);
      version = result.streamVersion;
      head = result.position;
    }
    console.log(`source appended in ${((Date.now() - started) / 1000).toFixed(1)} s (${rate(TOTAL, Date.now() - started)})`);

    // 2. Projections catch up (not part of the copy's figures).
    started = Date.now();
    while (!(await service.runner.waitForPosition(head, 5000))) {
      console.log(`  projections at ${service.runner.position.toLocaleString('en-US')} / ${head.toLocaleString('en-US')}`);
    }
    console.log(`projections caught up in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    if (MODE === 'services') {
      await host.close();
      host = await startServices(config, key);
    }
    await measureCopy(host);
  } finally {
    rss.stop();
    await host.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** 3. The copy, watched through the result endpoint, and its figures. */
async function measureCopy(host: CopyHost): Promise<void> {
  host.resetPeak();
  const baseline = host.rssMb();
  const cpuBefore = host.cpuSeconds();
  const started = Date.now();
  const uptimeAtRequest = process.uptime();
  const task = await host.call('POST', '/v2/projects/default/envs/production/copy/async', {
    target_env: { new: { key: 'bench-copy', name: 'Bench copy' } },
    scope: { facts: true },
  });
  const n = (x: number) => x.toLocaleString('en-US');
  let result = task;
  while (result.status === 'processing') {
    result = await host.call('GET', `/v2/projects/default/envs/production/copy/async/${task.task_id}/result?wait=2`);
    // What the task has logged (its latest progress event) and what the read model shows (behind by the projection backlog).
    const logged = (await host.taskEvents(task.task_id)).filter((e) => e.type === 'TaskProgressed').at(-1)?.data as
      { eventsCopied: number } | undefined;
    const p = result.progress;
    const at = await host.projectionsAt();
    console.log(
      `  ${result.status}: copied ${n(logged?.eventsCopied ?? 0)} / ${n(p.source_events_total)} (task log), ${n(p.events_copied)} visible in the task read model, ` +
        `projections at ${at === null ? '?' : n(at)}, rss ${host.rssMb().toFixed(0)} MB`,
    );
  }
  const visibleAfterMs = Date.now() - started;
  // For bench/profile-summary.ts: the copy's part of a profile of this process (--cpu-prof), request to visible.
  const profileWindow = `--window=${uptimeAtRequest.toFixed(1)}:${process.uptime().toFixed(1)}`;
  const cpuMs = (host.cpuSeconds() - cpuBefore) * 1000;
  if (result.status !== 'success') throw new Error(`copy failed: ${JSON.stringify(result.error)}`);

  // The copy itself ran from the task's start to its outcome (both events in the task stream).
  const events = await host.taskEvents(task.task_id);
  const startedAt = Date.parse(events.find((e) => e.type === 'TaskStarted')!.metadata.timestamp);
  const finishedAt = Date.parse(events.find((e) => e.type === 'TaskSucceeded')!.metadata.timestamp);
  const copied = result.progress.events_copied as number;
  console.log('');
  console.log(`events copied:              ${copied.toLocaleString('en-US')}`);
  console.log(`copy (task start → success): ${((finishedAt - startedAt) / 1000).toFixed(1)} s, ${rate(copied, finishedAt - startedAt)}`);
  console.log(
    `until visible (request → success in the read model, incl. projecting the copy): ${(visibleAfterMs / 1000).toFixed(1)} s, ${rate(copied, visibleAfterMs)}`,
  );
  // What the copy and its projections cost the machine: on `cores` cores it cannot be visible sooner than this CPU time over them.
  const cores = availableParallelism();
  console.log(
    `CPU, request → visible, every thread${MODE === 'services' ? ' of the three services' : ''}: ${(cpuMs / 1000).toFixed(1)} s, ${((cpuMs * 1000) / copied).toFixed(1)} µs/event; ` +
      `over ${cores} cores at least ${(cpuMs / 1000 / cores).toFixed(1)} s`,
  );
  console.log(`progress events recorded:   ${events.filter((e) => e.type === 'TaskProgressed').length}`);
  console.log(`the copy in a profile of this process (bench/profile-summary.ts): ${profileWindow}`);
  const peak = host.peakRssMb();
  console.log(
    `peak RSS, copy + projecting it: ${peak.toFixed(0)} MB (${baseline.toFixed(0)} MB before it, +${(peak - baseline).toFixed(0)} MB)`,
  );
}

/**
 * The command, projection and task services in their own processes over the
 * embedded service's data directory, once the command service answers with
 * its command state loaded and the projection service has taken up the read
 * models.
 */
async function startServices(config: Config, key: string): Promise<CopyHost> {
  const commandPort = await freePort();
  const projectionPort = await freePort();
  // Profiled (`--profile`) when this process is: each service's profiles go to a folder of its own.
  const profileDir = process.execArgv.find((arg) => arg.startsWith('--cpu-prof-dir='))?.slice('--cpu-prof-dir='.length);
  // The command service logs at info, for its `command state loaded`.
  const start = (name: string, port: number, logLevel = 'warn') =>
    spawnNode(
      'bench/lib/copy-service.ts',
      { ...npmStartEnv(), COPY_BENCH_SERVICE: name, DATA_DIR: config.DATA_DIR, PORT: String(port), LOG_LEVEL: logLevel },
      profileDir ? ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, `${name}-service`)}`] : [],
    );
  const children: NodeChild[] = [start('projection', projectionPort), start('task', 0), start('command', commandPort, 'info')];
  const commandUrl = `http://127.0.0.1:${commandPort}`;
  const projectionUrl = `http://127.0.0.1:${projectionPort}`;
  const log = new SqliteEventStore({ path: sqliteEventsPath(config) });
  const readiness = async (url: string) => {
    try {
      const r = await fetch(`${url}/readyz`);
      return r.status === 200 ? ((await r.json()) as { position?: number }) : null;
    } catch {
      return null;
    }
  };
  const peaks = new Map<number, number>();
  const samplePeaks = () => {
    for (const child of children) peaks.set(child.pid, Math.max(peaks.get(child.pid) ?? 0, memoryOf(child.pid)?.rssMiB ?? 0));
  };
  const sampler = setInterval(samplePeaks, 25);
  const host: CopyHost = {
    call: apiCall(new HttpClient(commandUrl, key)),
    taskEvents: (taskId) => log.readStream(streams.task(taskId)),
    projectionsAt: async () => (await readiness(projectionUrl))?.position ?? null,
    cpuSeconds: () => children.reduce((total, child) => total + (cpuSecondsOf(child.pid) ?? 0), 0),
    resetPeak: () => peaks.clear(),
    rssMb: () => children.reduce((total, child) => total + (memoryOf(child.pid)?.rssMiB ?? 0), 0),
    peakRssMb: () => [...peaks.values()].reduce((a, b) => a + b, 0),
    async close() {
      clearInterval(sampler);
      await Promise.all(children.map((child) => child.stop()));
      await log.close();
    },
  };
  try {
    for (let i = 0; ; i++) {
      const exited = children.find((child) => child.process.exitCode !== null);
      if (exited) throw new Error(`a service exited before it was ready:\n${exited.output().slice(-3000)}`);
      // Once ready, a command service loads every environment's command state in the background (app/warm-command-state.ts):
      // for the 1M-event source, seconds of CPU that a deployed service spent long before anyone asked for a copy.
      const warm = children[2]!.output().includes('"msg":"command state loaded"');
      if (warm && (await readiness(commandUrl)) && (await readiness(projectionUrl))) break;
      if (i > 1200) throw new Error('the services were not ready within 2 minutes');
      await sleep(100);
    }
  } catch (error) {
    // The caller only has the embedded service to close: the services stop here.
    await host.close();
    throw error;
  }
  console.log('command, projection and task services started, each in its own process');
  return host;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
