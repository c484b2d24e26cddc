import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { MongoClient } from 'mongodb';
import type { EventStore } from '../../shared/eventstore/port';
import { PostgresEventStore } from '../../shared/eventstore/postgres-event-store';
import { SqliteEventStore } from '../../shared/eventstore/sqlite-event-store';
import { createTestDatabase, withHosts, type TestDatabase } from '../../shared/testing/postgres-database';
import { freePort } from './child-server';
import { sleep } from './until';

const ROOT = resolve(__dirname, '../..');

export type ServiceKind = 'command' | 'projection' | 'task';

const ENTRY: Record<ServiceKind, string> = {
  command: 'command-service/main',
  projection: 'projection-service/main',
  task: 'task-service/main',
};

export interface StartOptions {
  untilReady?: boolean;
  timeoutMs?: number;
  /** Another entry point for the service (a path from the repository root), e.g. one with a test seam; runs from source. */
  tsEntry?: string;
  /** Variables of this process only, over the deployment's. */
  env?: Record<string, string>;
}

export interface ServiceProcess {
  kind: ServiceKind;
  /** What it was started with: `Cluster.restart` starts its successor the same way. */
  options: StartOptions;
  url: string;
  process: ChildProcess;
  output(): string;
  /** SIGKILL: no shutdown hook runs, nothing is flushed or released. */
  kill9(): Promise<void>;
  /** SIGTERM, then the exit code (graceful shutdown). */
  stop(): Promise<number | null>;
}

/** How a deployment differs from the tests' default; the bench (bench/scenarios/distributed.ts) sets them. */
export interface ClusterOptions {
  /** Run the services from `dist/` (default: when E2E_USE_DIST=1). */
  fromDist?: boolean;
  /**
   * `sqlite`: the read models in one SQLite file of the data directory the processes share, the log
   * still on PostgreSQL. `postgres`: in the schema `read_models` of the event log's database (needs
   * the log on PostgreSQL), the deployment of two kinds of server.
   */
  readModels?: 'mongodb' | 'sqlite' | 'postgres';
  /** Variables of every service, over the deployment's. */
  env?: Record<string, string>;
}

/**
 * One distributed deployment on this machine, for a test or the bench: the
 * three services as separate processes with their event log in a fresh
 * database of the PostgreSQL at POSTGRES_URL (what .ci/e2e.sh runs; without
 * POSTGRES_URL, a SQLite file on disk shared by the processes), read models in
 * a fresh database of the MongoDB-protocol server at MONGODB_URL, and tasks on
 * a fresh topic of the Kafka at KAFKA_BROKERS.
 *
 * Services run from `dist/` when E2E_USE_DIST=1 (what CI does after `npm run
 * build`), otherwise from the TypeScript sources through @swc-node/register.
 */
let clustersMade = 0;

export class Cluster {
  readonly dataDir = mkdtempSync(join(tmpdir(), 'rebac-distributed-'));
  // Unique per cluster, also for two made in the same millisecond by one process (the bench runs two at once).
  readonly run = `${Date.now()}${process.pid}${clustersMade++}`;
  readonly database = `e2e_${this.run}`;
  readonly adminKey = 'distributed-e2e-admin-key-0123456789';
  readonly eventsPath = join(this.dataDir, 'events.sqlite');
  private readonly children = new Set<ServiceProcess>();
  /** The event log's database on PostgreSQL, created before the first service starts. */
  private eventLog: Promise<TestDatabase> | null = null;
  private eventLogUrl: string | null = null;
  /** The log's hosts as the services are given them (a primary and its standby), when not the server's. */
  private eventLogHosts: { hosts: string; targetSessionAttrs: string } | null = null;

  constructor(
    readonly mongoUrl: string,
    readonly kafkaBrokers: string,
    /** The PostgreSQL server for the event log; null: a SQLite file shared by the processes. */
    readonly postgresUrl: string | null = process.env.POSTGRES_URL ?? null,
    readonly options: ClusterOptions = {},
  ) {}

  static fromEnvironment(): Cluster {
    const mongo = process.env.MONGODB_URL;
    const kafka = process.env.KAFKA_BROKERS;
    if (!mongo || !kafka)
      throw new Error(
        'MONGODB_URL and KAFKA_BROKERS must be set: start the test servers (scripts/test-servers.sh start) or run .ci/e2e.sh',
      );
    return new Cluster(mongo, kafka);
  }

  /** The event log's engine, as the tests' names say it. */
  get logEngine(): string {
    return this.postgresUrl ? 'PostgreSQL' : 'SQLite';
  }

  /** Creates the event log's database on PostgreSQL once (nothing for SQLite). */
  private async prepareEventLog(): Promise<void> {
    if (!this.postgresUrl) return;
    this.eventLog ??= createTestDatabase(this.postgresUrl, `e2e_log_${this.run}`);
    this.eventLogUrl = (await this.eventLog).url;
  }

  /**
   * Gives the services started from now on (and the test's own connections) the event log through
   * these hosts (`host:port,host:port`, tried in order) with libpq's `target_session_attrs`: a
   * primary and its standby, as a deployment with failover has them.
   */
  useEventLogHosts(hosts: string, targetSessionAttrs = 'read-write'): void {
    if (!this.postgresUrl) throw new Error('a host list needs the event log on PostgreSQL (POSTGRES_URL)');
    this.eventLogHosts = { hosts, targetSessionAttrs };
  }

  /** The event log's connection string as the services get it. */
  private serviceLogUrl(): string {
    if (!this.eventLogUrl) throw new Error('the event log database is created by start() or openEventLog() first');
    if (!this.eventLogHosts) return this.eventLogUrl;
    const url = withHosts(this.eventLogUrl, this.eventLogHosts.hosts);
    return `${url}${url.includes('?') ? '&' : '?'}target_session_attrs=${this.eventLogHosts.targetSessionAttrs}`;
  }

