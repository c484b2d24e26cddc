import type { Express } from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { createApp, type RouteModule } from './command-service/app';
import { bootstrapIfEmpty } from './command-service/bootstrap';
import type { Freshness, Services } from './command-service/http/services';
import { factsProjection } from './projection-service/projections/facts-projection';
import { orgProjection } from './projection-service/projections/org-projection';
import type { Projection } from './projection-service/projections/projection';
import { schemaProjection } from './projection-service/projections/schema-projection';
import { ReadModels } from './projection-service/read-models';
import { ProjectionRunner } from './projection-service/runner';
import type { Config } from './shared/config';
import { runNow, type RunExclusively } from './shared/composition/lease';
import { createDocumentStore, createEventStore, registerKafkaTaskQueue } from './shared/composition/stores';
import { join } from 'node:path';
import { CommandPipeline, type SnapshotPolicy } from './shared/cqrs/command-pipeline';
import { FileSnapshotStore } from './shared/cqrs/snapshot-store';
import { envDecider } from './shared/domain/env/decider';
import { orgDecider } from './shared/domain/org/decider';
import type { DocumentStore } from './shared/docstore/port';
import type { EventStore } from './shared/eventstore/port';

/** What a feature (permission checks, environment copy, …) adds to a running service. */
export interface Feature {
  name: string;
  projections?(readModels: ReadModels): Projection[];
  routes?(context: FeatureContext): RouteModule;
  /** Background work (e.g. the task service's consumer); stopped on shutdown. */
  start?(context: FeatureContext): Promise<{ stop(): Promise<void> }>;
}

export interface FeatureContext {
  config: Config;
  logger: Logger;
  eventStore: EventStore;
  documentStore: DocumentStore;
  services: Services;
  /**
   * Runs work that at most one process may run at a time (e.g. an outbox
   * relay). The embedded process runs it at once; a distributed task service
   * runs it under a lease in the document store, so of several replicas one
   * runs it and the others stand by. Optional for callers building a context by hand.
   */
  runExclusively?: RunExclusively;
}

export interface EmbeddedService {
  url: string;
  server: Server;
  services: Services;
  eventStore: EventStore;
  documentStore: DocumentStore;
  runner: ProjectionRunner;
  close(): Promise<void>;
}

export const coreProjections = (rm: ReadModels): Projection[] => [orgProjection(rm), schemaProjection(rm), factsProjection(rm)];

/** Every projection of a service: the core read models, then each feature's (in feature order). */
export function buildProjections(readModels: ReadModels, features: Feature[]): Projection[] {
  return [...coreProjections(readModels), ...features.flatMap((f) => f.projections?.(readModels) ?? [])];
}

/** The services the HTTP layer and the features use, over the given stores; `freshness` says how current the read models are. */
export function buildServices(config: Config, logger: Logger, eventStore: EventStore, readModels: ReadModels, freshness: Freshness): Services {
  const snapshots: SnapshotPolicy | null =
    config.COMMAND_SNAPSHOT_EVERY > 0
      ? { store: new FileSnapshotStore(config.SNAPSHOT_DIR ?? join(config.DATA_DIR, 'snapshots')), every: config.COMMAND_SNAPSHOT_EVERY }
      : null;
  return {
    config,
    logger,
    readModels,
    envCommands: new CommandPipeline(eventStore, envDecider, logger.child({ component: 'env-commands' }), undefined, snapshots),
    orgCommands: new CommandPipeline(eventStore, orgDecider, logger.child({ component: 'org-commands' }), undefined, snapshots),
    freshness,
  };
}

/** Saves the command-state snapshots of every stream that moved (on shutdown, after the last request). */
export async function flushCommandSnapshots(services: Services): Promise<void> {
  await services.envCommands.flushSnapshots();
  await services.orgCommands.flushSnapshots();
}

/** The features' HTTP routes. */
export function featureRoutes(features: Feature[], context: FeatureContext): RouteModule[] {
  return features.flatMap((f) => (f.routes ? [f.routes(context)] : []));
}

/** Listens on HOST:PORT (PORT 0: any free port) and resolves with the server and its URL. */
export async function listen(app: Express, config: Config): Promise<{ server: Server; url: string }> {
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(config.PORT, config.HOST, (error?: Error) => (error ? reject(error) : resolve(s)));
  });
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://${config.HOST}:${port}` };
}

/** Stops taking requests and resolves once in-flight ones have finished. */
export async function closeServer(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  await closed;
}

/**
 * The embedded composition root: command service, projection service and task
 * service in one process, each port on its configured engine (SQLite and the
 * in-process queue by default).
 */
export async function startEmbedded(config: Config, logger: Logger, features: Feature[] = []): Promise<EmbeddedService> {
  registerKafkaTaskQueue(logger.child({ component: 'kafka' }));
  const eventStore = await createEventStore(config);
  const documentStore = await createDocumentStore(config);
  const readModels = new ReadModels(documentStore);
  const runner = new ProjectionRunner(eventStore, documentStore, buildProjections(readModels, features), logger.child({ component: 'projections' }));
  await runner.start();

  const services = buildServices(config, logger, eventStore, readModels, runner);
  const context: FeatureContext = { config, logger, eventStore, documentStore, services, runExclusively: runNow };

  const workers: Array<{ stop(): Promise<void> }> = [];
  try {
    await waitUntilReady(runner);
    const bootstrapped = await bootstrapIfEmpty(config, readModels, services.orgCommands, logger);
    await runner.waitForPosition(bootstrapped, 10_000);
    for (const feature of features) if (feature.start) workers.push(await feature.start(context));
  } catch (error) {
    await runner.stop();
    await eventStore.close();
    await documentStore.close();
    throw error;
  }

  const app = createApp(services, featureRoutes(features, context));
  const { server, url } = await listen(app, config);
  logger.info({ url, dataDir: config.DATA_DIR }, 'service listening');

  let closing: Promise<void> | null = null;
  return {
    url, server, services, eventStore, documentStore, runner,
    close: () =>
      (closing ??= (async () => {
        // Stop taking requests, let in-flight ones finish, then stop the workers and the projections (checkpoints are saved per batch).
        await closeServer(server);
        await flushCommandSnapshots(services);
        for (const worker of workers.reverse()) await worker.stop();
        await runner.stop();
        await eventStore.close();
        await documentStore.close();
      })()),
  };
}

async function waitUntilReady(runner: ProjectionRunner): Promise<void> {
  while (!runner.ready) await new Promise((r) => setTimeout(r, 10));
}
