/**
 * Benchmark: fan-out of a derived role. A folder holds N files (100,000 by
 * default), each linked by a `parent` tuple, and `file#editor` derives from
 * `folder#editor`. One assignment of editor on the folder must make every file
 * editable. Prints:
 * - how long until the last file's grant is visible to checks (polled), and
 *   how long the assignment's own response took (it waits for the projection);
 * - the write amplification: grant rows written per event;
 * - check latency (p50/p99/max) sampled while the fan-out runs, against the
 *   same figures at rest;
 * - the same for taking the role away (retraction).
 *
 *   node -r @swc-node/register bench/fanout.ts
 *   FANOUT_FILES=20000 FANOUT_CHECK_CONCURRENCY=1 node -r @swc-node/register bench/fanout.ts
 *
 * Files and tuples are loaded over HTTP with the bulk facts endpoints
 * (10,000 per request). The service runs embedded in this process, so the
 * HTTP checks share the event loop with the projection; the load generator
 * (check sampler, visibility poller) runs on worker threads.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import pino from 'pino';
import { ADMIN_KEY_FILE } from '../command-service/bootstrap';
import { startEmbedded } from '../app/embedded';
import { embeddedFeatures } from '../app/features';
import { readStoresOf } from '../shared/read-stores/port';
import { grantsFeature } from '../app/features/grants';
import { GrantStats } from '../projection-service/grants/stats';
import { loadConfig } from '../shared/config';
import { folderFileModel } from './lib/folder-file-model';
import { FACTS } from './lib/load-ours';

const FILES = Number(process.env.FANOUT_FILES ?? 100_000);
const BULK = 10_000;
/** Checks the sampler keeps in flight (FANOUT_CHECK_CONCURRENCY, default 2). */
const SAMPLER_CONCURRENCY = Number(process.env.FANOUT_CHECK_CONCURRENCY ?? 2);

interface Response {
  status: number;
  body: any;
  ms: number;
  /** X-Event-Position of a write. */
  position: number;
}

