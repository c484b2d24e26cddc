import type { Express } from 'express';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { createApp } from '../command-service/app';
import { bootstrapIfEmpty } from '../command-service/bootstrap';
import { defaultConsoleDir } from '../command-service/http/console-ui';
import type { ApiRegistry, HttpMethod } from '../command-service/http/openapi';
import type { Services } from '../command-service/http/services';
import { ProjectionRunner } from '../projection-service/runner';
import { systemClock, type Clock } from '../shared/clock';
import type { Config } from '../shared/config';
import type { DocumentStore } from '../shared/docstore/port';
import type { EventStore } from '../shared/eventstore/port';
import { Metrics } from '../shared/metrics/metrics';
import { ReadModels } from '../shared/read-models/read-models';
import {
  buildProjections,
  featureRoutes,
  followReadModels,
  startWorkers,
  stopAll,
  type Feature,
  type FeatureContext,
  type Stoppable,
} from './feature';
import { httpWorkerCount, openFrontDoor, type FrontDoor } from './check-workers';
import { closeServer, listen, takeConnection } from './http-server';
import { runNow } from './lease';
import { FRESHNESS_PROJECTIONS, runnerFreshness, type EmbeddedProjections } from './runner-freshness';
import { ProjectionThread, projectionThreadWanted } from './projection-thread';
import { buildServices, flushCommandSnapshots } from './services';
import { createDocumentStore, createEventStore, registerKafkaTaskQueue } from './stores';
import { loadSecretBox } from '../shared/secrets/secrets-key';
import { lockDataDir, refuseIfHeld, type DataDirLock } from './data-dir-lock';
import { holdPort, type HeldPort } from './held-port';

export interface EmbeddedService {
  url: string;
  server: Server;
  /** The express app behind `server` (whose request listener puts the fast lanes before it). */
  app: Express;
  services: Services;
  eventStore: EventStore;
  documentStore: DocumentStore;
  /** The projections: on this thread, or on their own (PROJECTION_THREAD). */
  runner: EmbeddedProjections;
  metrics: Metrics;
  /** The check workers' process ids (none with HTTP_WORKERS=1). */
  checkWorkerPids(): number[];
  close(): Promise<void>;
}

/**
 * The embedded composition root: command service, projection service and task
 * service in one process, each port on its configured engine (SQLite and the
 * in-process queue by default). The projections run on a thread of their own
 * where PROJECTION_THREAD says so (by default when there are two cores or more).
 */
export async function startEmbedded(
  config: Config,
  logger: Logger,
  features: Feature[] = [],
  /** A test's clock (shared/clock.ts) in place of the system's. */
  clock: Clock = systemClock,
): Promise<EmbeddedService> {
  // What the configuration alone decides is refused before anything is taken or written.
  const httpWorkers = httpWorkerCount(config);
  // One process serves a data directory (docs/core-decisions.md, "One process per data directory"): a
  // second start names the holder, before it takes the port the two would share; then the port is held
  // before the directory is created or opened, so a start that cannot listen leaves nothing behind.
  refuseIfHeld(config.DATA_DIR);
  const door = await holdPort(config);
  let lock: DataDirLock;
  try {
    lock = lockDataDir(config.DATA_DIR);
  } catch (error) {
    await door.close();
    throw error;
  }
  try {
    return await startHolding(config, logger, features, door, lock, httpWorkers, clock);
  } catch (error) {
    await door.close();
    lock.release();
    throw error;
  }
}

