import { cpuSecondsOf, type Memory } from '../lib/child';
import type { BenchContext } from '../lib/context';
import type { Check } from '../lib/dataset';
import { medianBy, runLoad, type LoadRun } from '../lib/load';
import type { BulkLoadTiming } from '../lib/load-ours';
import { loadOpenFga, openfgaBinary, openfgaCheckBody, startOpenFga, type LoadedStore, type OpenFga } from '../lib/openfga';
import type { PeerName } from '../lib/options';
import { startPostgres, type Postgres } from '../lib/postgres';
import type { ScenarioResult } from '../lib/results';
import {
  loadSpiceDb,
  spicedbAllowed,
  spicedbBinary,
  spicedbCheckBody,
  startSpiceDb,
  type LoadedSpiceDb,
  type PeerCaches,
  type SpiceDb,
} from '../lib/spicedb';
import { checkBody, primeDecisionCache } from './checks';

/**
 * Checks and loads of the same model and data in SpiceDB (in memory and on
 * PostgreSQL) and OpenFGA (on PostgreSQL) beside ours. Every system is up at
 * once and loaded first; each answers the same sample of checks as the data
 * set's reference before anything is timed; then the check loads run
 * interleaved (ours uncached, ours cached, each peer as it ships and with its
 * caches warm, one after the other, repetition after repetition, the order
 * rotating), so a change in the machine's load (it is shared) falls on all of
 * them alike rather than on whichever ran last. At 4 and at 64 connections.
 */

/** One system whose checks are timed: its `/check` endpoint, the run's checks as its bodies, and how to read an answer. */
interface Contender {
  id: string;
  label: string;
  /** Which of ours it is compared with: the uncached row for a peer as it ships, the cached one for a peer with warm caches. */
  pairedWith: 'ours-uncached' | 'ours-cached' | null;
  peer: PeerName | null;
  caches: PeerCaches | null;
  url: string;
  headers: Record<string, string>;
  body(c: Check): unknown;
  allowed(answer: any): boolean;
  memory(): Memory | null;
  /** Its server process, and its datastore's (PostgreSQL's postmaster and backends), for the CPU they use under load. */
  serverPid: number;
  datastorePids(): number[];
}

/** A load of the data set into one system. */
interface Loaded {
  id: string;
  label: string;
  objects: number;
  ms: number;
  notes: string;
  details: Record<string, unknown>;
}

const PEER_LABELS: Record<PeerName, string> = {
  'spicedb-memory': 'SpiceDB in memory',
  'spicedb-postgres': 'SpiceDB on PostgreSQL',
  'openfga-postgres': 'OpenFGA on PostgreSQL',
};
const CACHE_LABELS: Record<PeerCaches, string> = { shipped: 'as shipped', warm: 'caches warm' };
const SPICEDB_VERSION = 'v1.56.2';
const OPENFGA_VERSION = 'v1.22.1';

const rotate = <T>(items: T[]) => {
  let i = 0;
  return () => items[i++ % items.length]!;
};
const grouped = (n: number) => Math.round(n).toLocaleString('en-US');
const mib = (m: Memory | null | undefined) => (m ? `${grouped(m.rssMiB)} MiB` : '?');

