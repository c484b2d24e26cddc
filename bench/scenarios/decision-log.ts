import type { BenchContext } from '../lib/context';
import type { Repeated } from '../lib/load';
import type { ScenarioResult } from '../lib/results';
import { restartService } from '../lib/service';
import { checkBody, primeDecisionCache } from './checks';

/**
 * What decision logs cost a check (docs/decision-logs.md): the cached `POST /allowed` load (the
 * cheapest check, where a fixed cost per decision shows most) on the same data, the service
 * restarted with DECISION_LOG=off and with DECISION_LOG=full, alternated twice so that a drift of
 * the host's speed falls on both. The row's figure is the throughput with full logging, its
 * baseline the throughput without; the target is the issue's: at most 5% off either.
 */
export async function decisionLogScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const { connections } = ctx.options;
  const bodies = ctx.checks.map((c) => JSON.stringify(checkBody(c)));
  let next = 0;
  const body = () => bodies[next++ % bodies.length]!;
  const measured: Record<'off' | 'full', Repeated[]> = { off: [], full: [] };
  let written = 0;
  try {
    for (const mode of ['off', 'full', 'off', 'full'] as const) {
      await restartService(ctx, { DECISION_LOG: mode });
      await primeDecisionCache(ctx);
      ctx.log(`/allowed with DECISION_LOG=${mode}: ${connections} connections`);
      measured[mode].push(
        await ctx.measure({
          url: `${ctx.service.url}/allowed`,
          headers: ctx.api.headers,
          body,
          connections,
          label: `decision-log-${mode}`,
        }),
      );
      if (mode === 'full') written = await loggedCount(ctx);
    }
  } finally {
    await restartService(ctx, {});
  }
  const all = (mode: 'off' | 'full') => measured[mode].flatMap((m) => m.runs);
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const off = { rps: median(all('off').map((r) => r.rps)), p99: median(all('off').map((r) => r.p99Ms)) };
  const full = { rps: median(all('full').map((r) => r.rps)), p99: median(all('full').map((r) => r.p99Ms)) };
  const ratio = full.rps / off.rps;
  const p99Ratio = full.p99 / off.p99;
  return {
    id: 'decision-log',
    title: 'decision log: POST /allowed with DECISION_LOG=full vs off',
    value: full.rps,
    unit: 'req/s',
    better: 'higher',
    p50Ms: median(all('full').map((r) => r.p50Ms)),
    p99Ms: full.p99,
    baseline: { value: off.rps, unit: 'req/s', ratio },
    runs: all('full').map((r) => r.rps),
    target: { text: '≥ 95% of off, p99 ≤ 105% of off', met: ratio >= 0.95 && p99Ratio <= 1.05 },
    notes: `off: ${Math.round(off.rps)} req/s, p99 ${off.p99} ms; full: p99 ${full.p99} ms (${(100 * p99Ratio).toFixed(0)}% of off); ${written.toLocaleString('en-US')} entries in the log after the last full run; ${connections} conns, cached checks, runs alternated off/full twice`,
    details: { off: all('off'), full: all('full') },
  };
}

/** How many entries the environment's decision log holds (`total_count` of a one-entry page). */
async function loggedCount(ctx: BenchContext): Promise<number> {
  const scope = await ctx.api.ok('GET', '/v2/api-key/scope');
  const page = await ctx.api.ok('GET', `/v2/pdps/${scope.project_id}/${scope.environment_id}/audit_logs?per_page=1`);
  return page.total_count as number;
}
