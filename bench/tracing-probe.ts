/**
 * What tracing costs a cached check under variants of its settings, side by side: each variant a
 * service of this build (one HTTP process) with its own environment, given the tracing bench's
 * world, then steady loads of cached checks taking turns round after round, the CPU per check of
 * every process of each service, and the median of each round's difference from the first
 * variant. For questions the tracing scenario's three modes do not ask (docs/tracing.md, "What it
 * costs"; the runs are in docs/bench-history):
 *
 *   node -r @swc-node/register bench/tracing-probe.ts 'off:' \
 *     'at-1pct:OTEL_TRACES_SAMPLER=parentbased_traceidratio,OTEL_TRACES_SAMPLER_ARG=0.01' \
 *     'held:OTEL_TRACES_SAMPLER=parentbased_traceidratio,OTEL_TRACES_SAMPLER_ARG=0.01,OTEL_BSP_SCHEDULE_DELAY=3600000' \
 *     [--rounds=10] [--seconds=5] [--rate=1000] [--size=1000]
 *
 * A variant is `name:VAR=value,…`. A variant that sets any OTEL_ variable exports to a sink in this
 * process (OTEL_EXPORTER_OTLP_ENDPOINT); one without runs with tracing off. `PROBE_SAMPLED_S=n` is
 * not passed on: before the rounds, that variant answers n seconds of checks sent with a sampled
 * `traceparent` (its sampled path warmed, or a state left behind by sampled requests).
 */
import { cpuSecondsOf } from './lib/child';
import { medianBy, runLoad } from './lib/load';
import { environmentKey, startService, type RunningService } from './lib/service';
import { loadTracingWorld, startSink, tracingCheckBodies } from './lib/tracing-world';

interface Variant {
  name: string;
  env: Record<string, string>;
  sampledWarmS: number;
}

const SAMPLED_TRACEPARENT = `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01`;

function variantOf(argument: string): Variant {
  const colon = argument.indexOf(':');
  if (colon < 1) throw new Error(`a variant is name:VAR=value,… (got '${argument}')`);
  const env: Record<string, string> = {};
  for (const pair of argument
    .slice(colon + 1)
    .split(',')
    .filter(Boolean)) {
    const equals = pair.indexOf('=');
    if (equals < 1) throw new Error(`'${pair}' in variant '${argument}' is not VAR=value`);
    env[pair.slice(0, equals)] = pair.slice(equals + 1);
  }
  const sampledWarmS = Number(env.PROBE_SAMPLED_S ?? 0);
  delete env.PROBE_SAMPLED_S;
  return { name: argument.slice(0, colon), env, sampledWarmS };
}

function option(name: string, fallback: number): number {
  const given = process.argv.find((a) => a.startsWith(`--${name}=`));
  return given ? Number(given.slice(name.length + 3)) : fallback;
}

const lowerMedian = (values: number[]): number => medianBy(values, (v) => v);

async function main(): Promise<void> {
  const variants = process.argv
    .slice(2)
    .filter((a) => !a.startsWith('--'))
    .map(variantOf);
  if (variants.length < 2) throw new Error('give at least two variants; the first is the one the others are compared with');
  const rounds = option('rounds', 10);
  const seconds = option('seconds', 5);
  const rate = option('rate', 1_000);
  const size = option('size', 1_000);
  const sink = await startSink();
  const services: RunningService[] = [];
  try {
    const keys: Array<Record<string, string>> = [];
    for (const variant of variants) {
      const tracingOn = Object.keys(variant.env).some((name) => name.startsWith('OTEL_'));
      const env = { HTTP_WORKERS: '1', ...(tracingOn ? { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url } : {}), ...variant.env };
      const service = await startService({ env });
      services.push(service);
      const api = await environmentKey(service.admin);
      await loadTracingWorld(api, size);
      keys.push(api.headers);
    }
    const bodies = tracingCheckBodies(size);
    let next = 0;
    const load = (i: number, durationS: number, extraHeaders: Record<string, string> = {}) =>
      runLoad({
        url: `${services[i]!.url}/allowed`,
        headers: { ...keys[i]!, ...extraHeaders },
        body: () => bodies[next++ % bodies.length]!,
        connections: 16,
        durationS,
        rate,
      });
    /** CPU per answered check of every process of variant `i`'s service, over one steady load. */
    const cpuPerCheckUs = async (i: number): Promise<number> => {
      const pid = services[i]!.child.pid;
      const before = cpuSecondsOf(pid);
      const run = await load(i, seconds);
      const after = cpuSecondsOf(pid);
      return before === null || after === null ? NaN : ((after - before) / run.ok) * 1e6;
    };
    for (const [i, variant] of variants.entries()) {
      await load(i, Math.max(seconds, 5));
      if (variant.sampledWarmS > 0) {
        await load(i, variant.sampledWarmS, { traceparent: SAMPLED_TRACEPARENT });
        await load(i, Math.max(seconds, 5));
      }
    }
    const measured = variants.map(() => [] as number[]);
    for (let round = 0; round < rounds; round++) {
      for (const i of variants.keys()) measured[i]!.push(await cpuPerCheckUs(i));
    }
    const base = measured[0]!;
    console.log(`cached POST /allowed at ${rate}/s, ${rounds} rounds of ${seconds} s taking turns, CPU per check (every process)`);
    for (const [i, variant] of variants.entries()) {
      const differences = measured[i]!.map((us, round) => us - base[round]!);
      console.log(
        `${variant.name.padEnd(16)} ${lowerMedian(measured[i]!).toFixed(1).padStart(6)} µs` +
          (i === 0
            ? ''
            : `; vs ${variants[0]!.name}: ${lowerMedian(differences) >= 0 ? '+' : ''}${lowerMedian(differences).toFixed(1)} µs (rounds: ${differences.map((d) => d.toFixed(0)).join(' ')})`),
      );
    }
  } finally {
    for (const service of services) await service.stop();
    await sink.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