/** `f` over `items`, `limit` at a time, results in order. */
async function mapLimit<T, R>(items: T[], limit: number, f: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await f(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

async function ask(c: Contender, check: Check): Promise<boolean> {
  const response = await fetch(c.url, { method: 'POST', headers: c.headers, body: JSON.stringify(c.body(check)) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${c.label}: POST ${c.url} → ${response.status}: ${text.slice(0, 300)}`);
  return c.allowed(JSON.parse(text));
}

/** Ours: `POST /allowed` with the decision cache bypassed (every check reads the store) or on. */
function ours(ctx: BenchContext, cached: boolean): Contender {
  return {
    id: cached ? 'ours-cached' : 'ours-uncached',
    label: cached ? 'ours (decision cache on)' : 'ours, uncached (Cache-Control: no-cache)',
    pairedWith: null,
    peer: null,
    caches: null,
    url: `${ctx.service.url}/allowed`,
    headers: cached ? ctx.api.headers : { ...ctx.api.headers, 'cache-control': 'no-cache' },
    body: checkBody,
    allowed: (answer) => answer.allow === true,
    memory: () => ctx.service.memory(),
    serverPid: ctx.service.child.pid,
    datastorePids: () => [],
  };
}

function spicedbContender(peer: PeerName, caches: PeerCaches, db: SpiceDb, token: string, postgres: Postgres | null): Contender {
  return {
    id: `${peer}-${caches}`,
    label: `${PEER_LABELS[peer]}, ${CACHE_LABELS[caches]}`,
    pairedWith: caches === 'shipped' ? 'ours-uncached' : 'ours-cached',
    peer,
    caches,
    url: `${db.url}/v1/permissions/check`,
    headers: db.headers,
    body: (c) => spicedbCheckBody(token, c, caches === 'warm'),
    allowed: spicedbAllowed,
    memory: () => db.memory(),
    serverPid: db.pid,
    datastorePids: () => postgres?.pids() ?? [],
  };
}

function openfgaContender(caches: PeerCaches, fga: OpenFga, store: LoadedStore, postgres: Postgres): Contender {
  return {
    id: `openfga-postgres-${caches}`,
    label: `${PEER_LABELS['openfga-postgres']}, ${CACHE_LABELS[caches]}`,
    pairedWith: caches === 'shipped' ? 'ours-uncached' : 'ours-cached',
    peer: 'openfga-postgres',
    caches,
    url: `${fga.url}/stores/${store.storeId}/check`,
    headers: { 'content-type': 'application/json' },
    body: (c) => openfgaCheckBody(store.modelId, c),
    allowed: (answer) => answer.allowed === true,
    memory: () => fga.memory(),
    serverPid: fga.pid,
    datastorePids: () => postgres.pids(),
  };
}

export async function peerScenarios(ctx: BenchContext, oursLoad: BulkLoadTiming[]): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  const stops: Array<() => Promise<void>> = [];
  const contenders: Contender[] = [ours(ctx, false), ours(ctx, true)];
  const loads: Loaded[] = [oursLoaded(oursLoad)];
  const failed = (peer: PeerName, error: unknown): ScenarioResult => {
    ctx.log(`peer: ${PEER_LABELS[peer]} failed: ${(error as Error).stack ?? String(error)}`);
    const message = (error as Error).message ?? String(error);
    // A script's failure: the table shows an error's first line, so put the script's own reason there.
    const reason = /\] ERROR: (.*)/.exec(message)?.[1];
    return { ...rowBase(`peer-${peer}`, `peer: ${PEER_LABELS[peer]}`, 'req/s'), error: reason ? `${reason}\n${message}` : message };
  };
  try {
    const wanted = ctx.options.peers;
    const spicedb = wanted.some((p) => p.startsWith('spicedb')) ? await spicedbBinary() : null;
    const openfga = wanted.includes('openfga-postgres') ? await openfgaBinary() : null;
    const available = wanted.filter((p) => (p.startsWith('spicedb') ? spicedb : openfga));
    for (const p of wanted.filter((p) => !available.includes(p))) {
      const script = p.startsWith('spicedb') ? 'scripts/spicedb.sh' : 'scripts/openfga.sh';
      results.push({
        ...rowBase(`peer-${p}`, `peer: ${PEER_LABELS[p]}`, 'req/s'),
        skipped: `no binary: run ${script} install (builds it with go install from the Go module proxy)`,
      });
    }
    let postgres: Postgres | null = null;
    if (available.some((p) => p.endsWith('postgres'))) {
      ctx.log('peer: starting PostgreSQL (scripts/postgres.sh)');
      try {
        const started = await startPostgres();
        stops.push(() => started.stop());
        postgres = started;
      } catch (error) {
        // The peers on PostgreSQL fail; the one in memory still runs.
        for (const p of available.filter((p) => p.endsWith('postgres'))) results.push(failed(p, error));
      }
    }
    const pgNote = () => (postgres ? `; PostgreSQL cluster ${grouped(postgres.pssMiB() ?? NaN)} MiB (PSS, shared by the peers on it)` : '');

    // Loads one after the other, each with the machine to itself (ours idles).
    if (available.includes('spicedb-memory')) {
      try {
        // In memory, each process holds its own copy: both are loaded, the shipped one's load is the row.
        const both: Array<{ db: SpiceDb; loaded: LoadedSpiceDb }> = [];
        for (const caches of ['shipped', 'warm'] as const) {
          ctx.log(`peer: SpiceDB in memory (${caches}), loading the same relationships`);
          const db = await startSpiceDb({ datastore: 'memory', caches, instance: `spicedb-memory-${caches}` });
          stops.push(() => db.stop());
          const loaded = await loadSpiceDb(db, ctx.dataset);
          both.push({ db, loaded });
          contenders.push(spicedbContender('spicedb-memory', caches, db, loaded.token, null));
        }
        const [shipped, warm] = both as [(typeof both)[0], (typeof both)[0]];
        loads.push(
          peerLoaded(
            'spicedb-memory',
            shipped.loaded.relationships,
            shipped.loaded.loadMs,
            shipped.db.memory(),
            `; the second process (warm caches) loaded in ${(warm.loaded.loadMs / 1000).toFixed(1)} s`,
            { warmProcessLoadMs: warm.loaded.loadMs },
          ),
        );
      } catch (error) {
        results.push(failed('spicedb-memory', error));
      }
    }
    if (available.includes('spicedb-postgres') && postgres) {
      try {
        ctx.log('peer: SpiceDB on PostgreSQL, loading the same relationships');
        const uri = postgres.database('spicedb');
        const shipped = await startSpiceDb({ datastore: 'postgres', uri, caches: 'shipped', instance: 'spicedb-postgres-shipped' });
        stops.push(() => shipped.stop());
        const loaded = await loadSpiceDb(shipped, ctx.dataset);
        loads.push(peerLoaded('spicedb-postgres', loaded.relationships, loaded.loadMs, shipped.memory(), pgNote(), {}));
        // The warm process reads the same database: the token is valid on both.
        const warm = await startSpiceDb({ datastore: 'postgres', uri, caches: 'warm', instance: 'spicedb-postgres-warm' });
        stops.push(() => warm.stop());
        contenders.push(spicedbContender('spicedb-postgres', 'shipped', shipped, loaded.token, postgres));
        contenders.push(spicedbContender('spicedb-postgres', 'warm', warm, loaded.token, postgres));
      } catch (error) {
        results.push(failed('spicedb-postgres', error));
      }
    }
    if (available.includes('openfga-postgres') && postgres) {
      try {
        ctx.log('peer: OpenFGA on PostgreSQL, loading the same tuples');
        const uri = postgres.database('openfga');
        const shipped = await startOpenFga({ datastore: 'postgres', uri, caches: 'shipped', instance: 'openfga-postgres-shipped' });
        stops.push(() => shipped.stop());
        const store = await loadOpenFga(shipped, ctx.dataset);
        loads.push(peerLoaded('openfga-postgres', store.tuples, store.loadMs, shipped.memory(), pgNote(), {}));
        const warm = await startOpenFga({ datastore: 'postgres', uri, caches: 'warm', instance: 'openfga-postgres-warm' });
        stops.push(() => warm.stop());
        contenders.push(openfgaContender('shipped', shipped, store, postgres));
        contenders.push(openfgaContender('warm', warm, store, postgres));
      } catch (error) {
        results.push(failed('openfga-postgres', error));
      }
    }
    for (const l of loads) ctx.log(`peer: load, ${l.label}: ${grouped(l.objects)} in ${(l.ms / 1000).toFixed(1)} s`);

    // Equal answers before timing: a peer that answers differently is not measured.
    const sample = ctx.checks.slice(0, 1000);
    const verified: Contender[] = [];
    for (const c of contenders) {
      const answers = await mapLimit(sample, 8, (check) => ask(c, check));
      const wrong = answers.filter((a, i) => a !== sample[i]!.expected).length;
      if (wrong === 0) verified.push(c);
      else {
        results.push({
          ...rowBase(`peer-${c.id}`, `checks: ${c.label}`, 'req/s'),
          error: `answered ${wrong} of ${sample.length} checks differently from the data set's reference`,
        });
      }
    }
    ctx.log(`peer: ${verified.length} systems answered ${sample.length} checks as the reference does`);

    // Warm caches hold the working set: one pass over the run's checks first, as our cached row does.
    await primeDecisionCache(ctx);
    for (const c of verified.filter((c) => c.caches === 'warm')) {
      ctx.log(`peer: one pass over the ${grouped(ctx.checks.length)} checks through ${c.label}`);
      await mapLimit(ctx.checks, 16, (check) => ask(c, check));
    }

    const measured = await interleaved(ctx, verified);
    results.push(...loads.map(loadRow));
    results.push(...checkRows(verified, measured, sample.length));
    results.push(...leadRows(ctx, verified, measured));
    return results;
  } catch (error) {
    results.push({ ...rowBase('peer', 'peers', 'req/s'), error: (error as Error).message ?? String(error) });
    ctx.log(`peer failed: ${(error as Error).stack ?? String(error)}`);
    return results;
  } finally {
    for (const stop of stops.reverse()) {
      await stop().catch((error: unknown) => ctx.log(`peer: stopping failed: ${String(error)}`));
    }
  }
}

