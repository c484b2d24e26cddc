import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../lib/child';
import type { ScenarioResult } from '../lib/results';
import { startService, type RunningService, type ServiceOptions } from '../lib/service';
import { tracePointCostsNs } from '../lib/trace-point-cost';

/**
 * What tracing costs a request while it is off (issue 48: nothing measurable, ≤ 2%). Timing a
 * service with tracing off against a build without tracing cannot show 2% on a shared two-core
 * machine whose runs vary by more, so the cost is counted instead: a service of this build, tracing
 * off, with every exported tracing function wrapped by a counter (bench/lib/trace-point-counter.cjs),
 * takes the same loads as the timed services; the trace points a request passes, by function,
 * times what each costs per call while off (bench/lib/trace-point-cost.ts, measured in this
 * process), over the CPU the timed service with tracing off spends per request in this run.
 * The counted service is never timed (its counters cost more than what they count).
 */
export interface CountedService {
  service: RunningService;
  /** Calls so far, by `<module>.<function>`, summed over the service's threads. */
  counts(): Map<string, number>;
  stop(): Promise<void>;
}

export async function startCountedService(options: ServiceOptions): Promise<CountedService> {
  const dir = mkdtempSync(join(tmpdir(), 'rebac-trace-points-'));
  const preload = `-r ${join(ROOT, 'bench', 'lib', 'trace-point-counter.cjs')}`;
  const service = await startService({
    ...options,
    env: { ...options.env, TRACE_POINT_COUNTS_DIR: dir },
    nodeOptions: [options.nodeOptions, preload].filter(Boolean).join(' '),
  });
  return {
    service,
    counts() {
      const total = new Map<string, number>();
      for (const file of readdirSync(dir).filter((name) => name.endsWith('.json'))) {
        const counts = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Record<string, number>;
        for (const [name, calls] of Object.entries(counts)) total.set(name, (total.get(name) ?? 0) + calls);
      }
      return total;
    },
    async stop() {
      await service.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The calls of each trace point between two readings, per request answered. */
export function callsPerRequest(before: Map<string, number>, after: Map<string, number>, requests: number): Map<string, number> {
  const per = new Map<string, number>();
  for (const [name, calls] of after) {
    const made = calls - (before.get(name) ?? 0);
    if (made > 0) per.set(name, made / requests);
  }
  return per;
}

/** The row: the trace points' cost per request while off, as a share of the CPU per request of the service with tracing off. */
export function tracingOffRow(kind: 'check' | 'create', what: string, perRequest: Map<string, number>, offCpuUs: number): ScenarioResult {
  const costs = tracePointCostsNs(perRequest.keys());
  const unmeasured = [...costs].filter(([, ns]) => ns === null).map(([name]) => name);
  let ns = 0;
  const points: string[] = [];
  for (const [name, calls] of [...perRequest].sort((a, b) => b[1] - a[1])) {
    const each = costs.get(name) ?? null;
    if (each !== null) ns += calls * each;
    points.push(`${name} ${calls.toFixed(2)}× ${each === null ? '(not measured)' : `${each.toFixed(1)} ns`}`);
  }
  const share = ns / 1000 / offCpuUs;
  return {
    id: `tracing-${kind}-off`,
    title: `${what}, tracing off: its trace points' cost per request, share of the CPU per request`,
    value: share * 100,
    unit: '%',
    better: 'lower',
    target: { text: 'tracing off costs ≤ 2%', met: unmeasured.length === 0 ? share <= 0.02 : null },
    notes:
      `${(ns / 1000).toFixed(3)} µs per request in trace points, over the ${offCpuUs.toFixed(0)} µs of CPU per request the service with tracing off spent at the same rate in this run; per request: ${points.join(', ') || 'none'}` +
      (unmeasured.length ? `; no cost measured for ${unmeasured.join(', ')}` : ''),
    details: { perRequest: Object.fromEntries(perRequest), costsNs: Object.fromEntries(costs) },
  };
}
