import { streams } from '../../shared/events';
import { syntheticEnvironment } from '../../test/copy/support/synthetic-environment';
import { sleep } from '../lib/child';
import type { BenchContext } from '../lib/context';
import { TENANT, Dataset } from '../lib/dataset';
import {
  startDistributedDeployment,
  startEmbeddedDeployment,
  waitForProjection,
  type CpuByPart,
  type Deployment,
  type ReadModels,
} from '../lib/deployments';
import type { HttpClient } from '../lib/http';
import { repeatLoad, type Repeated } from '../lib/load';
import { FACTS, loadFacts, loadSchema } from '../lib/load-ours';
import { gauge, histogram, quantile, since } from '../lib/prometheus';
import type { ScenarioResult } from '../lib/results';
import { startDistributedServers } from '../lib/servers';
import { environmentKey } from '../lib/service';
import { checkBody } from './checks';
import type { DistributedCosts } from '../lib/capacity';

type Ctx = Pick<BenchContext, 'options' | 'log'>;

/** What one load cost each part of a deployment: CPU seconds by part, wall seconds, and the bench process's own CPU. */
interface Spent {
  cpu: CpuByPart;
  wallS: number;
  benchCpuS: number;
}

/** Cores the deployment's processes use, summed (main threads apart, being counted in their process). */
const total = (cpu: CpuByPart) => Object.entries(cpu).reduce((sum, [part, s]) => (part.endsWith('MainThread') ? sum : sum + s), 0);

/**
 * Waits until the deployment is idle again (under a fifth of a core over half a second, two minutes
 * at most): requests still in flight when a load stops go on in the servers, and would otherwise
 * fall on the next deployment's load and be missing from this one's CPU per request.
 */
async function quiet(deployment: Deployment): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (let before = total(deployment.cpu()); Date.now() < deadline;) {
    await sleep(500);
    const now = total(deployment.cpu());
    if (now - before < 0.1) return;
    before = now;
  }
}

async function spending<T>(deployment: Deployment, run: () => Promise<T>): Promise<{ result: T; spent: Spent }> {
  const before = deployment.cpu();
  const bench = process.cpuUsage();
  const started = performance.now();
  const result = await run();
  await quiet(deployment);
  const after = deployment.cpu();
  const benchUsed = process.cpuUsage(bench);
  return {
    result,
    spent: {
      cpu: Object.fromEntries(Object.entries(after).map(([part, s]) => [part, s - (before[part] ?? 0)])),
      wallS: (performance.now() - started) / 1000,
      benchCpuS: (benchUsed.user + benchUsed.system) / 1e6,
    },
  };
}

/** The cores each process kept busy during a load (main threads apart), busiest first: what bounds the row. */
function busy(spent: Spent): string {
  const parts = Object.entries(spent.cpu)
    .filter(([part]) => !part.endsWith('MainThread'))
    .map(([part, s]) => {
      const main = spent.cpu[`${part}MainThread`];
      return { part, cores: s / spent.wallS, main: main === undefined ? null : main / spent.wallS };
    });
  parts.push({ part: 'load generator', cores: spent.benchCpuS / spent.wallS, main: null });
  return parts
    .sort((a, b) => b.cores - a.cores)
    .map((p) => `${p.part} ${p.cores.toFixed(2)}${p.main === null ? '' : ` (main thread ${p.main.toFixed(2)})`}`)
    .join(', ');
}

/** µs of `part`'s CPU per unit of work. */
const per = (spent: Spent, part: string, units: number) => ((spent.cpu[part] ?? NaN) * 1e6) / units;
/**
 * The read-model server's µs per unit: FerretDB's; PostgreSQL's with read models on PostgreSQL (the
 * log's server, whose CPU then has both); none with read models on SQLite, whose work is the
 * services' own CPU.
 */
function store(m: Measured, spent: Spent, units: number): number {
  if (m.deployment.id === 'distributed-postgres') return per(spent, 'postgres', units);
  return spent.cpu.ferretdb === undefined ? 0 : per(spent, 'ferretdb', units);
}

interface Measured {
  deployment: Deployment;
  api: HttpClient;
  bulk?: { objects: number; seconds: number; events: number; spent: Spent };
  uncached?: { load: Repeated; sent: number; spent: Spent };
  cached?: { load: Repeated; sent: number; spent: Spent };
  creates?: { load: Repeated; sent: number; spent: Spent; appendP50Ms: number; appendP99Ms: number; appends: number };
  copy?: { events: number; seconds: number; spent: Spent };
}

