import type { BenchContext } from '../lib/context';
import { Dataset, prng, TENANT } from '../lib/dataset';
import type { HttpClient } from '../lib/http';
import { runMixedLoad, type MixedRequest } from '../lib/load';
import { FACTS, loadFacts, loadSchema } from '../lib/load-ours';
import type { ScenarioResult } from '../lib/results';
import { runOptions, startService } from '../lib/service';

const KINDS = ['check', 'list', 'write'] as const;
type Kind = (typeof KINDS)[number];
/** Share of each kind in the mix. */
const MIX: Record<Kind, number> = { check: 0.6, list: 0.25, write: 0.15 };
/** Pairs each write pool toggles through: far more than the writes in flight (≤ connections), so a pair's create has answered before its delete is sent. */
const POOL = 8192;
const RSS_SAMPLE_MS = 1000;

/** Least-squares slope of y over x. */
function slope(points: Array<[number, number]>): number {
  const n = points.length;
  if (n < 2) return NaN;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  const sxy = points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0);
  const sxx = points.reduce((a, [x]) => a + (x - mx) ** 2, 0);
  return sxy / sxx;
}

interface Window {
  fromS: number;
  toS: number;
  answers: number;
  rps: number;
  non2xx: number;
  errors: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  p99ByKind: Record<Kind, number>;
  /** RSS sampled every second during the window: least, median, most (GC makes it a sawtooth). */
  rssMinMiB: number;
  rssMedianMiB: number;
  rssMaxMiB: number;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Latencies of one window and kind, in a growable typed array (a 10-minute run answers millions of requests). */
class Samples {
  private data = new Float64Array(4096);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const grown = new Float64Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = v;
  }
  sorted(): Float64Array {
    return this.data.slice(0, this.length).sort();
  }
}

/**
 * The requests of the soak, drawn at random in the MIX proportions:
 * - checks: `POST /allowed` on the data set's checks (a read-level key);
 * - lists: a user's role assignments, a document's tuples, a page of documents (the read key);
 * - writes (a write-level key): role assignments and parent tuples created and
 *   deleted in turn over fixed pools, so the data set stays the same size and
 *   memory that grows is memory kept, not data added.
 */
