import type { BenchContext } from '../lib/context';
import { cpuSecondsOf } from '../lib/child';
import { medianBy, runLoad, type LoadRun } from '../lib/load';
import type { ScenarioResult } from '../lib/results';
import { environmentKey, startService, type RunningService } from '../lib/service';
import { callsPerRequest, startCountedService, tracingOffRow } from './tracing-off';
import { loadTracingWorld, startSink, tracingCheckBodies, TRACING_CHECKS, TRACING_FACTS, TRACING_TENANT } from '../lib/tracing-world';

/** The three ways a service runs here: the same build, told by the OTEL_* variables only. */
const MODES = [
  { id: 'off', label: 'tracing off', env: {} },
  {
    id: '1pct',
    label: 'tracing on, 1% sampled',
    env: { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.01' },
  },
  { id: '100pct', label: 'tracing on, 100% sampled', env: { OTEL_TRACES_SAMPLER: 'always_on' } },
] as const;
type ModeId = (typeof MODES)[number]['id'];

/**
 * What tracing costs (docs/tracing.md): cached `POST /allowed` checks and single creates on three
 * services of the same build, run side by side from one data set: tracing off (no endpoint: the
 * SDK is not loaded), on at 1% sampling and on at 100%, exporting OTLP to a sink in this process
 * (it reads each export and answers 200; no Jaeger, whose CPU would be the services' too). The
 * loads take turns round after round (off, 1%, 100%, off, …), so a slower minute of this shared
 * machine falls on every mode alike; a throughput row's figure is the median round's, a CPU row's
 * the median of each round's on less that round's off (at least nine rounds). One process per
 * service (HTTP_WORKERS=1): the ratio is the cost per request of one process. Each load runs
 * twice: as fast as answered (16 connections; the throughput on vs off), and at a steady rate
 * well below that (the CPU per request on vs off, every process of the service counted).
 *
 * Target (issue 48): on at 1%, at most 5% of either; off, at most 2% against a build without
 * tracing, which is counted rather than timed (tracing-off.ts says why and how): a fourth service,
 * off, with its trace points counted, takes the steady loads after the timed rounds.
 */
export async function tracingScenarios(ctx: Pick<BenchContext, 'options' | 'log'>): Promise<ScenarioResult[]> {
  const { durationS, warmupS } = ctx.options;
  const rounds = Math.max(3, ctx.options.repeat);
  const sink = await startSink();
  const services = new Map<ModeId, RunningService>();
  try {
    for (const mode of MODES) {
      const endpoint = mode.id === 'off' ? {} : { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, ...mode.env };
      const cpuProfileDir = ctx.options.profileDir ? `${ctx.options.profileDir}/tracing-${mode.id}` : undefined;
      services.set(
        mode.id,
        await startService({ env: { HTTP_WORKERS: '1', ...endpoint }, nodeOptions: ctx.options.serverNodeOptions, cpuProfileDir }),
      );
    }
    const keys = new Map<ModeId, Record<string, string>>();
    const size = ctx.options.mode === 'quick' ? 1_000 : 10_000;
    ctx.log(`tracing: ${size.toLocaleString('en-US')} users and documents in each of ${MODES.length} services (off, 1%, 100%)`);
    for (const [id, service] of services) {
      const api = await environmentKey(service.admin);
      await loadTracingWorld(api, size);
      keys.set(id, api.headers);
    }
    const checkBodies = tracingCheckBodies(size);
    let created = 0;
    const bodies = {
      check: () => {
        let k = 0;
        return () => checkBodies[k++ % TRACING_CHECKS]!;
      },
      create: () => () => JSON.stringify({ key: `w${created++}`, resource: 'document', tenant: TRACING_TENANT }),
    };
    const paths = { check: '/allowed', create: `${TRACING_FACTS}/resource_instances` };
    /** One load on one mode's service: its throughput and the service's CPU per answered request. */
    const load = async (kind: Kind, shape: Shape, id: ModeId, seconds: number): Promise<Measured> => {
      const service = services.get(id)!;
      const cpuBefore = cpuSecondsOf(service.child.pid);
      const run = await runLoad({
        url: `${service.url}${paths[kind]}`,
        headers: keys.get(id)!,
        body: bodies[kind](),
        connections: 16,
        durationS: seconds,
        ...(shape === 'steady' ? { rate: STEADY_RATE[kind] } : {}),
      });
      const cpuAfter = cpuSecondsOf(service.child.pid);
      const cpuUs = cpuBefore === null || cpuAfter === null ? NaN : ((cpuAfter - cpuBefore) / run.ok) * 1e6;
      return { ...run, cpuUs };
    };
    /** The off rows: the same steady loads on a service whose trace points are counted (tracing-off.ts). */
    const countTracePointsOff = async (offCpuUs: Partial<Record<Kind, number>>): Promise<ScenarioResult[]> => {
      const counted = await startCountedService({ env: { HTTP_WORKERS: '1' }, nodeOptions: ctx.options.serverNodeOptions });
      try {
        const api = await environmentKey(counted.service.admin);
        await loadTracingWorld(api, size);
        const out: ScenarioResult[] = [];
        for (const kind of ['check', 'create'] as const) {
          ctx.log(`tracing: ${kind}s at ${STEADY_RATE[kind]} req/s with tracing off, trace points counted`);
          const before = counted.counts();
          const run = await runLoad({
            url: `${counted.service.url}${paths[kind]}`,
            headers: api.headers,
            body: bodies[kind](),
            connections: 16,
            durationS,
            rate: STEADY_RATE[kind],
          });
          await new Promise((resolve) => setTimeout(resolve, COUNTS_SETTLE_MS));
          const what = kind === 'check' ? 'POST /allowed (cached)' : 'single creates (resource instance)';
          out.push(tracingOffRow(kind, what, callsPerRequest(before, counted.counts(), run.ok), offCpuUs[kind] ?? NaN));
        }
        return out;
      } finally {
        await counted.stop();
      }
    };
    const out: ScenarioResult[] = [];
    /** The timed service's CPU per request with tracing off at the steady rate (median round), by kind. */
    const steadyOffCpuUs: Partial<Record<Kind, number>> = {};
    for (const kind of ['check', 'create'] as const) {
      for (const shape of ['saturated', 'steady'] as const) {
        const what = shape === 'steady' ? `${STEADY_RATE[kind]} req/s` : 'as fast as answered';
        const [times, seconds] =
          shape === 'steady' ? [Math.max(STEADY_ROUNDS, rounds), Math.max(STEADY_MIN_S, durationS)] : [rounds, durationS];
        ctx.log(`tracing: ${kind}s ${what}, ${times} rounds of ${seconds} s per mode taking turns, 16 connections`);
        for (const mode of MODES) if (warmupS > 0) await load(kind, shape, mode.id, warmupS);
        const measured: Record<ModeId, Measured[]> = { off: [], '1pct': [], '100pct': [] };
        for (let round = 0; round < times; round++) {
          for (const mode of MODES) measured[mode.id].push(await load(kind, shape, mode.id, seconds));
        }
        out.push(...rows(kind, shape, measured));
        if (shape === 'steady') steadyOffCpuUs[kind] = medianBy(measured.off, (m) => m.cpuUs).cpuUs;
      }
    }
    ctx.log(`tracing: the sink took ${sink.exports} exports, ${(sink.bytes / 1e6).toFixed(1)} MB`);
    out.push(...(await countTracePointsOff(steadyOffCpuUs)));
    return out;
  } finally {
    for (const service of services.values()) await service.stop();
    await sink.close();
  }
}

type Kind = 'check' | 'create';
/** As fast as the service answers (what a load test sees), or at a steady rate well below it (what a service in production mostly runs at). */
type Shape = 'saturated' | 'steady';
type Measured = LoadRun & { cpuUs: number };
const STEADY_RATE: Record<Kind, number> = { check: 1_000, create: 100 };
/**
 * The steady loads' rounds and their least length: the CPU figure is each round's on less its off,
 * and their median wants enough rounds; the kernel counts a process's CPU in 10 ms ticks, which at
 * 100 creates/s are 20 µs per create over 5 s.
 */
const STEADY_ROUNDS = 9;
const STEADY_MIN_S = 5;
/** Long enough for the projection thread to finish a load's last batch and every thread to write its counts (every 100 ms). */
const COUNTS_SETTLE_MS = 1_000;

/**
 * The rows of one load: saturated, the throughput on vs off (the median round of each); steady,
 * the service's CPU per request on vs off (the rate is the same, so the cost shows as CPU).
 */
function rows(kind: Kind, shape: Shape, runs: Record<ModeId, Measured[]>): ScenarioResult[] {
  const what = kind === 'check' ? 'POST /allowed (cached)' : 'single creates (resource instance)';
  return (['1pct', '100pct'] as const).map((id): ScenarioResult => {
    const label = MODES.find((m) => m.id === id)!.label;
    const target =
      id === '1pct' ? { text: 'tracing on at 1% costs ≤ 5%', met: null as boolean | null } : { text: 'none (for reading)', met: null };
    if (shape === 'saturated') {
      const off = medianBy(runs.off, (m) => m.rps);
      const on = medianBy(runs[id], (m) => m.rps);
      const ratio = on.rps / off.rps;
      if (id === '1pct') target.met = ratio >= 0.95;
      return {
        id: `tracing-${kind}-${id}`,
        title: `${what}, 16 conns, ${label}, vs off`,
        value: on.rps,
        unit: 'req/s',
        better: 'higher',
        p50Ms: on.p50Ms,
        p99Ms: on.p99Ms,
        runs: runs[id].map((run) => run.rps),
        baseline: { value: off.rps, unit: 'req/s (tracing off)', ratio },
        target,
        notes: `off ${Math.round(off.rps)} req/s (p50 ${off.p50Ms} ms, p99 ${off.p99Ms} ms, ${Math.round(off.cpuUs)} µs CPU per request); on ${Math.round(on.rps)} req/s (${Math.round(on.cpuUs)} µs CPU per request): ${ratio.toFixed(3)}× off; ${runs[id].length} rounds taking turns`,
        details: { off: runs.off, on: runs[id] },
      };
    }
    // Paired: each round's on less the same round's off, the median of those. A slower minute of
    // the machine falls on both of a pair, so the differences vary less than either mode's figures.
    const off = medianBy(runs.off, (m) => m.cpuUs);
    const extraUs = medianBy(
      runs[id].map((m, round) => m.cpuUs - runs.off[round]!.cpuUs),
      (difference) => difference,
    );
    const on = { ...medianBy(runs[id], (m) => m.cpuUs), cpuUs: off.cpuUs + extraUs };
    const ratio = on.cpuUs / off.cpuUs;
    if (id === '1pct') target.met = ratio <= 1.05;
    return {
      id: `tracing-${kind}-steady-${id}`,
      title: `${what} at ${STEADY_RATE[kind]} req/s, ${label}: CPU per request vs off`,
      value: on.cpuUs,
      unit: 'µs CPU/req',
      better: 'lower',
      p50Ms: on.p50Ms,
      p99Ms: on.p99Ms,
      runs: runs[id].map((run) => run.cpuUs),
      baseline: { value: off.cpuUs, unit: 'µs CPU/req (tracing off)', ratio },
      target,
      notes: `every process of the service; off ${Math.round(off.cpuUs)} µs (p50 ${off.p50Ms} ms, p99 ${off.p99Ms} ms), on ${extraUs >= 0 ? '+' : ''}${extraUs.toFixed(1)} µs (the median of each round's on less its off): ${ratio.toFixed(3)}× off; ${runs[id].length} rounds taking turns`,
      details: { off: runs.off, on: runs[id] },
    };
  });
}
