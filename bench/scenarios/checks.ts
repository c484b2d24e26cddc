import { availableParallelism } from 'node:os';
import type { BenchContext } from '../lib/context';
import { TENANT, type Check } from '../lib/dataset';
import type { ScenarioResult } from '../lib/results';

export const checkBody = (c: Check) => ({
  user: { key: c.user },
  action: c.action,
  resource: { type: 'document', key: c.document, tenant: TENANT },
});

/** Answers of the service for `checks` compared with the data set's reference answers. */
export async function verifyChecks(ctx: BenchContext, checks: Check[]): Promise<{ checked: number; wrong: number; allowed: number }> {
  const answers = await ctx.api.ok('POST', '/allowed/bulk', checks.map(checkBody));
  const allow = (answers.allow as Array<{ allow: boolean }>).map((a) => a.allow);
  return { checked: checks.length, wrong: allow.filter((a, i) => a !== checks[i]!.expected).length, allowed: allow.filter(Boolean).length };
}

const rotate = <T>(items: T[]) => {
  let i = 0;
  return () => items[i++ % items.length]!;
};

/**
 * The service's decision cache (exact: emptied by every projected event) is on
 * unless a request says `Cache-Control: no-cache`; the uncached rows show what
 * a check costs when it has to read the store (the first check after a write).
 */
const NO_CACHE = { 'cache-control': 'no-cache' };
const withHeaders = (ctx: BenchContext, fromStore: boolean) => (fromStore ? { ...ctx.api.headers, ...NO_CACHE } : ctx.api.headers);

/**
 * Asks every check of the run once (bulk, 1,000 a request), so the cached rows
 * measure the steady state of a read-mostly service whose working set of
 * checks fits the cache, rather than the first pass through 20,000 distinct
 * checks (which the uncached row measures).
 */
export async function primeDecisionCache(ctx: BenchContext): Promise<void> {
  for (let i = 0; i < ctx.checks.length; i += 1000) await ctx.api.ok('POST', '/allowed/bulk', ctx.checks.slice(i, i + 1000).map(checkBody));
}

/**
 * `POST /allowed`: one check per request, about half allowed through a derived role, 64 connections.
 * `oneWorker`: the service runs with HTTP_WORKERS=1 (the caller restarts it so), the row of what one
 * process does against the bare express baseline (which is one process too).
 */
export async function checkScenario(ctx: BenchContext, { fromStore = false, oneWorker = false } = {}): Promise<ScenarioResult> {
  const { connections } = ctx.options;
  const verified = await verifyChecks(ctx, ctx.checks.slice(0, 1000));
  if (verified.wrong > 0) throw new Error(`${verified.wrong} of ${verified.checked} answers differ from the reference`);
  const bodies = ctx.checks.map((c) => JSON.stringify(checkBody(c)));
  const sample = await ctx.api.request('POST', '/allowed', bodies[0]);
  const label = fromStore ? 'check-uncached' : oneWorker ? 'check-one-worker' : 'check';
  if (!fromStore) await primeDecisionCache(ctx);
  ctx.log(`/allowed: ${ctx.checks.length} distinct checks, ${connections} connections${fromStore ? ', Cache-Control: no-cache' : ''}`);
  const measured = await ctx.measure({
    url: `${ctx.service.url}/allowed`,
    headers: withHeaders(ctx, fromStore),
    body: rotate(bodies),
    connections,
    label,
  });
  const base = await ctx.baselineFor(sample.bytes, connections);
  const ratio = measured.median.rps / base.median.rps;
  return {
    id: label,
    title: fromStore
      ? 'POST /allowed, uncached (Cache-Control: no-cache)'
      : oneWorker
        ? 'POST /allowed, one HTTP worker (HTTP_WORKERS=1)'
        : 'POST /allowed (mixed, derived roles)',
    value: measured.median.rps,
    unit: 'req/s',
    better: 'higher',
    p50Ms: measured.median.p50Ms,
    p99Ms: measured.median.p99Ms,
    baseline: { value: base.median.rps, unit: 'req/s', ratio },
    runs: measured.runs.map((r) => r.rps),
    target: oneWorker
      ? { text: '≥ 75% of baseline (one process each)', met: ratio >= 0.75 }
      : { text: '≥ 60% of baseline, p99 < 5 ms', met: ratio >= 0.6 && measured.median.p99Ms < 5 },
    notes: `${oneWorker ? '1 HTTP worker' : `HTTP_WORKERS=${process.env.HTTP_WORKERS ?? `auto (${availableParallelism()} processes)`}`}; ${connections} conns; ${Math.round((100 * verified.allowed) / verified.checked)}% allowed; answers verified on ${verified.checked} checks; baseline p50 ${base.median.p50Ms} ms, p99 ${base.median.p99Ms} ms`,
    details: { runs: measured.runs, baselineRuns: base.runs, responseBytes: sample.bytes },
  };
}