function requests(dataset: Dataset, read: HttpClient, write: HttpClient): () => MixedRequest {
  const random = prng(11);
  const pick = (n: number) => Math.floor(random() * n);
  const { folders, documents, users } = dataset.size;
  const checks = dataset
    .checks(20_000, 13)
    .map((c) => JSON.stringify({ user: c.user, action: c.action, resource: { type: 'document', key: c.document, tenant: TENANT } }));
  const pool = Math.min(POOL, documents);
  let assignmentWrites = 0;
  let tupleWrites = 0;
  const json = (kind: Kind, method: MixedRequest['method'], path: string, key: HttpClient, body?: unknown): MixedRequest => ({
    kind,
    method,
    path,
    headers: key.headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return () => {
    const r = random();
    if (r < MIX.check)
      return { kind: 'check', method: 'POST', path: '/allowed', headers: read.headers, body: checks[pick(checks.length)]! };
    if (r < MIX.check + MIX.list) {
      switch (pick(3)) {
        case 0:
          return json('list', 'GET', `${FACTS}/role_assignments?user=u${pick(users)}&per_page=50`, read);
        case 1:
          return json('list', 'GET', `${FACTS}/relationship_tuples?object=document:d${pick(documents)}`, read);
        default:
          return json('list', 'GET', `${FACTS}/resource_instances?resource=document&per_page=20&page=${1 + pick(100)}`, read);
      }
    }
    if (random() < 0.5) {
      const n = assignmentWrites++;
      const i = n % pool;
      const body = { user: `soak-u${i % 997}`, role: 'viewer', resource_instance: `document:d${i}` };
      return json('write', Math.floor(n / pool) % 2 === 0 ? 'POST' : 'DELETE', `${FACTS}/role_assignments`, write, body);
    }
    const n = tupleWrites++;
    const d = n % pool;
    // A second parent folder for document d: derives that folder's roles onto it, and takes them back on delete.
    const body = { subject: `folder:f${(dataset.parentOf(d) + 1) % folders}`, relation: 'parent', object: `document:d${d}` };
    return json('write', Math.floor(n / pool) % 2 === 0 ? 'POST' : 'DELETE', `${FACTS}/relationship_tuples`, write, body);
  };
}

/**
 * The soak: a fresh service loaded with the run's data set, then mixed writes,
 * checks and lists on 64 connections for `--soak-duration` seconds (10 minutes;
 * 1 in quick mode). Prints, per minute (per sixth of a run shorter than five
 * minutes), the answers, errors, p50/p99 (overall and per kind) and the
 * server's RSS, and says whether RSS stayed flat and p99 stable.
 */
export async function soakScenario(ctx: Pick<BenchContext, 'options' | 'log'>): Promise<ScenarioResult> {
  const durationS = ctx.options.soakDurationS;
  const windowS = durationS >= 300 ? 60 : Math.max(5, Math.round(durationS / 6));
  const connections = ctx.options.connections;
  const service = await startService(runOptions(ctx.options, 'soak'));
  try {
    const key = async (access_level: string) =>
      service.admin.withKey(
        (
          await service.admin.ok('POST', '/v2/api-key', {
            project_id: 'default',
            environment_id: 'production',
            object_type: 'env',
            name: `soak ${access_level}`,
            access_level,
          })
        ).secret as string,
      );
    const [read, write] = [await key('read'), await key('write')];
    const dataset = new Dataset(ctx.options.dataset);
    await loadSchema(write);
    ctx.log(`soak: loading ${dataset.instances.toLocaleString('en-US')} instances and their facts`);
    await loadFacts(write, dataset, { chunk: ctx.options.bulkChunk, concurrency: 2 });

    const windows = Math.ceil(durationS / windowS);
    const samples = Array.from({ length: windows }, () => ({
      all: new Samples(),
      byKind: { check: new Samples(), list: new Samples(), write: new Samples() },
      non2xx: 0,
      errors: 0,
      rss: [] as number[],
    }));
    const statuses = new Map<string, number>();
    const errorBodies = new Map<string, number>();
    const windowAt = (ms: number) => Math.min(windows - 1, Math.floor(ms / 1000 / windowS));
    const rssBefore = service.memory()?.rssMiB ?? NaN;
    /** [seconds since the load started, RSS MiB] */
    const rssSamples: Array<[number, number]> = [];
    ctx.log(
      `soak: ${durationS} s of mixed load (${Object.entries(MIX)
        .map(([k, v]) => `${v * 100}% ${k}s`)
        .join(', ')}), ${connections} connections; server RSS ${Math.round(rssBefore)} MiB before`,
    );
    const started = performance.now();
    const sampler = setInterval(() => {
      const rss = service.memory()?.rssMiB;
      const at = performance.now() - started;
      if (rss === undefined) return;
      samples[windowAt(at)]!.rss.push(rss);
      rssSamples.push([at / 1000, rss]);
    }, RSS_SAMPLE_MS);
    let lastReported = 0;
    const reporter = setInterval(() => {
      const done = Math.floor((performance.now() - started) / 1000 / windowS);
      for (; lastReported < Math.min(done, windows); lastReported++) ctx.log(`soak: ${describe(summarise(lastReported))}`);
    }, 1000);

    const summarise = (w: number): Window => {
      const s = samples[w]!;
      const all = s.all.sorted();
      const fromS = w * windowS;
      const toS = Math.min(durationS, (w + 1) * windowS);
      const p99ByKind = Object.fromEntries(KINDS.map((k) => [k, percentile(s.byKind[k].sorted(), 99)])) as Record<Kind, number>;
      return {
        fromS,
        toS,
        answers: all.length,
        rps: all.length / (toS - fromS),
        non2xx: s.non2xx,
        errors: s.errors,
        p50Ms: percentile(all, 50),
        p99Ms: percentile(all, 99),
        maxMs: all.length ? all[all.length - 1]! : NaN,
        p99ByKind,
        rssMinMiB: s.rss.length ? Math.min(...s.rss) : NaN,
        rssMedianMiB: s.rss.length ? [...s.rss].sort((a, b) => a - b)[Math.floor((s.rss.length - 1) / 2)]! : NaN,
        rssMaxMiB: s.rss.length ? Math.max(...s.rss) : NaN,
      };
    };

    try {
      await runMixedLoad({
        url: service.url,
        connections,
        durationS,
        next: requests(dataset, read, write),
        onAnswer(kind, status, latencyMs, body) {
          const s = samples[windowAt(performance.now() - started)]!;
          s.all.push(latencyMs);
          s.byKind[kind as Kind]?.push(latencyMs);
          if (status < 200 || status > 299) {
            s.non2xx++;
            statuses.set(`${kind} ${status}`, (statuses.get(`${kind} ${status}`) ?? 0) + 1);
            if (body !== null && errorBodies.size < 20) errorBodies.set(body, (errorBodies.get(body) ?? 0) + 1);
          }
        },
        onError(error) {
          samples[windowAt(performance.now() - started)]!.errors++;
          const message = `no answer: ${error.message}`;
          if (errorBodies.size < 20) errorBodies.set(message, (errorBodies.get(message) ?? 0) + 1);
        },
      });
    } finally {
      clearInterval(sampler);
      clearInterval(reporter);
    }
    const rssAfter = service.memory();
    const table = samples.map((_, w) => summarise(w));
    for (; lastReported < windows; lastReported++) ctx.log(`soak: ${describe(table[lastReported]!)}`);
    for (const [status, count] of statuses) ctx.log(`soak: non-2xx ${status}: ${count}`);
    for (const [body, count] of errorBodies) ctx.log(`soak: ${count} × ${body}`);

    const answers = table.reduce((n, w) => n + w.answers, 0);
    const failed = table.reduce((n, w) => n + w.non2xx + w.errors, 0);
    // The first window warms up (JIT, caches, SQLite's page cache); after it, RSS is a GC sawtooth, so its trend
    // (least-squares slope over every sample) says whether it grows, not two end points.
    const settled = rssSamples.filter(([t]) => t >= windowS);
    const rssSlope = slope(settled.length >= 2 ? settled : rssSamples);
    const rssMean = settled.reduce((a, [, y]) => a + y, 0) / Math.max(1, settled.length);
    const rssGrowth = (rssSlope * Math.max(windowS, durationS - windowS)) / rssMean;
    const p99s = (table.length > 1 ? table.slice(1) : table).map((w) => w.p99Ms).sort((a, b) => a - b);
    const p99Median = p99s[Math.floor((p99s.length - 1) / 2)]!;
    const flat = !(rssGrowth > 0.1);
    const stable = p99s[p99s.length - 1]! <= 2 * p99Median;
    const everything = new Samples();
    // Overall percentiles from the windows' samples.
    for (const s of samples) for (const v of s.all.sorted()) everything.push(v);
    const overall = everything.sorted();
    return {
      id: 'soak',
      title: `soak: mixed writes, checks, lists, ${durationS >= 120 ? `${Math.round(durationS / 60)} min` : `${durationS} s`}`,
      value: answers / durationS,
      unit: 'req/s',
      better: 'higher',
      p50Ms: percentile(overall, 50),
      p99Ms: percentile(overall, 99),
      target: {
        text: 'no errors; RSS flat (trend after the first window ≤ +10% over the run); p99 stable (after the first window, none above 2× the median)',
        met: failed === 0 && flat && stable,
      },
      notes:
        `${connections} conns; ${answers.toLocaleString('en-US')} answers, ${failed} non-2xx/errors; ` +
        `RSS ${Math.round(rssBefore)} MiB before; after the first ${windowS} s median ${Math.round(table[Math.min(1, table.length - 1)]!.rssMedianMiB)} → ${Math.round(table[table.length - 1]!.rssMedianMiB)} MiB in the last, trend ${rssSlope >= 0 ? '+' : ''}${(rssSlope * 60).toFixed(1)} MiB/min (${rssGrowth >= 0 ? '+' : ''}${(rssGrowth * 100).toFixed(1)}% over the run, ${flat ? 'flat' : 'GROWING'}); ` +
        `p99 per ${windowS} s after the first: ${Math.round(p99s[0]!)}–${Math.round(p99s[p99s.length - 1]!)} ms (median ${Math.round(p99Median)} ms, ${stable ? 'stable' : 'UNSTABLE'}; first ${Math.round(table[0]!.p99Ms)} ms)`,
      details: {
        windowS,
        windows: table,
        statuses: Object.fromEntries(statuses),
        errors: Object.fromEntries(errorBodies),
        rssBefore,
        rssAfter,
        rssSlopeMiBPerMin: rssSlope * 60,
        rssSamples,
      },
    };
  } finally {
    await service.stop();
  }
}

function describe(w: Window): string {
  const ms = (v: number) => (Number.isFinite(v) ? `${Math.round(v)}` : '—');
  return (
    `${String(w.fromS).padStart(4)}–${String(w.toS).padEnd(4)} s  ${Math.round(w.rps).toLocaleString('en-US').padStart(6)} req/s  ` +
    `errors ${w.non2xx + w.errors}  p50 ${ms(w.p50Ms)} ms  p99 ${ms(w.p99Ms)} ms (checks ${ms(w.p99ByKind.check)}, lists ${ms(w.p99ByKind.list)}, writes ${ms(w.p99ByKind.write)})  ` +
    `max ${ms(w.maxMs)} ms  RSS ${ms(w.rssMinMiB)}/${ms(w.rssMedianMiB)}/${ms(w.rssMaxMiB)} MiB (min/median/max)`
  );
}