function client(url: string, key: string) {
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> => {
    const started = performance.now();
    const r = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    const position = Number(r.headers.get('x-event-position') ?? 0);
    return { status: r.status, body: text ? JSON.parse(text) : undefined, ms: performance.now() - started, position };
  };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const fmt = (ms: number) => `${ms.toFixed(ms < 10 ? 2 : 0)} ms`;
function latencies(label: string, samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  return `${label}: ${samples.length} checks, p50 ${fmt(percentile(sorted, 50))}, p99 ${fmt(percentile(sorted, 99))}, max ${fmt(sorted.at(-1) ?? NaN)}`;
}

/**
 * The load generator runs on a worker thread, so its HTTP client does not
 * compete with the server for the event loop being measured: it keeps
 * SAMPLER_CONCURRENCY checks on random files in flight and, when asked, polls
 * one check until it answers as expected. Times are absolute (timeOrigin + now).
 */
const SAMPLER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { url, key, files, concurrency } = workerData;
const now = () => performance.timeOrigin + performance.now();
const check = async (body) => {
  const started = now();
  const r = await fetch(url + '/allowed', { method: 'POST', headers: { authorization: 'Bearer ' + key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const answer = await r.json();
  if (r.status !== 200) throw new Error('check answered ' + r.status);
  return { ms: now() - started, allow: answer.allow };
};
let sampling = false;
let samples = [];
async function sampler(user) {
  while (sampling) {
    const i = Math.floor(Math.random() * files);
    samples.push((await check({ user, action: 'read', resource: { type: 'file', key: 'f' + i, tenant: 'default' } })).ms);
  }
}
let workers = [];
parentPort.on('message', async (m) => {
  if (m.cmd === 'start') {
    sampling = true;
    samples = [];
    workers = Array.from({ length: concurrency }, () => sampler(m.user));
  } else if (m.cmd === 'stop') {
    sampling = false;
    await Promise.all(workers);
    parentPort.postMessage({ samples });
  } else if (m.cmd === 'poll') {
    for (;;) {
      if ((await check(m.check)).allow === m.expected) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    parentPort.postMessage({ at: now() });
  }
});
`;

class Sampler {
  private readonly worker: Worker;
  constructor(url: string, key: string) {
    this.worker = new Worker(SAMPLER_SOURCE, { eval: true, workerData: { url, key, files: FILES, concurrency: SAMPLER_CONCURRENCY } });
  }
  private reply<T>(message: unknown): Promise<T> {
    return new Promise((resolve, reject) => {
      this.worker.once('message', resolve);
      this.worker.once('error', reject);
      this.worker.postMessage(message);
    });
  }
  start(user: string): void {
    this.worker.postMessage({ cmd: 'start', user });
  }
  async stop(): Promise<number[]> {
    return (await this.reply<{ samples: number[] }>({ cmd: 'stop' })).samples;
  }
  /** Resolves with the absolute time at which `check` first answered `expected`. */
  async poll(check: unknown, expected: boolean): Promise<number> {
    return (await this.reply<{ at: number }>({ cmd: 'poll', check, expected })).at;
  }
  close(): Promise<number> {
    return this.worker.terminate();
  }
}

const now = () => performance.timeOrigin + performance.now();

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'rebac-bench-fanout-'));
  const stats = new GrantStats();
  const features = [...embeddedFeatures().filter((f) => f.name !== 'derived-grants'), grantsFeature({ stats })];
  const service = await startEmbedded(
    // The grant statistics are counted by the projection in this thread (PROJECTION_THREAD=false).
    loadConfig({ PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent', PROJECTION_THREAD: 'false' }),
    pino({ level: 'silent' }),
    features,
  );
  try {
    const admin = client(service.url, readFileSync(join(dataDir, ADMIN_KEY_FILE), 'utf8').trim());
    const key = await admin('POST', '/v2/api-key', {
      project_id: 'default',
      environment_id: 'production',
      object_type: 'env',
      name: 'bench',
    });
    const call = client(service.url, key.body.secret as string);
    const ok = async (method: string, path: string, body?: unknown) => {
      const r = await call(method, path, body);
      // A big bulk write may outlast the read-your-writes wait (503, but stored): wait for its position instead.
      while (r.status === 503 && r.position > 0) {
        if ((await call('GET', '/v2/api-key/scope', undefined, { 'X-Min-Event-Position': String(r.position) })).status === 200) return r;
      }
      if (r.status !== 200) throw new Error(`${method} ${path} answered ${r.status}: ${JSON.stringify(r.body)}`);
      return r;
    };
    console.log(
      `fan-out benchmark: ${FILES.toLocaleString('en-US')} files in one folder; ${SAMPLER_CONCURRENCY} check(s) in flight; load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} on ${cpus().length} CPUs`,
    );

    await folderFileModel(ok);
    await ok('POST', `${FACTS}/resource_instances`, { key: 'big', resource: 'folder', tenant: 'acme' });
    await ok('POST', `${FACTS}/resource_instances`, { key: 'other', resource: 'folder', tenant: 'acme' });

    const beforeLoad = stats.snapshot();
    let started = performance.now();
    for (let from = 0; from < FILES; from += BULK) {
      const keys = Array.from({ length: Math.min(BULK, FILES - from) }, (_, i) => `f${from + i}`);
      await ok('PUT', `${FACTS}/bulk/resource_instances`, { operations: keys.map((k) => ({ key: k, resource: 'file', tenant: 'acme' })) });
      await ok('POST', `${FACTS}/relationship_tuples/bulk`, {
        operations: keys.map((k) => ({ subject: 'folder:big', relation: 'parent', object: `file:${k}` })),
      });
    }
    const afterLoad = stats.snapshot();
    console.log(`loaded ${FILES.toLocaleString('en-US')} files and tuples in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    console.log(
      `  grants projection while loading: ${(afterLoad.events - beforeLoad.events).toLocaleString('en-US')} events handled, ${(afterLoad.edgeWrites - beforeLoad.edgeWrites).toLocaleString('en-US')} edge rows and ${(afterLoad.grantsWritten - beforeLoad.grantsWritten).toLocaleString('en-US')} grant rows written`,
    );
    // A steady user for the latency samples: editor on a few files through another folder.
    for (let i = 0; i < 10; i++)
      await ok('POST', `${FACTS}/relationship_tuples`, {
        subject: 'folder:other',
        relation: 'parent',
        object: `file:f${Math.floor((i * FILES) / 10)}`,
      });
    await ok('POST', `${FACTS}/role_assignments`, { user: 'steady', role: 'editor', resource_instance: 'folder:other' });

    // Two samplers: one keeps checks in flight, the other polls the last file.
    const sampler = new Sampler(service.url, key.body.secret as string);
    const poller = new Sampler(service.url, key.body.secret as string);
    sampler.start('steady');
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const restSamples = await sampler.stop();

    // FANOUT_PROFILE=<file>: a CPU profile of the server's thread during the two phases.
    const profiler = process.env.FANOUT_PROFILE ? new Session() : null;
    if (profiler) {
      profiler.connect();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.start');
    }
    const lastFile = { user: 'alice', action: 'write', resource: { type: 'file', key: `f${FILES - 1}`, tenant: 'default' } };
    for (const phase of ['grant', 'revoke'] as const) {
      const before = stats.snapshot();
      const loopDelay = monitorEventLoopDelay({ resolution: 5 });
      loopDelay.enable();
      sampler.start('steady');
      await new Promise((resolve) => setTimeout(resolve, 200));
      const visible = poller.poll(lastFile, phase === 'grant');
      started = now();
      const response = await (phase === 'grant'
        ? call('POST', `${FACTS}/role_assignments`, { user: 'alice', role: 'editor', resource_instance: 'folder:big' })
        : call('DELETE', `${FACTS}/role_assignments`, { user: 'alice', role: 'editor', resource_instance: 'folder:big' }));
      const visibleMs = (await visible) - started;
      await new Promise((resolve) => setTimeout(resolve, 200));
      const samples = await sampler.stop();
      loopDelay.disable();
      const after = stats.snapshot();
      const events = after.events - before.events;
      const written = after.grantsWritten - before.grantsWritten;
      const deleted = after.grantsDeleted - before.grantsDeleted;
      console.log(`\n${phase === 'grant' ? 'assign editor on the folder' : 'unassign editor on the folder'}:`);
      console.log(
        `  last file's grant ${phase === 'grant' ? 'visible' : 'gone'} after ${fmt(visibleMs)}; the write answered ${response.status} after ${fmt(response.ms)}`,
      );
      console.log(
        `  events: ${events}; grant rows written: ${written.toLocaleString('en-US')}, deleted: ${deleted.toLocaleString('en-US')}; write amplification: ${((written + deleted) / Math.max(events, 1)).toLocaleString('en-US')} rows/event`,
      );
      console.log(`  ${latencies('checks while it ran (and 0.2 s either side)', samples)}`);
      console.log(`  server event-loop delay meanwhile: p99 ${fmt(loopDelay.percentile(99) / 1e6)}, max ${fmt(loopDelay.max / 1e6)}`);
    }
    await sampler.close();
    await poller.close();
    if (profiler) {
      const { profile } = await profiler.post('Profiler.stop');
      writeFileSync(process.env.FANOUT_PROFILE!, JSON.stringify(profile));
      console.log(`\nCPU profile of the two phases written to ${process.env.FANOUT_PROFILE}`);
    }
    console.log(`\n${latencies('checks at rest', restSamples)}`);
    const total = await readStoresOf(service.documentStore).grants.count();
    console.log(`derived grant rows stored at the end: ${total.toLocaleString('en-US')}`);
  } finally {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