/** Each distributed deployment's rows: id suffix and title suffix (none for FerretDB's, the rows earlier runs have). */
const VARIANTS: Record<string, { suffix: string; title: string }> = {
  distributed: { suffix: '', title: '' },
  'distributed-postgres': { suffix: '-postgres', title: ', read models on PostgreSQL' },
  'distributed-sqlite': { suffix: '-sqlite', title: ', read models on SQLite' },
};

const rotate = <T>(items: T[]) => {
  let i = 0;
  return () => items[i++ % items.length]!;
};

/**
 * The distributed deployment (command, projection and task services as three processes; the log
 * on PostgreSQL, tasks on Kafka) against the one-process service, on the same machine in one run,
 * with its read models in three places: on FerretDB (the MongoDB protocol, as CI tests it), on
 * PostgreSQL (a schema beside the log: the deployment of two kinds of server), and on SQLite (one
 * file the processes share, a one-machine stand-in that shows the log's own cost where the
 * read-model server bounds a row). The four stay up together and each load runs on each in turn,
 * so a change in the host's load falls on all of them. Rows: the bulk load (until visible),
 * uncached and cached checks, single creates with the log's append p50/p99, and a copy until
 * visible; each row's notes say which process was busiest. The last row carries the measured CPU
 * costs from which bench/distributed-capacity.ts works out replicas on paper.
 */
export async function distributedScenarios(ctx: Ctx): Promise<ScenarioResult[]> {
  const { options, log } = ctx;
  // The distributed deployments, by where their read models are, in the rows' order.
  const readModelsOf: ReadModels[] = options.distributedReadModels;
  const servers = await startDistributedServers(readModelsOf.length, log);
  const deployments: Deployment[] = [];
  try {
    log(`distributed: starting the one-process service and ${readModelsOf.length} distributed deployments`);
    deployments.push(await startEmbeddedDeployment());
    for (const [i, readModels] of readModelsOf.entries()) deployments.push(await startDistributedDeployment(servers, readModels, i));
    const folders = options.distributedFolders;
    const dataset = new Dataset({ folders, documents: 9 * folders, users: folders });
    const runs: Measured[] = [];
    for (const deployment of deployments) runs.push({ deployment, api: await environmentKey(deployment.admin) });

    for (const m of runs) await bulkLoad(ctx, m, dataset);
    // Fewer than the check rows' 20,000: priming the cached load asks each once, and on FerretDB an uncached check takes 0.1 s or more.
    const checks = dataset.checks(1_000);
    for (const m of runs) await verify(m, checks);
    for (const m of runs) m.uncached = await checkLoad(ctx, m, checks, true);
    for (const m of runs) m.cached = await checkLoad(ctx, m, checks, false);
    for (const m of runs) await createLoad(ctx, m);
    for (const m of runs)
      await copy(ctx, m).catch((error: unknown) => {
        ctx.log(`${m.deployment.id}: the copy failed; what the deployment printed last:\n${m.deployment.output?.() ?? '(not kept)'}`);
        throw error;
      });
    return rows(ctx, runs);
  } finally {
    for (const deployment of deployments)
      await deployment.stop().catch((error: unknown) => log(`stopping ${deployment.id}: ${String(error)}`));
    await servers.stop();
  }
}

async function bulkLoad(ctx: Ctx, m: Measured, dataset: Dataset): Promise<void> {
  await loadSchema(m.api);
  const headBefore = gauge(await m.deployment.metrics(), 'rebac_event_log_head_position') ?? 0;
  ctx.log(`${m.deployment.id}: bulk load of ${dataset.instances + dataset.size.documents + dataset.assignments.length} objects`);
  // Each bulk request answers once the read models show it: the last answer is the load visible.
  const { result: timings, spent } = await spending(m.deployment, () =>
    loadFacts(m.api, dataset, { chunk: ctx.options.bulkChunk, concurrency: 2 }),
  );
  const headAfter = gauge(await m.deployment.metrics(), 'rebac_event_log_head_position') ?? NaN;
  m.bulk = {
    objects: timings.reduce((n, t) => n + t.objects, 0),
    seconds: timings.reduce((n, t) => n + t.ms, 0) / 1000,
    events: headAfter - headBefore,
    spent,
  };
}

