import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BenchContext } from '../lib/context';
import { runLoad, type LoadRun } from '../lib/load';
import type { ScenarioResult } from '../lib/results';
import { environmentKey, startService, type RunningService } from '../lib/service';

const SCHEMA = '/v2/schema/default/production';
const FACTS = '/v2/facts/default/production';
const TENANT = 'acme';
/** Distinct checks each load rotates through. */
const CHECKS = 4_000;

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
 * machine falls on every mode alike; each row's figure is the median round's. One process per
 * service (HTTP_WORKERS=1): the ratio is the cost per request of one process.
 *
 * Targets (issue 48): on at 1%, at most 5% fewer requests per second than off. That off costs
 * nothing against a build without tracing is not measured here (the same build runs every mode):
 * bench/compare.ts on the main check and create rows of two runs, before and after, says it.
 */
export async function tracingScenarios(ctx: Pick<BenchContext, 'options' | 'log'>): Promise<ScenarioResult[]> {
  const { durationS, warmupS } = ctx.options;
  const rounds = Math.max(3, ctx.options.repeat);
  const sink = await startSink();
  const services = new Map<ModeId, RunningService>();
  try {
    for (const mode of MODES) {
      const endpoint = mode.id === 'off' ? {} : { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, ...mode.env };
      services.set(mode.id, await startService({ env: { HTTP_WORKERS: '1', ...endpoint }, nodeOptions: ctx.options.serverNodeOptions }));
    }
    const keys = new Map<ModeId, Record<string, string>>();
    const size = ctx.options.mode === 'quick' ? 1_000 : 10_000;
    ctx.log(`tracing: ${size.toLocaleString('en-US')} users and documents in each of ${MODES.length} services (off, 1%, 100%)`);
    for (const [id, service] of services) {
      const api = await environmentKey(service.admin);
      await loadData(api, size);
      keys.set(id, api.headers);
    }
    const check = (k: number) =>
      JSON.stringify({
        user: `u${(3 * k) % size}`,
        action: 'read',
        resource: { type: 'document', key: `d${(7 * k) % size}`, tenant: TENANT },
      });
    const checkBodies = Array.from({ length: CHECKS }, (_, k) => check(k));
    let created = 0;
    const loads = {
      check: (id: ModeId, seconds: number) => {
        let k = 0;
        return runLoad({
          url: `${services.get(id)!.url}/allowed`,
          headers: keys.get(id)!,
          body: () => checkBodies[k++ % CHECKS]!,
          connections: 16,
          durationS: seconds,
        });
      },
      create: (id: ModeId, seconds: number) =>
        runLoad({
          url: `${services.get(id)!.url}${FACTS}/resource_instances`,
          headers: keys.get(id)!,
          body: () => JSON.stringify({ key: `w${created++}`, resource: 'document', tenant: TENANT }),
          connections: 16,
          durationS: seconds,
        }),
    };
    const measured: Record<'check' | 'create', Record<ModeId, LoadRun[]>> = {
      check: { off: [], '1pct': [], '100pct': [] },
      create: { off: [], '1pct': [], '100pct': [] },
    };
    for (const kind of ['check', 'create'] as const) {
      ctx.log(`tracing: ${kind}s, ${rounds} rounds of ${durationS} s per mode, 16 connections`);
      for (const mode of MODES) if (warmupS > 0) await loads[kind](mode.id, warmupS);
      for (let round = 0; round < rounds; round++) {
        for (const mode of MODES) measured[kind][mode.id].push(await loads[kind](mode.id, durationS));
      }
    }
    ctx.log(`tracing: the sink took ${sink.exports} exports, ${(sink.bytes / 1e6).toFixed(1)} MB`);
    return (['check', 'create'] as const).flatMap((kind) => rows(kind, measured[kind], sink));
  } finally {
    for (const service of services.values()) await service.stop();
    await sink.close();
  }
}

function rows(kind: 'check' | 'create', runs: Record<ModeId, LoadRun[]>, sink: Sink): ScenarioResult[] {
  const median = (list: LoadRun[]) => [...list].sort((a, b) => a.rps - b.rps)[Math.floor((list.length - 1) / 2)]!;
  const off = median(runs.off);
  const title = kind === 'check' ? 'POST /allowed (cached, 16 conns)' : 'single creates (resource instance, 16 conns)';
  return (['1pct', '100pct'] as const).map((id) => {
    const on = median(runs[id]);
    const ratio = on.rps / off.rps;
    const target =
      id === '1pct' ? { text: 'tracing on at 1% costs ≤ 5% of throughput', met: ratio >= 0.95 } : { text: 'none (for reading)', met: null };
    return {
      id: `tracing-${kind}-${id}`,
      title: `${title}, ${MODES.find((m) => m.id === id)!.label}, vs off`,
      value: on.rps,
      unit: 'req/s',
      better: 'higher' as const,
      p50Ms: on.p50Ms,
      p99Ms: on.p99Ms,
      runs: runs[id].map((run) => run.rps),
      baseline: { value: off.rps, unit: 'req/s (tracing off)', ratio },
      target,
      notes: `off ${Math.round(off.rps)} req/s (p50 ${off.p50Ms} ms, p99 ${off.p99Ms} ms); on ${Math.round(on.rps)} req/s: ${ratio.toFixed(3)}× off; ${runs[id].length} rounds taking turns with off; sink ${sink.exports} exports in all`,
      details: { off: runs.off, on: runs[id] },
    };
  });
}

interface Sink {
  url: string;
  exports: number;
  bytes: number;
  close(): Promise<void>;
}

/** An OTLP/HTTP receiver that reads what it is sent and keeps nothing: what the services pay to export, without a backend's CPU. */
async function startSink(): Promise<Sink> {
  const sink = { exports: 0, bytes: 0 };
  const server = http.createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (sink.bytes += chunk.length));
    req.on('end', () => {
      sink.exports++;
      // An empty ExportTraceServiceResponse: everything accepted.
      res.writeHead(200, { 'content-type': 'application/x-protobuf', 'content-length': 0 }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(sink, {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** A document type with a tenant role that reads it, `size` users (every other one holding the role) and `size` documents. */
async function loadData(api: Awaited<ReturnType<typeof environmentKey>>, size: number): Promise<void> {
  await api.ok('POST', `${SCHEMA}/resources`, { key: 'document', name: 'Document', actions: { read: {} } });
  await api.ok('POST', `${SCHEMA}/roles`, { key: 'reader', name: 'Reader', permissions: ['document:read'] });
  await api.ok('POST', `${FACTS}/tenants`, { key: TENANT, name: 'Acme' });
  for (let from = 0; from < size; from += 1000) {
    const range = Array.from({ length: Math.min(1000, size - from) }, (_, k) => from + k);
    await api.ok('POST', `${FACTS}/bulk/users`, { operations: range.map((i) => ({ key: `u${i}` })) });
    await api.ok('PUT', `${FACTS}/bulk/resource_instances`, {
      operations: range.map((i) => ({ key: `d${i}`, resource: 'document', tenant: TENANT })),
    });
    await api.ok(
      'POST',
      `${FACTS}/role_assignments/bulk`,
      range.filter((i) => i % 2 === 0).map((i) => ({ user: `u${i}`, role: 'reader', tenant: TENANT })),
    );
  }
}