const CONNECTIONS = [4, 64] as const;
type Connections = (typeof CONNECTIONS)[number];

/** CPU seconds used during a system's timed loads (server process; its datastore's processes) and the wall seconds they took. */
interface CpuUse {
  server: number;
  datastore: number;
  /** The bench process itself (autocannon): on 2 cores it competes with the server it loads. */
  generator: number;
  wall: number;
}

interface Measured {
  runs: Record<string, Record<Connections, LoadRun[]>>;
  cpu: Record<string, Record<Connections, CpuUse>>;
  /** RSS of each system after its 64-connection loads. */
  memory: Record<string, Memory | null>;
}

/**
 * For each connection count: a warm-up load per system, then `repeat` rounds, each timing every
 * system once; round r starts at the r-th system, so none always runs first or last.
 */
async function interleaved(ctx: BenchContext, contenders: Contender[]): Promise<Measured> {
  const { durationS, repeat, warmupS } = ctx.options;
  const runs: Measured['runs'] = Object.fromEntries(contenders.map((c) => [c.id, { 4: [], 64: [] }]));
  const zero = (): CpuUse => ({ server: 0, datastore: 0, generator: 0, wall: 0 });
  const cpu: Measured['cpu'] = Object.fromEntries(contenders.map((c) => [c.id, { 4: zero(), 64: zero() }]));
  const bodies = new Map(contenders.map((c) => [c.id, ctx.checks.map((check) => JSON.stringify(c.body(check)))]));
  const spec = (c: Contender, connections: number, seconds: number) => ({
    url: c.url,
    headers: c.headers,
    body: rotate(bodies.get(c.id)!),
    connections,
    durationS: seconds,
    // A peer that answers nothing within a load (SpiceDB in memory as shipped at 64 connections, on a slow machine) gets
    // a 0 req/s row, and the others are still measured.
    noAnswerIsFigure: true,
  });
  for (const connections of CONNECTIONS) {
    ctx.log(`peer: ${contenders.length} systems interleaved, ${connections} connections, ${repeat} × ${durationS} s each`);
    if (warmupS > 0) for (const c of contenders) await runLoad(spec(c, connections, warmupS));
    for (let round = 0; round < repeat; round++) {
      for (let k = 0; k < contenders.length; k++) {
        const c = contenders[(round + k) % contenders.length]!;
        const from = performance.now();
        const serverBefore = cpuSecondsOf(c.serverPid) ?? NaN;
        const datastoreBefore = cpuSnapshot(c.datastorePids());
        const generatorBefore = process.cpuUsage();
        runs[c.id]![connections].push(await runLoad(spec(c, connections, durationS)));
        const used = cpu[c.id]![connections];
        used.server += (cpuSecondsOf(c.serverPid) ?? NaN) - serverBefore;
        used.datastore += cpuSince(datastoreBefore, c.datastorePids());
        const generator = process.cpuUsage(generatorBefore);
        used.generator += (generator.user + generator.system) / 1e6;
        used.wall += (performance.now() - from) / 1000;
        if (c.peer === null) {
          const origin = ctx.service.spawnedAt;
          ctx.phases.push({
            label: `peer-${c.id}-c${connections}`,
            fromS: (from - origin) / 1000,
            toS: (performance.now() - origin) / 1000,
          });
        }
      }
    }
  }
  return { runs, cpu, memory: Object.fromEntries(contenders.map((c) => [c.id, c.memory()])) };
}