async function verify(m: Measured, checks: ReturnType<Dataset['checks']>): Promise<void> {
  const sample = checks.slice(0, 200);
  const answers = await m.api.ok('POST', '/allowed/bulk', sample.map(checkBody));
  const wrong = (answers.allow as Array<{ allow: boolean }>).filter((a, i) => a.allow !== sample[i]!.expected).length;
  if (wrong > 0) throw new Error(`${m.deployment.label}: ${wrong} of ${sample.length} answers differ from the reference`);
}

/**
 * At least 3 s of unrecorded load first (the quick runs' 1 s may not see one answer from FerretDB at
 * 64 connections), and a load without a 2xx answer is a figure (0 req/s), not an error.
 */
const loadOptions = (ctx: Ctx) => ({ ...ctx.options, warmupS: Math.max(3, ctx.options.warmupS), noAnswerIsFigure: true });

async function checkLoad(ctx: Ctx, m: Measured, checks: ReturnType<Dataset['checks']>, fromStore: boolean) {
  const { connections, durationS, repeat, warmupS, noAnswerIsFigure } = loadOptions(ctx);
  if (!fromStore)
    for (let i = 0; i < checks.length; i += 1000) await m.api.ok('POST', '/allowed/bulk', checks.slice(i, i + 1000).map(checkBody));
  const bodies = rotate(checks.map((c) => JSON.stringify(checkBody(c))));
  let sent = 0;
  ctx.log(`${m.deployment.id}: POST /allowed${fromStore ? ', uncached' : ''}, ${connections} connections`);
  const { result: load, spent } = await spending(m.deployment, () =>
    repeatLoad(
      {
        url: `${m.deployment.url}/allowed`,
        headers: fromStore ? { ...m.api.headers, 'cache-control': 'no-cache' } : m.api.headers,
        body: () => (sent++, bodies()),
        connections,
        durationS,
        noAnswerIsFigure,
      },
      repeat,
      warmupS,
    ),
  );
  return { load, sent, spent };
}

const APPEND_SECONDS = 'rebac_event_store_append_duration_seconds';

async function createLoad(ctx: Ctx, m: Measured): Promise<void> {
  const { connections, durationS, repeat, warmupS, noAnswerIsFigure } = loadOptions(ctx);
  let sent = 0;
  const body = () => JSON.stringify({ key: `w${sent++}`, resource: 'document', tenant: TENANT });
  ctx.log(`${m.deployment.id}: single creates (resource instances), ${connections} connections`);
  const before = histogram(await m.deployment.metrics(), APPEND_SECONDS);
  const { result: load, spent } = await spending(m.deployment, () =>
    repeatLoad(
      { url: `${m.deployment.url}${FACTS}/resource_instances`, headers: m.api.headers, body, connections, durationS, noAnswerIsFigure },
      repeat,
      warmupS,
    ),
  );
  const appends = since(before, histogram(await m.deployment.metrics(), APPEND_SECONDS));
  m.creates = {
    load,
    sent,
    spent,
    appendP50Ms: quantile(appends, 0.5) * 1000,
    appendP99Ms: quantile(appends, 0.99) * 1000,
    appends: appends.at(-1)?.count ?? 0,
  };
}

async function copy(ctx: Ctx, m: Measured): Promise<void> {
  const events = ctx.options.distributedCopyEvents;
  const envs = '/v2/projects/default/envs';
  const source = await m.deployment.admin.ok('POST', envs, { key: 'copy-source', name: 'Copy source' });
  ctx.log(`${m.deployment.id}: ${events.toLocaleString('en-US')} events appended to a new environment's stream, then projected`);
  const head = await m.deployment.appendToLog(streams.environment(source.id as string), syntheticEnvironment(events, 20_000));
  await waitForProjection(m.deployment, head, 1_800_000);
  ctx.log(`${m.deployment.id}: copy of ${events.toLocaleString('en-US')} events until visible`);
  const { result: seconds, spent } = await spending(m.deployment, async () => {
    const started = performance.now();
    let result = await m.deployment.admin.ok('POST', `${envs}/copy-source/copy/async`, {
      target_env: { new: { key: 'copy-target', name: 'Copy target' } },
      scope: { facts: true },
    });
    const taskId = result.task_id as string;
    // The task read model says success once the projections reached the copy's last event: the copy is visible.
    while (result.status === 'processing')
      result = await m.deployment.admin.ok('GET', `${envs}/copy-source/copy/async/${taskId}/result?wait=2`);
    if (result.status !== 'success') throw new Error(`${m.deployment.label}: copy ${result.status}: ${JSON.stringify(result.error)}`);
    return (performance.now() - started) / 1000;
  });
  m.copy = { events, seconds, spent };
}

