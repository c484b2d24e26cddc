/**
 * `npm run bench [-- --quick]`: starts the service (embedded engines, fresh
 * data directory, its own process), loads the data set through the bulk
 * endpoints, drives each scenario over loopback HTTP with autocannon, and
 * prints one table with each scenario's figure, latency, ratio to a bare
 * express baseline measured in the same run, and target. The results also go
 * to bench/results/<timestamp>.json; bench/compare.ts compares two of them.
 * See docs/benchmarks.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, relative } from 'node:path';
import { baselineCache, type BenchContext, type Phase } from './lib/context';
import { ROOT } from './lib/child';
import { startBaseline, type Baseline } from './lib/baseline';
import { Dataset } from './lib/dataset';
import { repeatLoad } from './lib/load';
import { loadFacts, loadSchema } from './lib/load-ours';
import { parseOptions, type ScenarioName } from './lib/options';
import { gitCommit, machineInfo, writeResults, type BenchResults, type ScenarioResult } from './lib/results';
import { environmentKey, restartService, startService, type RunningService } from './lib/service';
import { renderTable } from './lib/table';
import { bulkImportResult } from './scenarios/bulk-import';
import { bulkCheckScenario, checkLatencyScenario, checkScenario } from './scenarios/checks';
import { copyScenario } from './scenarios/copy';
import { createScenarios } from './scenarios/creates';
import { fanOutScenario } from './scenarios/fan-out';
import { rebuildScenario } from './scenarios/rebuild';
import { peerScenarios } from './scenarios/peer';
import { soakScenario } from './scenarios/soak';
import { storeScaleScenarios } from './scenarios/store-scale';
import { timeTravelScenarios } from './scenarios/time-travel';
import { abacScenario } from './scenarios/abac';
import { expiryScenarios } from './scenarios/expiry';
import { tracingScenarios } from './scenarios/tracing';
import { decisionLogScenario } from './scenarios/decision-log';
import { distributedScenarios } from './scenarios/distributed';
import { cpuCounters, probeHost, stealPercentSince } from './lib/host-speed';

const TITLES: Record<ScenarioName, string> = {
  check: 'POST /allowed (mixed, derived roles)',
  'bulk-check': 'POST /allowed/bulk (100 checks)',
  creates: 'single creates',
  'bulk-import': 'bulk import',
  fanout: 'fan-out',
  copy: 'environment copy',
  memory: 'memory',
  'cold-start': 'cold start',
  'audit-log': 'audit log page',
  peer: 'peers (SpiceDB, OpenFGA)',
  soak: 'soak (mixed load, 10 min)',
  'time-travel': 'as_of checks and decision history',
  abac: 'ABAC check vs RBAC check',
  expiry: 'checks while grants end; 100,000 ends at one instant',
  rebuild: 'rebuild every read model',
  tracing: 'tracing off vs on (1%, 100%)',
  'decision-log': 'decision log: checks, off vs full',
  distributed: 'distributed mode (PostgreSQL, FerretDB, Kafka) vs one process',
};

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const startedAt = new Date();
  const t0 = performance.now();
  const log = (message: string) => console.error(`[bench ${((performance.now() - t0) / 1000).toFixed(0).padStart(4)} s] ${message}`);
  const want = (name: ScenarioName) => options.only.has(name);
  const results: ScenarioResult[] = [];
  const machine = machineInfo();
  log(`${options.mode} run: ${[...options.only].join(', ')}; load average ${machine.loadAvgAtStart.join(' ')} on ${machine.cpus} cpus`);

  /**
   * The host's speed before a scenario (bench/lib/host-speed.ts) and the CPU the hypervisor took
   * during it, recorded on its rows: this machine's speed changes by up to 2× over a day, and
   * rows measured in seconds are read across runs with it.
   */
  const hostBefore = (name: string) => {
    const probe = probeHost();
    const counters = cpuCounters();
    log(`${name}: host probe ${probe.jsUs} µs per document, ${probe.sqliteUs} µs per row`);
    return {
      after: (rows: ScenarioResult[]): ScenarioResult[] => {
        const stealPercent = stealPercentSince(counters);
        return rows.map((row) => ({ ...row, host: { ...probe, stealPercent } }));
      },
    };
  };

  /** Runs a scenario; a failure becomes an ERROR row and the run goes on. */
  const guarded = async (name: ScenarioName, run: () => Promise<ScenarioResult | ScenarioResult[]>) => {
    const host = hostBefore(name);
    try {
      const out = await run();
      results.push(...host.after(Array.isArray(out) ? out : [out]));
    } catch (error) {
      log(`${name} failed: ${(error as Error).stack ?? String(error)}`);
      results.push({
        id: name,
        title: TITLES[name],
        value: NaN,
        unit: '',
        better: 'higher',
        error: (error as Error).message ?? String(error),
      });
    }
  };

  let baseline: Baseline | null = null;
  let service: RunningService | null = null;
  try {
    baseline = await startBaseline();
    const mainScenarios: ScenarioName[] = ['check', 'bulk-check', 'decision-log', 'creates', 'bulk-import', 'fanout', 'peer'];
    if (mainScenarios.some(want)) {
      service = await startService({
        cpuProfileDir: options.profileDir ? `${options.profileDir}/main` : undefined,
        nodeOptions: options.serverNodeOptions,
      });
      log(`service ready in ${Math.round(service.readyAfterMs)} ms at ${service.url} (data in ${service.dataDir})`);
      const api = await environmentKey(service.admin);
      const dataset = new Dataset(options.dataset);
      await loadSchema(api);
      const { folders, documents, users } = options.dataset;
      log(
        `loading ${folders.toLocaleString('en-US')} folders, ${documents.toLocaleString('en-US')} documents, ${users.toLocaleString('en-US')} users (${dataset.assignments.length.toLocaleString('en-US')} assignments) through the bulk endpoints`,
      );
      const concurrency = 2;
      const loadHost = hostBefore('bulk-import');
      const phases: Phase[] = [];
      const loadFrom = performance.now();
      const timings = await loadFacts(api, dataset, { chunk: options.bulkChunk, concurrency });
      phases.push({
        label: 'bulk-import',
        fromS: (loadFrom - service.spawnedAt) / 1000,
        toS: (performance.now() - service.spawnedAt) / 1000,
      });
      const imported = bulkImportResult(timings, options.bulkChunk, concurrency);
      log(`loaded: ${imported.notes}`);
      if (want('bulk-import')) results.push(...loadHost.after([imported]));

      const ctx: BenchContext = {
        options,
        service,
        api,
        dataset,
        checks: dataset.checks(options.mode === 'quick' ? 5_000 : 20_000),
        baseline,
        log,
        baselineFor: baselineCache(options, baseline, log),
        measure: async (spec) => {
          const from = performance.now();
          const measured = await repeatLoad({ ...spec, durationS: options.durationS }, options.repeat, options.warmupS);
          const origin = ctx.service.spawnedAt;
          if (spec.label) ctx.phases.push({ label: spec.label, fromS: (from - origin) / 1000, toS: (performance.now() - origin) / 1000 });
          return measured;
        },
        phases,
      };
      if (want('check')) {
        // Uncached first: it also warms SQLite's page cache and the JIT, which the cached row would otherwise pay for.
        await guarded('check', () => checkScenario(ctx, { fromStore: true }));
        await guarded('check', () => checkScenario(ctx));
        // What one process does, against the baseline's one process: the same data, restarted with HTTP_WORKERS=1, then as before.
        await guarded('check', async () => {
          await restartService(ctx, { HTTP_WORKERS: '1' });
          try {
            return await checkScenario(ctx, { oneWorker: true });
          } finally {
            await restartService(ctx, {});
          }
        });
      }
      service = ctx.service;
      if (want('check')) await guarded('check', () => checkLatencyScenario(ctx));
      if (want('bulk-check')) {
        await guarded('bulk-check', () => bulkCheckScenario(ctx, { fromStore: true }));
        await guarded('bulk-check', () => bulkCheckScenario(ctx));
      }
      // Before the creates and the fan-out too: the same answers as the check rows.
      if (want('decision-log')) await guarded('decision-log', () => decisionLogScenario(ctx));
      service = ctx.service;
      // Ours stays up beside the peers: their checks and ours are timed interleaved, on the same data.
      // Before the creates and the fan-out, which add assignments and parents that change some answers.
      if (want('peer')) await guarded('peer', () => peerScenarios(ctx, timings));
      if (want('creates')) await guarded('creates', () => createScenarios(ctx));
      if (want('fanout')) await guarded('fanout', () => fanOutScenario(ctx));
      if (options.profileDir) writePhases(`${options.profileDir}/main`, ctx.phases);
      const peak = service.memory();
      log(`main service RSS ${Math.round(peak?.rssMiB ?? NaN)} MiB (peak ${Math.round(peak?.peakMiB ?? NaN)} MiB)`);
      await service.stop();
      service = null;
    }
    const standalone = { options, log };
    if (want('memory') || want('cold-start') || want('audit-log')) {
      await guarded('memory', async () => (await storeScaleScenarios(standalone)).filter((r) => want(r.id as ScenarioName)));
    }
    if (want('copy')) {
      await guarded('copy', () => copyScenario(standalone, 'services'));
      await guarded('copy', () => copyScenario(standalone, 'embedded'));
    }
    if (want('soak')) await guarded('soak', () => soakScenario(standalone));
    if (want('time-travel')) await guarded('time-travel', () => timeTravelScenarios(standalone));
    if (want('abac')) await guarded('abac', () => abacScenario(standalone));
    if (want('expiry')) await guarded('expiry', () => expiryScenarios(standalone));
    if (want('rebuild')) await guarded('rebuild', () => rebuildScenario(standalone));
    if (want('tracing')) await guarded('tracing', () => tracingScenarios(standalone));
    if (want('distributed')) await guarded('distributed', () => distributedScenarios(standalone));
  } finally {
    await service?.stop();
    await baseline?.stop();
  }

  const finishedAt = new Date();
  machine.loadAvgAtEnd = loadavg().map((l) => Math.round(l * 100) / 100);
  const output: BenchResults = {
    schema: 1,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    mode: options.mode,
    commit: gitCommit(),
    machine,
    options: { ...options, only: [...options.only] },
    scenarios: results,
  };
  const file = writeResults(output, options.out ?? undefined);
  console.log('');
  console.log(
    `rebac-service benchmarks, ${options.mode} mode, ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC, ${machine.cpus} × ${machine.cpuModel}, node ${machine.node}, commit ${output.commit ?? '?'}`,
  );
  console.log('');
  console.log(renderTable(results));
  console.log('');
  console.log(
    `load average (1/5/15 min) ${machine.loadAvgAtStart.join(' ')} at start, ${machine.loadAvgAtEnd.join(' ')} at the end: other processes on this machine skew the figures`,
  );
  console.log(
    `took ${((finishedAt.getTime() - startedAt.getTime()) / 1000).toFixed(0)} s; results in ${relative(ROOT, file)}${options.profileDir ? `; CPU profiles in ${options.profileDir}` : ''}`,
  );
}

/** Where each load ran in the server's CPU profile: `bench/profile-summary.ts <profile> --phase=<label>` reads it. */
function writePhases(dir: string, phases: Phase[]): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'phases.json'), `${JSON.stringify(phases, null, 2)}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
