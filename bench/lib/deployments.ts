import { join } from 'node:path';
import type { NewEvent } from '../../shared/events';
import type { EventStore } from '../../shared/eventstore/port';
import { SqliteEventStore } from '../../shared/eventstore/sqlite-event-store';
import { Cluster, type ServiceProcess } from '../../test/support/cluster';
import { cpuSecondsOf, mainThreadCpuSecondsOf, sleep } from './child';
import { HttpClient } from './http';
import type { DistReadModels } from './options';
import { gauge } from './prometheus';
import type { DistributedServers } from './servers';
import { npmStartEnv, startService, type RunningService } from './service';

/** CPU seconds so far, by part of a deployment (`command`, `projection`, `postgres`, …). */
export type CpuByPart = Record<string, number>;

/** One deployment the distributed scenario measures, as its rows see it. */
export interface Deployment {
  /** `embedded`, `distributed` (read models on FerretDB), `distributed-sqlite`, `distributed-postgres`. */
  id: string;
  label: string;
  /** The API (the command service, or the one process). */
  url: string;
  admin: HttpClient;
  /** CPU time so far of each process of the deployment (and of the servers it alone uses). */
  cpu(): CpuByPart;
  /** `GET /metrics` of the process answering the API. */
  metrics(): Promise<string>;
  /** Appends `batches` straight into `stream` of the log (for the copy's source) and returns the log's position after them. */
  appendToLog(stream: string, batches: Iterable<NewEvent[]>): Promise<number>;
  /** The last lines the deployment's processes printed (for a failed load's report), where they are kept. */
  output?(): string;
  stop(): Promise<void>;
}

/** What `npm run bench` gives every service it starts: bulk bodies of 5,000 items, writes that wait for slow read models. */
const BENCH_ENV = { ...npmStartEnv(), MAX_BODY_BYTES: String(8 * 1024 * 1024), READ_YOUR_WRITES_TIMEOUT_MS: '300000', LOG_LEVEL: 'warn' };

/** Where a distributed deployment keeps its read models. */
export type ReadModels = DistReadModels;

const DEPLOYMENT_IDS: Record<ReadModels, string> = {
  mongodb: 'distributed',
  postgres: 'distributed-postgres',
  sqlite: 'distributed-sqlite',
};
const STORE_NAMES: Record<ReadModels, string> = { mongodb: 'FerretDB', postgres: 'PostgreSQL', sqlite: 'SQLite' };

/** Waits until the read models, as the API's process reports them, reach `position`. */
export async function waitForProjection(deployment: Deployment, position: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const at = gauge(await deployment.metrics(), 'rebac_projection_position', 'projection="read-models"') ?? 0;
    if (at >= position) return;
    if (Date.now() > deadline) throw new Error(`${deployment.label}: read models at ${at}, not ${position}, after ${timeoutMs} ms`);
    await sleep(200);
  }
}

const metricsOf = (url: string) => async () => (await fetch(`${url}/metrics`)).text();

/** The one-process service as `npm start` runs it (SQLite log and read models, in-process tasks). */
export async function startEmbeddedDeployment(): Promise<Deployment> {
  let service: RunningService = await startService({ env: BENCH_ENV });
  const port = Number(new URL(service.url).port);
  return {
    id: 'embedded',
    label: 'one process (SQLite log and read models)',
    url: service.url,
    admin: service.admin,
    cpu: () => ({ service: cpuSecondsOf(service.child.pid) ?? NaN, serviceMainThread: mainThreadCpuSecondsOf(service.child.pid) ?? NaN }),
    metrics: metricsOf(service.url),
    async appendToLog(stream, batches) {
      // The service owns its log file: stopped while the source is appended, then started on it again (the
      // projections catch up before it answers), as a restore of a large environment would be.
      await service.stop({ keepData: true });
      const log = new SqliteEventStore({ path: join(service.dataDir, 'events.sqlite') });
      let position: number;
      try {
        position = await appendAll(log, stream, batches);
      } finally {
        await log.close();
      }
      service = await startService({ dataDir: service.dataDir, ownsDataDir: true, port, env: BENCH_ENV, readyTimeoutMs: 600_000 });
      return position;
    },
    output: () => service.child.output().slice(-4000),
    async stop() {
      // A process that died under a load says why only here (its output is kept, not printed).
      const { exitCode, signalCode } = service.child.process;
      if (exitCode !== null || signalCode !== null)
        console.error(`[bench] the one-process service had exited (${exitCode ?? signalCode}):\n${service.child.output().slice(-4000)}`);
      await service.stop();
    },
  };
}