const round = (n: number) => Math.round(n).toLocaleString('en-US');

function rows(ctx: Ctx, runs: Measured[]): ScenarioResult[] {
  const [embedded, ...distributedRuns] = runs as [Measured, ...Measured[]];
  const variant = (m: Measured) => VARIANTS[m.deployment.id]!;
  const out: ScenarioResult[] = [];
  /** A row of a distributed deployment, with the one-process service's figure as its baseline (the ratio column). */
  const row = (
    m: Measured,
    id: string,
    title: string,
    unit: string,
    better: 'higher' | 'lower',
    value: (x: Measured) => number,
    extra: (x: Measured) => Partial<ScenarioResult>,
  ): ScenarioResult => {
    const base = value(embedded);
    return {
      id: `dist-${id}${variant(m).suffix}`,
      title: `${title}${variant(m).title}`,
      value: value(m),
      unit,
      better,
      baseline: { value: base, unit, ratio: value(m) / base },
      ...extra(m),
    };
  };
  for (const m of distributedRuns) {
    out.push(
      row(
        m,
        'bulk-load',
        'distributed: bulk load until visible',
        'objects/s',
        'higher',
        (x) => x.bulk!.objects / x.bulk!.seconds,
        (x) => ({
          notes: `${round(x.bulk!.objects)} objects in ${x.bulk!.seconds.toFixed(1)} s (${round(x.bulk!.events)} events); one process: ${embedded.bulk!.seconds.toFixed(1)} s; cores busy: ${busy(x.bulk!.spent)}; one process: ${busy(embedded.bulk!.spent)}`,
        }),
      ),
    );
  }
  for (const [kind, pick] of [
    ['check-uncached', (x: Measured) => x.uncached!],
    ['check', (x: Measured) => x.cached!],
  ] as const) {
    for (const m of distributedRuns) {
      out.push(
        row(
          m,
          kind,
          `distributed: POST /allowed${kind === 'check-uncached' ? ', uncached' : ', cached'}`,
          'req/s',
          'higher',
          (x) => pick(x).load.median.rps,
          (x) => ({
            p50Ms: pick(x).load.median.p50Ms,
            p99Ms: pick(x).load.median.p99Ms,
            runs: pick(x).load.runs.map((r) => r.rps),
            notes: `${ctx.options.connections} conns; CPU per check: command service ${round(per(pick(x).spent, 'command', pick(x).sent))} µs${storeNote(x, pick(x))}, one process ${round(per(pick(embedded).spent, 'service', pick(embedded).sent))} µs; cores busy: ${busy(pick(x).spent)}`,
          }),
        ),
      );
    }
  }
  for (const m of distributedRuns) {
    out.push(
      row(
        m,
        'create',
        'distributed: POST resource_instances (durable, visible)',
        'req/s',
        'higher',
        (x) => x.creates!.load.median.rps,
        (x) => ({
          p50Ms: x.creates!.load.median.p50Ms,
          p99Ms: x.creates!.load.median.p99Ms,
          runs: x.creates!.load.runs.map((r) => r.rps),
          notes: `${ctx.options.connections} conns; CPU per create: ${Object.keys(x.creates!.spent.cpu)
            .filter((p) => !p.endsWith('MainThread'))
            .map((p) => `${p} ${round(per(x.creates!.spent, p, x.creates!.sent))} µs`)
            .join(
              ', ',
            )}; one process ${round(per(embedded.creates!.spent, 'service', embedded.creates!.sent))} µs; cores busy: ${busy(x.creates!.spent)}`,
        }),
      ),
      row(
        m,
        'append',
        'distributed: append latency under single creates (p99)',
        'ms',
        'lower',
        (x) => x.creates!.appendP99Ms,
        (x) => ({
          p50Ms: x.creates!.appendP50Ms,
          p99Ms: x.creates!.appendP99Ms,
          notes: `the services' own histogram (rebac_event_store_append_duration_seconds, group-commit wait included), interpolated within its buckets; ${round(x.creates!.appends)} appends; one process p50 ${embedded.creates!.appendP50Ms.toFixed(1)} ms, p99 ${embedded.creates!.appendP99Ms.toFixed(1)} ms`,
        }),
      ),
    );
  }
  for (const m of distributedRuns) {
    out.push(
      row(
        m,
        'copy',
        `distributed: copy of a ${round(ctx.options.distributedCopyEvents)}-event environment until visible`,
        'events/s',
        'higher',
        (x) => x.copy!.events / x.copy!.seconds,
        (x) => ({
          notes: `${x.copy!.seconds.toFixed(1)} s request → visible; one process ${embedded.copy!.seconds.toFixed(1)} s; cores busy: ${busy(x.copy!.spent)}; one process: ${busy(embedded.copy!.spent)}`,
        }),
      ),
    );
  }
  const costs: Record<string, DistributedCosts> = {};
  for (const m of distributedRuns) costs[COSTS_KEYS[m.deployment.id]!] = measuredCosts(m);
  const text = (c: DistributedCosts) =>
    `per create: command ${round(c.commandPerCreateUs)} µs (main thread ${round(c.commandMainPerCreateUs)}), PostgreSQL ${round(c.postgresPerAppendUs)} µs, projection runner ${round(c.projectionPerEventUs)} µs (main thread ${round(c.projectionMainPerEventUs)}), read-model server ${round(c.readModelStorePerEventUs)} µs; per check: command ${round(c.commandPerCheckUs)} µs cached (+ read-model server ${round(c.readModelStorePerCachedCheckUs ?? 0)} µs), ${round(c.commandPerUncachedCheckUs)} uncached (+ read-model server ${round(c.readModelStorePerUncachedCheckUs)} µs)`;
  out.push({
    id: 'dist-costs',
    title: 'distributed: measured CPU costs (bench/distributed-capacity.ts)',
    value: Object.values(costs)[0]?.commandPerCreateUs ?? NaN,
    unit: 'µs',
    better: 'lower',
    notes: [
      costs.ferretdb && `FerretDB: ${text(costs.ferretdb)}`,
      costs.postgres && `read models on PostgreSQL (its read-model server is the log's: PostgreSQL's whole CPU): ${text(costs.postgres)}`,
      costs.sqlite && `read models on SQLite: ${text(costs.sqlite)}`,
    ]
      .filter(Boolean)
      .join('; '),
    details: { costs },
  });
  return out;
}

