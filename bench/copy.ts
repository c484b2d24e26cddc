/**
 * Benchmark: copy an environment of 1,000,000 events (policy + facts) with
 * `scope: {facts: true}` and print the copy's throughput and the process's
 * peak memory, with the task's progress while it runs.
 *
 *   node -r @swc-node/register bench/copy.ts            # 1,000,000 events
 *   COPY_BENCH_EVENTS=200000 node -r @swc-node/register bench/copy.ts
 *   COPY_BENCH_MODE=isolated node -r @swc-node/register bench/copy.ts
 *
 * Default mode: everything in one process, as the embedded service runs, so the
 * copy shares the CPU with the projections of what it writes. Isolated mode
 * stops the projections while the task copies (the task service on its own, as
 * in a distributed deployment), then lets them project the copy.
 *
 * The source is appended straight into its stream through the event store port
 * (fast), then the projections catch up before the copy starts. Only the copy
 * feature runs, so the figures are the copy's, not other projections'.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { ADMIN_KEY_FILE } from '../command-service/bootstrap';
import { startEmbedded } from '../app/embedded';
import { loadConfig } from '../shared/config';
import { streams } from '../shared/events';
import { environmentCopyFeature } from '../app/features/environment-copy';
import { syntheticEnvironment } from '../test/copy/support/synthetic-environment';

const TOTAL = Number(process.env.COPY_BENCH_EVENTS ?? 1_000_000);
/** `isolated`: stop the projections while the task copies (the task service as its own process), then project the copy. */
const ISOLATED = process.env.COPY_BENCH_MODE === 'isolated';
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
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

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'rebac-bench-copy-'));
  const rss = new PeakRss();
  const service = await startEmbedded(
    // Where the projections run follows the environment (PROJECTION_THREAD), with `npm start`'s default when unset.
    loadConfig({
      PORT: '0',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      ...(process.env.PROJECTION_THREAD ? { PROJECTION_THREAD: process.env.PROJECTION_THREAD } : {}),
    }),
    pino({ level: process.env.BENCH_LOG_LEVEL ?? 'silent' }),
    [environmentCopyFeature()],
  );
  const key = readFileSync(join(dataDir, ADMIN_KEY_FILE), 'utf8').trim();
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${service.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await r.json()) as any;
  };
  try {
    console.log(
      `copy benchmark: ${TOTAL.toLocaleString('en-US')} source events, scope.facts, ${ISOLATED ? 'isolated' : 'embedded'} mode, data in ${dataDir}`,
    );
    const source = await call('GET', '/v2/projects/default/envs/production');

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

    // 3. The copy, watched through the result endpoint.
    rss.reset();
    const baseline = process.memoryUsage().rss;
    // Every thread of the process (the copy, the event store's writer, the projections, their checkpointers).
    const processCpuBefore = process.cpuUsage();
    started = Date.now();
    const task = await call('POST', '/v2/projects/default/envs/production/copy/async', {
      target_env: { new: { key: 'bench-copy', name: 'Bench copy' } },
      scope: { facts: true },
    });
    let result = task;
    const n = (x: number) => x.toLocaleString('en-US');
    let copyCpuMs: number | null = null;
    let copyPeakRss: number | null = null;
    if (ISOLATED) {
      // The task service alone, as in a distributed deployment: no projection shares the process while it copies.
      await service.runner.stop();
      const cpuBefore = process.cpuUsage();
      for (;;) {
        const log = await service.eventStore.readStream(streams.task(task.task_id));
        const last = log.filter((e) => e.type === 'TaskProgressed').at(-1)?.data as { eventsCopied: number } | undefined;
        if (log.some((e) => e.type === 'TaskSucceeded' || e.type === 'TaskFailed')) break;
        console.log(`  copied ${n(last?.eventsCopied ?? 0)} / ${n(TOTAL)} (task log), rss ${mb(process.memoryUsage().rss)}`);
        await new Promise((r) => setTimeout(r, 500));
      }
      const cpu = process.cpuUsage(cpuBefore);
      copyCpuMs = (cpu.user + cpu.system) / 1000;
      copyPeakRss = rss.peak;
      console.log('  copy done; projecting it');
      await service.runner.start();
    }
    while (result.status === 'processing') {
      result = await call('GET', `/v2/projects/default/envs/production/copy/async/${task.task_id}/result?wait=2`);
      // What the task has logged (its latest progress event) and what the read model shows (behind by the projection backlog).
      const logged = (await service.eventStore.readStream(streams.task(task.task_id))).filter((e) => e.type === 'TaskProgressed').at(-1)
        ?.data as { eventsCopied: number } | undefined;
      const p = result.progress;
      console.log(
        `  ${result.status}: copied ${n(logged?.eventsCopied ?? 0)} / ${n(p.source_events_total)} (task log), ${n(p.events_copied)} visible in the task read model, ` +
          `projections at ${n(service.runner.position)}, rss ${mb(process.memoryUsage().rss)}`,
      );
    }
    const visibleAfterMs = Date.now() - started;
    const processCpu = process.cpuUsage(processCpuBefore);
    const processCpuMs = (processCpu.user + processCpu.system) / 1000;
    if (result.status !== 'success') throw new Error(`copy failed: ${JSON.stringify(result.error)}`);

    // The copy itself ran from the task's start to its outcome (both events in the task stream).
    const events = await service.eventStore.readStream(streams.task(task.task_id));
    const startedAt = Date.parse(events.find((e) => e.type === 'TaskStarted')!.metadata.timestamp);
    const finishedAt = Date.parse(events.find((e) => e.type === 'TaskSucceeded')!.metadata.timestamp);
    const copied = result.progress.events_copied as number;
    console.log('');
    console.log(`events copied:              ${copied.toLocaleString('en-US')}`);
    console.log(`copy (task start → success): ${((finishedAt - startedAt) / 1000).toFixed(1)} s, ${rate(copied, finishedAt - startedAt)}`);
    if (copyCpuMs !== null)
      console.log(
        `copy CPU time (user+system): ${(copyCpuMs / 1000).toFixed(1)} s, ${rate(copied, copyCpuMs)} per CPU-second (independent of other load on the machine)`,
      );
    console.log(
      `until visible (request → success in the read model, incl. projecting the copy): ${(visibleAfterMs / 1000).toFixed(1)} s, ${rate(copied, visibleAfterMs)}`,
    );
    // What the copy and its projections cost the machine: on `cores` cores it cannot be visible sooner than this CPU time over them.
    const cores = availableParallelism();
    console.log(
      `CPU, request → visible, every thread: ${(processCpuMs / 1000).toFixed(1)} s, ${((processCpuMs * 1000) / copied).toFixed(1)} µs/event; ` +
        `over ${cores} cores at least ${(processCpuMs / 1000 / cores).toFixed(1)} s`,
    );
    console.log(`progress events recorded:   ${events.filter((e) => e.type === 'TaskProgressed').length}`);
    if (copyPeakRss !== null)
      console.log(`peak RSS while copying:     ${mb(copyPeakRss)} (${mb(baseline)} before it, +${mb(copyPeakRss - baseline)})`);
    console.log(`peak RSS, copy + projecting it: ${mb(rss.peak)} (${mb(baseline)} before it, +${mb(rss.peak - baseline)})`);
  } finally {
    rss.stop();
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