/**
 * The distributed deployment: the command, projection and task services as three processes (run
 * from dist/, as `npm run start:command` etc. run them) through the same launcher as the e2e tests
 * (test/support/cluster.ts), the log on PostgreSQL, tasks on Kafka, and the read models on the
 * MongoDB-protocol server (FerretDB here), or `readModels: 'postgres'` in a schema of the log's own
 * database (the deployment of two kinds of server: PostgreSQL and Kafka), or `readModels: 'sqlite'`
 * in one SQLite file the three processes share (to show the log's own cost where the read-model
 * server bounds a row). PostgreSQL and FerretDB may serve several deployments (a database each);
 * each needs a Kafka broker of its own.
 */
export async function startDistributedDeployment(
  servers: DistributedServers,
  readModels: ReadModels,
  /** Which of the servers' brokers (one per deployment). */
  broker: number,
): Promise<Deployment> {
  const cluster = new Cluster(servers.mongoUrl, servers.kafkaBrokers[broker]!, servers.postgresUrl, {
    fromDist: true,
    readModels,
    env: { ...BENCH_ENV, POSTGRES_POOL_SIZE: '10', LEASE_TTL_MS: '15000' },
  });
  const started: ServiceProcess[] = [];
  try {
    started.push(...(await Promise.all([cluster.start('projection'), cluster.start('task')])));
    started.push(await cluster.start('command', { timeoutMs: 120_000 }));
  } catch (error) {
    await cluster.destroy();
    throw error;
  }
  const [projection, task, command] = started as [ServiceProcess, ServiceProcess, ServiceProcess];
  const cpu = (service: ServiceProcess) => cpuSecondsOf(service.process.pid!) ?? NaN;
  const mainThread = (service: ServiceProcess) => mainThreadCpuSecondsOf(service.process.pid!) ?? NaN;
  return {
    id: DEPLOYMENT_IDS[readModels],
    label: `three processes, log on PostgreSQL, read models on ${STORE_NAMES[readModels]}, tasks on Kafka`,
    url: command.url,
    admin: new HttpClient(command.url, cluster.adminKey),
    cpu: () => ({
      command: cpu(command),
      commandMainThread: mainThread(command),
      projection: cpu(projection),
      projectionMainThread: mainThread(projection),
      task: cpu(task),
      // Shared by the distributed deployments of a run: read it while only one is loaded. With read
      // models on PostgreSQL, their reads and writes are in it too.
      postgres: servers.postgres.cpuSeconds(),
      ...(readModels === 'mongodb' ? { ferretdb: servers.ferretdb.cpuSeconds() } : {}),
      kafka: servers.kafka[broker]!.cpuSeconds(),
    }),
    metrics: metricsOf(command.url),
    async appendToLog(stream, batches) {
      const log = await cluster.openEventLog();
      try {
        return await appendAll(log, stream, batches);
      } finally {
        await log.close();
      }
    },
    stop: () => cluster.destroy(),
  };
}

async function appendAll(log: EventStore, stream: string, batches: Iterable<NewEvent[]>): Promise<number> {
  let version = await log.streamVersion(stream);
  let position = 0;
  for (const batch of batches) {
    const result = await log.append(stream, batch, version === -1 ? 'no_stream' : version);
    version = result.streamVersion;
    position = result.position;
  }
  return position;
}