const cpuSnapshot = (pids: number[]) => new Map(pids.map((pid) => [pid, cpuSecondsOf(pid) ?? 0]));

/** CPU used by `pids` since `before` (a backend started meanwhile counts whole; one that ended is lost). */
function cpuSince(before: Map<number, number>, pids: number[]): number {
  let seconds = 0;
  for (const pid of pids) seconds += (cpuSecondsOf(pid) ?? 0) - (before.get(pid) ?? 0);
  return seconds;
}

/** Cores a system kept busy during its timed loads, and the load generator: `1.52 cores (+ PostgreSQL 0.31), load generator 0.45`. */
function coresNote(use: CpuUse): string {
  const cores = (seconds: number) => (seconds / use.wall).toFixed(2);
  return `${cores(use.server)} cores${use.datastore > 0 ? ` (+ PostgreSQL ${cores(use.datastore)})` : ''}, load generator ${cores(use.generator)}`;
}

const median = (runs: LoadRun[]) => medianBy(runs, (run) => run.rps);

function rowBase(id: string, title: string, unit: string): ScenarioResult {
  return { id, title, value: NaN, unit, better: 'higher' };
}

function checkRows(contenders: Contender[], measured: Measured, verifiedOn: number): ScenarioResult[] {
  const rows: ScenarioResult[] = [];
  for (const connections of CONNECTIONS) {
    const oursRps = (id: string) => {
      const runs = measured.runs[id]?.[connections];
      return runs && runs.length > 0 ? median(runs).rps : NaN;
    };
    for (const c of contenders) {
      const runs = measured.runs[c.id]![connections];
      const m = median(runs);
      const paired = c.pairedWith ? oursRps(c.pairedWith) : NaN;
      const ours = c.pairedWith === 'ours-cached' ? 'ours cached' : 'ours uncached';
      const versus = !c.pairedWith
        ? ''
        : m.rps > 0
          ? `; ${ours} ÷ this: ${(paired / m.rps).toFixed(2)}×`
          : '; answered no check within the load';
      const version = c.peer ? `${c.peer.startsWith('spicedb') ? `SpiceDB ${SPICEDB_VERSION}` : `OpenFGA ${OPENFGA_VERSION}`}; ` : '';
      rows.push({
        id: `peer-${c.id}-c${connections}`,
        title: `checks: ${c.label}, ${connections} conns`,
        value: m.rps,
        unit: 'req/s',
        better: 'higher',
        p50Ms: m.p50Ms,
        p99Ms: m.p99Ms,
        runs: runs.map((r) => r.rps),
        notes: `${version}${verifiedOn} answers verified${versus}; CPU ${coresNote(measured.cpu[c.id]![connections])}${connections === 64 ? `; RSS after the checks ${mib(measured.memory[c.id])}` : ''}`,
        details: {
          runs,
          pairedWith: c.pairedWith,
          pairedRps: paired,
          cpu: measured.cpu[c.id]![connections],
          rss: connections === 64 ? measured.memory[c.id] : undefined,
        },
      });
    }
  }
  return rows;
}

