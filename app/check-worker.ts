import './tracing/check-worker';
import http, { type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { createApp } from '../command-service/app';
import { answerUnparsableRequests } from '../command-service/http/client-errors';
import { keepRequestsSentInTime } from '../command-service/http/keep-alive';
import { requestListener } from '../command-service/http/fast-lane';
import type { ApiRegistry, HttpMethod, Operation } from '../command-service/http/openapi';
import type { Config } from '../shared/config';
import { SqliteDocumentStore } from '../shared/docstore/sqlite-document-store';
import { ReadOnlyEventStore } from '../shared/eventstore/read-only-event-store';
import { SqliteEventStore } from '../shared/eventstore/sqlite-event-store';
import { createRootLogger } from '../shared/logger';
import { Metrics, type MetricsSnapshot } from '../shared/metrics/metrics';
import { ReadModels } from '../shared/read-models/read-models';
import { checkWorkerFeatures } from './features';
import { featureRoutes } from './feature';
import { closeServer, takeConnection } from './http-server';
import { forwardTo } from './forward-request';
import { limitHeapGrowth } from './heap-growth';
import { ReplicaFreshness } from './replica-freshness';
import { buildServices } from './services';
import { sqliteEventsPath, sqliteReadModelsPath } from './stores';
import { keylessSecrets } from '../shared/secrets/secret-box';
import { stopTracing } from '../shared/tracing/start';

/** What the main process tells a check worker at its start (app/check-workers.ts), in the environment. */
export const CHECK_WORKER_ENV = {
  config: 'REBAC_CHECK_WORKER_CONFIG',
  upstreamPort: 'REBAC_CHECK_WORKER_UPSTREAM_PORT',
  index: 'REBAC_CHECK_WORKER_INDEX',
} as const;

/** An operation of the API, as the front door tells which a check worker serves. */
export type WorkerOperation = Pick<Operation, 'method' | 'path'>;

/**
 * Messages between the main process and a check worker (IPC). `connection` comes with a socket
 * and the bytes the main process read from it (base64); `ready` lists the operations the worker
 * serves; `metrics` asks for (and answers with) this process's metrics.
 */
export type ToCheckWorker = { connection: string } | 'stop' | { metrics: number };
export type FromCheckWorker = { ready: WorkerOperation[] } | 'stopped' | { metrics: number; values: MetricsSnapshot };

export interface CheckWorker {
  /** The operations this worker answers itself. */
  readonly operations: WorkerOperation[];
  /** Serves a connection the main process accepted and handed over, with the bytes it read from it. */
  take(socket: Socket, firstBytes: Buffer): void;
  /** This worker's metrics, which the main process's /metrics adds to its own. */
  metrics(): Promise<MetricsSnapshot>;
  /** Stops taking connections and resolves once in-flight requests are answered. */
  close(): Promise<void>;
}

/**
 * A check worker: one more process answering the permission checks of the one-process service
 * on another core. It reads the SQLite read models the main process writes, through a replica
 * whose reads of one turn see one committed batch; its decision caches are kept per that batch's
 * position, so they are as exact as the main process's. It takes whole connections from the main
 * process (which accepts them all, and sends here those that begin with a check); a later request
 * on one that is not a permission check (a write, a list, the console, /metrics) is forwarded to
 * the main process unchanged.
 */
export async function startCheckWorker(config: Config, logger: Logger, upstreamPort: number): Promise<CheckWorker> {
  const documentStore = SqliteDocumentStore.replica(sqliteReadModelsPath(config));
  const eventStore = new ReadOnlyEventStore(new SqliteEventStore({ path: sqliteEventsPath(config) }));
  const readModels = new ReadModels(documentStore);
  const freshness = new ReplicaFreshness(documentStore);
  // Command-state snapshots are the main process's: nothing here decides a command.
  const metrics = new Metrics();
  // Nor is a secret sealed or opened here: proxy config requests are forwarded to the main process.
  const services = buildServices(
    { ...config, COMMAND_SNAPSHOT_EVERY: 0 },
    logger,
    eventStore,
    readModels,
    metrics,
    freshness,
    keylessSecrets,
    false,
  );
  const features = checkWorkerFeatures();
  const app = createApp(services, featureRoutes(features, { config, logger, eventStore, documentStore, services }), { coreRoutes: false });
  const api = app.locals.api as ApiRegistry;
  const forward = forwardTo(upstreamPort, logger.child({ component: 'check-worker' }));

  const serve = requestListener(app);
  const server: Server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0]!;
    if (api.operationFor(req.method!.toLowerCase() as HttpMethod, path)) serve(req, res);
    else {
      metrics.forwardedRequests++;
      forward(req, res);
    }
  });
  answerUnparsableRequests(server);
  keepRequestsSentInTime(server);
  return {
    operations: api.declared(),
    take(socket, firstBytes) {
      takeConnection(server, socket, firstBytes);
    },
    metrics: () => metrics.snapshot(),
    async close() {
      await closeServer(server);
      await services.decisionLog.close();
      await eventStore.close();
      await documentStore.close();
    },
  };
}

/** The process entry: forked by app/check-workers.ts with the main process's configuration. */
async function main(): Promise<void> {
  const config = JSON.parse(process.env[CHECK_WORKER_ENV.config] ?? '') as Config;
  limitHeapGrowth(config.HEAP_GROWTH_PERCENT);
  const index = process.env[CHECK_WORKER_ENV.index] ?? '?';
  // `worker` on every line; `component` only where this process speaks for itself: the loggers made
  // from this one (the access log's `http`, the features') bind their own, and a line holds each key once.
  const logger = createRootLogger(config.LOG_LEVEL, 'rebac', { format: config.LOG_FORMAT }).child({ worker: index });
  const own = logger.child({ component: 'check-worker' });
  const worker = await startCheckWorker(config, logger, Number(process.env[CHECK_WORKER_ENV.upstreamPort]));
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void worker.close().then(async () => {
      await stopTracing();
      process.send?.('stopped' satisfies FromCheckWorker);
      process.exit(0);
    });
  };
  process.on('message', (message: ToCheckWorker, handle?: unknown) => {
    if (typeof message === 'object' && 'connection' in message) {
      if (handle) worker.take(handle as Socket, Buffer.from(message.connection, 'base64'));
    } else if (message === 'stop') stop();
    else if (typeof message === 'object') {
      void worker.metrics().then((values) => process.send?.({ metrics: message.metrics, values } satisfies FromCheckWorker));
    }
  });
  // The main process went away (crashed or killed): nothing is left to forward to.
  process.on('disconnect', () => process.exit(0));
  // Ctrl-C reaches the whole process group: the main process stops the workers itself, after its own requests.
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', stop);
  own.debug('check worker ready');
  process.send?.({ ready: worker.operations } satisfies FromCheckWorker);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