  /** A connection of the test's own to the services' event log (close it after use). */
  async openEventLog(options: { pollIntervalMs?: number } = {}): Promise<EventStore> {
    await this.prepareEventLog();
    if (this.eventLogUrl) return PostgresEventStore.connect({ url: this.serviceLogUrl(), pollIntervalMs: options.pollIntervalMs });
    return new SqliteEventStore({ path: this.eventsPath, pollIntervalMs: options.pollIntervalMs });
  }

  private logEnv(): Record<string, string> {
    if (this.postgresUrl) return { EVENT_STORE: 'postgres', POSTGRES_URL: this.serviceLogUrl(), POSTGRES_POOL_SIZE: '4' };
    return { EVENT_STORE: 'sqlite', EVENTS_SQLITE_PATH: this.eventsPath };
  }

  private readModelEnv(): Record<string, string> {
    switch (this.options.readModels) {
      case 'sqlite':
        return { READ_MODEL_STORE: 'sqlite' };
      case 'postgres':
        // POSTGRES_URL is the log's (logEnv): the read models get a schema of their own beside it.
        if (!this.postgresUrl) throw new Error('read models on PostgreSQL need the event log on PostgreSQL (POSTGRES_URL)');
        return { READ_MODEL_STORE: 'postgres', POSTGRES_READ_MODELS_SCHEMA: 'read_models' };
      default:
        return { READ_MODEL_STORE: 'mongodb', MONGODB_URL: this.mongoUrl, MONGODB_DATABASE: this.database };
    }
  }

  env(): Record<string, string> {
    return {
      DATA_DIR: this.dataDir,
      ...this.logEnv(),
      ...this.readModelEnv(),
      TASK_QUEUE: 'kafka',
      KAFKA_BROKERS: this.kafkaBrokers,
      KAFKA_TOPIC_PREFIX: `e2e${this.run}`,
      KAFKA_TASK_PARTITIONS: '3',
      KAFKA_SESSION_TIMEOUT_MS: '6000',
      KAFKAJS_NO_PARTITIONER_WARNING: '1',
      LEASE_TTL_MS: '3000',
      READ_YOUR_WRITES_TIMEOUT_MS: '60000',
      ADMIN_API_KEY: this.adminKey,
      // The deployment's key, shared by every service (the command service does not make one).
      SECRETS_KEY: Buffer.alloc(32, 'e2e').toString('base64'),
      LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? 'warn',
      HOST: '127.0.0.1',
      ...this.options.env,
    };
  }

  /**
   * Starts a service and waits until its /readyz answers 200 (`untilReady:
   * false`: until /healthz does). Any number of each kind may run (replicas).
   */
  async start(kind: ServiceKind, options: StartOptions = {}): Promise<ServiceProcess> {
    await this.prepareEventLog();
    const port = await freePort();
    // A TypeScript entry of the test's own (a service with a test seam) always runs from source.
    const useDist = (this.options.fromDist ?? process.env.E2E_USE_DIST === '1') && !options.tsEntry;
    const entry = options.tsEntry
      ? join(ROOT, options.tsEntry)
      : useDist
        ? join(ROOT, 'dist', `${ENTRY[kind]}.js`)
        : join(ROOT, `${ENTRY[kind]}.ts`);
    if (!existsSync(entry)) throw new Error(`${entry} is missing${useDist ? ': run npm run build first' : ''}`);
    const child = spawn(process.execPath, useDist ? [entry] : ['-r', '@swc-node/register', entry], {
      cwd: ROOT,
      env: { ...process.env, ...this.env(), ...options.env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const url = `http://127.0.0.1:${port}`;
    const service: ServiceProcess = {
      kind,
      options,
      url,
      process: child,
      output: () => output,
      kill9: async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        await exited;
        this.children.delete(service);
      },
      stop: async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        const code = await exited;
        this.children.delete(service);
        return code;
      },
    };
    this.children.add(service);
    const probe = options.untilReady === false ? '/healthz' : '/readyz';
    const deadline = Date.now() + (options.timeoutMs ?? 60_000);
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${kind} service exited during start (${child.exitCode}):\n${output}`);
      const ok = await fetch(`${url}${probe}`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return service;
      if (Date.now() > deadline) {
        await service.kill9();
        throw new Error(`${kind} service not ready in time:\n${output}`);
      }
      await sleep(100);
    }
  }

  /** Kills `service` (SIGKILL, if it still runs) and starts a successor of its kind, as it was started (on another port). */
  async restart(service: ServiceProcess): Promise<ServiceProcess> {
    await service.kill9();
    return this.start(service.kind, service.options);
  }

  /** A stored checkpoint (or lease) of the read-model database. */
  async checkpoint(name: string): Promise<number | null> {
    const client = await MongoClient.connect(this.mongoUrl);
    try {
      const doc = await client.db(this.database).collection<{ _id: string; position: number }>('rm_checkpoints').findOne({ _id: name });
      return doc ? doc.position : null;
    } finally {
      await client.close();
    }
  }

  /** Kills every service still running, drops the databases and the data directory. */
  async destroy(): Promise<void> {
    for (const child of [...this.children]) await child.kill9();
    const client = await MongoClient.connect(this.mongoUrl);
    try {
      for (const name of [this.database, `${this.database}_rebuild`]) await client.db(name).dropDatabase();
    } finally {
      await client.close();
    }
    if (this.eventLog) await (await this.eventLog).drop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