function leadRows(ctx: BenchContext, contenders: Contender[], measured: Measured): ScenarioResult[] {
  const at64 = (id: string) => (measured.runs[id] ? median(measured.runs[id][64]).rps : NaN);
  const full = ctx.options.mode === 'full';
  const rows: ScenarioResult[] = [];
  const warm = contenders.filter((c) => c.caches === 'warm');
  if (warm.length > 0 && measured.runs['ours-cached']) {
    const best = warm.reduce((a, b) => (at64(a.id) >= at64(b.id) ? a : b));
    const ratio = at64('ours-cached') / at64(best.id);
    rows.push({
      id: 'peer-lead-warm',
      title: 'checks: ours ÷ best peer with warm caches, 64 conns',
      value: ratio,
      unit: 'ratio',
      better: 'higher',
      target: { text: '≥ 1.5× (full scale)', met: full ? ratio >= 1.5 : null },
      notes: `ours cached ${grouped(at64('ours-cached'))} req/s; best: ${best.label} ${grouped(at64(best.id))} req/s`,
    });
  }
  const openfga = contenders.find((c) => c.id === 'openfga-postgres-shipped');
  if (openfga && measured.runs['ours-uncached']) {
    const ratio = at64('ours-uncached') / at64(openfga.id);
    rows.push({
      id: 'peer-lead-openfga-uncached',
      title: 'checks: ours uncached ÷ OpenFGA on PostgreSQL as shipped, 64 conns',
      value: ratio,
      unit: 'ratio',
      better: 'higher',
      target: { text: '≥ 3× (full scale)', met: full ? ratio >= 3 : null },
      notes: `ours uncached ${grouped(at64('ours-uncached'))} req/s; OpenFGA ${grouped(at64(openfga.id))} req/s`,
    });
  }
  return rows;
}