async function startHolding(
  config: Config,
  logger: Logger,
  features: Feature[],
  door: HeldPort,
  lock: DataDirLock,
  httpWorkers: number,
  clock: Clock,
): Promise<EmbeddedService> {
  if (lock.tookOver) {
    const { pid, host, started_at } = lock.tookOver;
    logger.warn(
      { lock: lock.path, previous: { pid, host, started_at } },
      'took over the lock of a process that is gone (it did not stop cleanly)',
    );
  }
  // The one process owns its data directory: without SECRETS_KEY it generates its key there on first start.
  const secrets = loadSecretBox(config, logger, true);
  registerKafkaTaskQueue(logger.child({ component: 'kafka' }));
  const metrics = new Metrics();
  const projectionLogger = logger.child({ component: 'projections' });
  const thread = projectionThreadWanted(config)
    ? new ProjectionThread(config, features, projectionLogger, () => eventStore.headPosition(), FRESHNESS_PROJECTIONS)
    : null;
  // With the projections on their own thread, each append of this one tells it to read the log now.
  const eventStore = await createEventStore(config, thread ? thread.appendObserver(metrics.eventStore) : metrics.eventStore);
  const documentStore = await createDocumentStore(config);
  const readModels = new ReadModels(documentStore);
  // The projections read and write inside their batches' transactions, through the store's writer view.
  const runner: EmbeddedProjections =
    thread ??
    new ProjectionRunner(eventStore, documentStore, buildProjections(ReadModels.writer(documentStore), features), projectionLogger);
  await runner.start();
  metrics.readLogHead(() => eventStore.headPosition());
  metrics.followLog('read-models', () => runner.position);

  const services = buildServices(config, logger, eventStore, readModels, metrics, runnerFreshness(runner), secrets, true, clock);
  const context: FeatureContext = { config, logger, eventStore, documentStore, services, runExclusively: runNow };

  let workers: Stoppable[];
  try {
    await waitUntilReady(runner);
    const bootstrapped = await bootstrapIfEmpty(config, readModels, services.orgCommands, logger, services.envCommands);
    await runner.waitForPosition(bootstrapped, 10_000);
    workers = await startWorkers(features, context);
    // On another thread, the projections tell the routes nothing in-process: the features learn it from the read models.
    if (thread) workers.push(...followReadModels(features, context));
  } catch (error) {
    await runner.stop();
    await eventStore.close();
    await documentStore.close();
    throw error;
  }

  const consoleDir = config.UI_ENABLED ? (config.UI_DIR ?? defaultConsoleDir()) : undefined;
  const app = createApp(services, featureRoutes(features, context), { consoleDir });
  // This process's HTTP server listens on loopback; the held public port hands it its connections
  // (with check workers, those that do not begin with a check; without, all of them).
  const here = await listen(app, { ...config, HOST: '127.0.0.1', PORT: 0 });
  const server = here.server;
  const url = `http://${config.HOST}:${door.port}`;
  let frontDoor: FrontDoor | null = null;
  if (httpWorkers === 1) {
    door.serve((socket) => takeConnection(server, socket, Buffer.alloc(0)));
  } else {
    const api = app.locals.api as ApiRegistry;
    frontDoor = await openFrontDoor(
      config,
      door,
      logger.child({ component: 'check-workers' }),
      httpWorkers - 1,
      portOf(here.url),
      (socket, firstBytes) => takeConnection(server, socket, firstBytes),
      (method, path) => api.operationFor(method as HttpMethod, path),
    );
    const workers = frontDoor;
    metrics.addPeers(() => workers.workerMetrics());
  }
  logger.info({ url, dataDir: config.DATA_DIR, console: consoleDir === undefined ? null : `${url}/ui/`, httpWorkers }, 'service listening');

  let closing: Promise<void> | null = null;
  return {
    url,
    server,
    app,
    services,
    eventStore,
    documentStore,
    runner,
    metrics,
    checkWorkerPids: () => frontDoor?.workerPids() ?? [],
    close: () =>
      (closing ??= (async () => {
        // Stop taking requests, let in-flight ones finish (the check workers' first: they forward here), then stop the workers and the projections (checkpoints are saved per batch).
        await (frontDoor ?? door).close();
        await closeServer(server);
        await services.decisionLog.close();
        await flushCommandSnapshots(services);
        await stopAll(workers);
        await runner.stop();
        await eventStore.close();
        await documentStore.close();
        lock.release();
      })()),
  };
}

const portOf = (url: string): number => Number(new URL(url).port);

async function waitUntilReady(runner: EmbeddedProjections): Promise<void> {
  while (!runner.ready) await new Promise((r) => setTimeout(r, 10));
}