/** `dist-costs`' keys (bench/distributed-capacity.ts reads them). */
const COSTS_KEYS: Record<string, string> = { distributed: 'ferretdb', 'distributed-postgres': 'postgres', 'distributed-sqlite': 'sqlite' };

/** The read-model server's CPU per check, for the check rows' notes (none with read models on SQLite). */
function storeNote(m: Measured, load: { spent: Spent; sent: number }): string {
  if (m.deployment.id === 'distributed-postgres') return `, PostgreSQL ${round(per(load.spent, 'postgres', load.sent))} µs`;
  return load.spent.cpu.ferretdb === undefined ? '' : `, FerretDB ${round(per(load.spent, 'ferretdb', load.sent))} µs`;
}

/**
 * A distributed deployment's CPU per request and per event, for the capacity on paper. With read
 * models on PostgreSQL, one server has the log and the read models: its CPU per create (append and
 * projected event together) is PostgreSQL's, and the read-model store's own per event is none, so
 * the paper does not count it twice.
 */
function measuredCosts(m: Measured): DistributedCosts {
  const creates = m.creates!;
  const cached = m.cached!;
  const uncached = m.uncached!;
  return {
    commandPerCheckUs: per(cached.spent, 'command', cached.sent),
    commandMainPerCheckUs: per(cached.spent, 'commandMainThread', cached.sent),
    commandPerUncachedCheckUs: per(uncached.spent, 'command', uncached.sent),
    commandMainPerUncachedCheckUs: per(uncached.spent, 'commandMainThread', uncached.sent),
    readModelStorePerUncachedCheckUs: store(m, uncached.spent, uncached.sent),
    readModelStorePerCachedCheckUs: store(m, cached.spent, cached.sent),
    commandPerCreateUs: per(creates.spent, 'command', creates.sent),
    commandMainPerCreateUs: per(creates.spent, 'commandMainThread', creates.sent),
    postgresPerAppendUs: per(creates.spent, 'postgres', creates.sent),
    projectionPerEventUs: per(creates.spent, 'projection', creates.sent),
    projectionMainPerEventUs: per(creates.spent, 'projectionMainThread', creates.sent),
    readModelStorePerEventUs: m.deployment.id === 'distributed-postgres' ? 0 : store(m, creates.spent, creates.sent),
    measured: {
      cachedChecksPerS: cached.load.median.rps,
      uncachedChecksPerS: uncached.load.median.rps,
      createsPerS: creates.load.median.rps,
    },
  };
}