/** Ours: the run's bulk import (instances, which the peers do not need, included), before any peer started. */
function oursLoaded(timings: BulkLoadTiming[]): Loaded {
  const objects = timings.reduce((n, t) => n + t.objects, 0);
  const ms = timings.reduce((n, t) => n + t.ms, 0);
  const relations = timings.filter((t) => t.kind !== 'instances');
  const relObjects = relations.reduce((n, t) => n + t.objects, 0);
  const relMs = relations.reduce((n, t) => n + t.ms, 0);
  return {
    id: 'ours',
    label: 'ours, bulk endpoints (instances, tuples, assignments)',
    objects,
    ms,
    notes: `${grouped(objects)} objects in ${(ms / 1000).toFixed(1)} s; the relationships alone (tuples and assignments, ${grouped(relObjects)}) in ${(relMs / 1000).toFixed(1)} s, ${grouped(relObjects / (relMs / 1000))}/s; each request durable and visible when it answers`,
    details: { timings, relationships: relObjects, relationshipsMs: relMs },
  };
}

function peerLoaded(
  peer: PeerName,
  objects: number,
  ms: number,
  memory: Memory | null,
  extra: string,
  details: Record<string, unknown>,
): Loaded {
  const how = peer.startsWith('spicedb') ? 'WriteRelationships of 1,000, 4 in flight' : 'writes of 100 tuples, 4 in flight';
  return {
    id: peer,
    label: PEER_LABELS[peer],
    objects,
    ms,
    notes: `${grouped(objects)} relationships in ${(ms / 1000).toFixed(1)} s (${how}); RSS after loading ${mib(memory)}${extra}`,
    details: { ...details, rssAfterLoad: memory },
  };
}

function loadRow(l: Loaded): ScenarioResult {
  return {
    id: `peer-load-${l.id}`,
    title: `load: ${l.label}`,
    value: l.objects / (l.ms / 1000),
    unit: 'objects/s',
    better: 'higher',
    notes: l.notes,
    details: { objects: l.objects, ms: l.ms, ...l.details },
  };
}
