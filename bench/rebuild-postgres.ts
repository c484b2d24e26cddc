/**
 * A rebuild of every read model on PostgreSQL against the same on SQLite: the rebuild row's log
 * (bench/lib/time-travel-world.ts, REBUILD_EVENTS events in one environment, 100,000 unless set)
 * replayed in this process by a ProjectionRunner with every projection as shipped, into a fresh
 * SQLite file and into a fresh schema on the PostgreSQL server POSTGRES_URL names, alternately,
 * REBUILD_ROUNDS times (default 2). Prints for each: wall time, events/s, this process's CPU per
 * event, and on PostgreSQL the server's CPU per event (its processes', read from /proc: the server
 * must run on this machine, as scripts/postgres.sh starts it) and the statements sent per event.
 *
 *   POSTGRES_URL=postgres://postgres@127.0.0.1:15432/rebac REBUILD_EVENTS=100000 \
 *     node -r @swc-node/register bench/rebuild-postgres.ts
 *
 * What bounds the PostgreSQL replay shows in the three figures: when neither this process's CPU nor
 * the server's fills the wall time, the replay waits on round trips (a projection awaits each read
 * before its next step). See docs/benchmarks.md, "Rebuild".
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { embeddedFeatures } from '../app/features';
import { PostgresDocumentStore } from '../shared/docstore/postgres-document-store';
import { rebuildLog, replayLog, type RebuildLog } from './lib/rebuild-log';

const serverUrl = process.env.POSTGRES_URL;
if (!serverUrl) throw new Error('POSTGRES_URL is not set (scripts/postgres.sh start prints one)');
const rounds = Number(process.env.REBUILD_ROUNDS ?? 2);
const SCHEMA = 'bench_rebuild';

/** CPU time (µs) of the server's processes so far: the postmaster's children (backends, writers, checkpointer). */
function serverCpuUs(postmaster: number): number {
  const tick = 1e6 / 100; // USER_HZ: clock ticks per second on Linux
  let ticks = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // Fields after the command's closing parenthesis: state, ppid, …; utime and stime are the 14th and 15th of the line.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[1]) !== postmaster && Number(name) !== postmaster) continue;
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks * tick;
}

async function onSqlite(log: RebuildLog): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'rebac-rebuild-'));
  try {
    const { wallS, cpuUs } = await replayLog(log, join(dir, 'read-models.sqlite'), embeddedFeatures());
    return line('SQLite', log.head, wallS, cpuUs, null, null);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function onPostgres(log: RebuildLog, admin: postgres.Sql, postmaster: number): Promise<string> {
  await admin.unsafe(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  const store = await PostgresDocumentStore.connect({ url: serverUrl!, schema: SCHEMA });
  try {
    const statements = countStatements(store);
    const serverBefore = serverCpuUs(postmaster);
    const { wallS, cpuUs } = await replayLog(log, store, embeddedFeatures());
    const serverUs = serverCpuUs(postmaster) - serverBefore;
    return line('PostgreSQL', log.head, wallS, cpuUs, serverUs, statements());
  } finally {
    await store.close();
    await admin.unsafe(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  }
}

/**
 * Counts the statements the store's collections send (each one round trip: a projection awaits
 * it): their `run` and `runCount`, on the store and its writer view, wrapped on the instances.
 */
function countStatements(store: PostgresDocumentStore): () => number {
  let count = 0;
  for (const runner of [store, store.writerView()] as unknown as Array<Record<'run' | 'runCount', (...args: unknown[]) => unknown>>) {
    for (const method of ['run', 'runCount'] as const) {
      const original = runner[method].bind(runner);
      runner[method] = (...args: unknown[]) => {
        count++;
        return original(...args);
      };
    }
  }
  return () => count;
}

function line(engine: string, head: number, wallS: number, cpuUs: number, serverUs: number | null, statements: number | null): string {
  const perEvent = (us: number) => `${(us / head).toFixed(0).padStart(4)} µs`;
  return (
    `${engine.padEnd(11)} ${wallS.toFixed(1).padStart(6)} s  ${Math.round(head / wallS)
      .toLocaleString('en-US')
      .padStart(7)} events/s  ` +
    `client CPU ${perEvent(cpuUs)}/event` +
    (serverUs === null ? '' : `  server CPU ${perEvent(serverUs)}/event  ${((cpuUs + serverUs) / 1e6 / wallS).toFixed(2)} cores busy`) +
    (statements === null ? '' : `  ${(statements / head).toFixed(2)} statements/event`)
  );
}

async function main(): Promise<void> {
  const admin = postgres(serverUrl!, { max: 1, onnotice: () => undefined });
  const log = await rebuildLog(Number(process.env.REBUILD_EVENTS ?? 100_000));
  try {
    const [{ pid }] = await admin<[{ pid: number }]>`SELECT pg_backend_pid() AS pid`;
    const postmaster = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
    console.log(`${log.head.toLocaleString('en-US')} events; every projection as shipped, replayed into a fresh store, ${rounds} rounds`);
    for (let round = 1; round <= rounds; round++) {
      console.log(await onSqlite(log));
      console.log(await onPostgres(log, admin, postmaster));
    }
  } finally {
    await log.close();
    await admin.end();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