/**
 * The same checks at low concurrency (4 connections): latency when requests
 * do not queue behind each other. At 64 closed-loop connections, p50 is about
 * 64 / throughput (Little's law), so the 64-connection p99 mostly measures the
 * queue; this row shows the service time.
 */
export async function checkLatencyScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const connections = 4;
  const bodies = ctx.checks.map((c) => JSON.stringify(checkBody(c)));
  ctx.log(`/allowed: ${connections} connections (latency)`);
  const measured = await ctx.measure({
    url: `${ctx.service.url}/allowed`,
    headers: ctx.api.headers,
    body: rotate(bodies),
    connections,
    label: 'check-latency',
  });
  const sample = await ctx.api.request('POST', '/allowed', bodies[0]);
  const base = await ctx.baselineFor(sample.bytes, connections);
  return {
    id: 'check-latency',
    title: 'POST /allowed, 4 connections (latency)',
    value: measured.median.rps,
    unit: 'req/s',
    better: 'higher',
    p50Ms: measured.median.p50Ms,
    p99Ms: measured.median.p99Ms,
    baseline: { value: base.median.rps, unit: 'req/s', ratio: measured.median.rps / base.median.rps },
    runs: measured.runs.map((r) => r.rps),
    target: { text: 'p99 < 5 ms', met: measured.median.p99Ms < 5 },
    notes: `${connections} conns; baseline p50 ${base.median.p50Ms} ms, p99 ${base.median.p99Ms} ms`,
    details: { runs: measured.runs, baselineRuns: base.runs },
  };
}

/** `POST /allowed/bulk` with 100 checks per request. */
export async function bulkCheckScenario(ctx: BenchContext, { fromStore = false } = {}): Promise<ScenarioResult> {
  const perRequest = 100;
  const connections = 4;
  const bodies: string[] = [];
  for (let i = 0; i + perRequest <= ctx.checks.length; i += perRequest)
    bodies.push(JSON.stringify(ctx.checks.slice(i, i + perRequest).map(checkBody)));
  if (!fromStore) await primeDecisionCache(ctx);
  const sample = await ctx.api.request('POST', '/allowed/bulk', bodies[0]);
  if (sample.status !== 200 || sample.body.allow.length !== perRequest) throw new Error(`/allowed/bulk answered ${sample.status}`);
  const label = fromStore ? 'bulk-check-uncached' : 'bulk-check';
  ctx.log(`/allowed/bulk: ${perRequest} checks per request, ${connections} connections${fromStore ? ', Cache-Control: no-cache' : ''}`);
  const measured = await ctx.measure({
    url: `${ctx.service.url}/allowed/bulk`,
    headers: withHeaders(ctx, fromStore),
    body: rotate(bodies),
    connections,
    label,
  });
  const checksPerS = measured.median.rps * perRequest;
  // The ceiling: a bare express route parsing the same 100-check bodies and answering as many bytes.
  const base = await ctx.baselineFor(sample.bytes, connections, { label: `${perRequest}-check bodies`, next: rotate(bodies) });
  return {
    id: label,
    title: fromStore ? 'POST /allowed/bulk, uncached (no-cache)' : 'POST /allowed/bulk (100 checks)',
    value: checksPerS,
    unit: 'checks/s',
    better: 'higher',
    p50Ms: measured.median.p50Ms,
    p99Ms: measured.median.p99Ms,
    runs: measured.runs.map((r) => r.rps * perRequest),
    baseline: { value: base.median.rps * perRequest, unit: 'checks/s', ratio: measured.median.rps / base.median.rps },
    target: { text: '≥ 200,000 checks/s', met: checksPerS >= 200_000 },
    notes: `${connections} conns, ${Math.round(measured.median.rps)} req/s; baseline parses the same bodies: ${Math.round(base.median.rps)} req/s`,
    details: { runs: measured.runs, baselineRuns: base.runs, responseBytes: sample.bytes },
  };
}
