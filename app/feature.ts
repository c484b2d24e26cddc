import type { Logger } from 'pino';
import type { RouteModule } from '../command-service/app';
import type { Services } from '../command-service/http/services';
import { factsProjection } from '../projection-service/projections/facts-projection';
import { orgProjection } from '../projection-service/projections/org-projection';
import { schemaProjection } from '../projection-service/projections/schema-projection';
import type { Config } from '../shared/config';
import type { DocumentStore } from '../shared/docstore/port';
import type { EventStore } from '../shared/eventstore/port';
import type { Projection } from '../shared/read-models/projection';
import type { ReadModels } from '../shared/read-models/read-models';
import type { RunExclusively } from './lease';

/** Something a composition root started and stops on shutdown. */
export interface Stoppable {
  stop(): Promise<void>;
}

/**
 * What a feature (permission checks, environment copy, bulk facts, …) adds to
 * a running service. Each composition root takes the parts that run in its
 * process: the projection service the projections, the command service the
 * routes and `followReadModels`, the task service the workers; the one-process
 * service takes projections, routes and workers (its projections run beside
 * the API, so nothing needs following).
 */
export interface Feature {
  name: string;
  projections?(readModels: ReadModels): Projection[];
  /**
   * The projections were built with something of this process (e.g. a stats object the caller
   * reads): the projection thread, which builds each feature's projections again by name, cannot
   * run them (app/projection-thread.ts refuses).
   */
  projectionsNeedThisThread?: boolean;
  routes?(context: FeatureContext): RouteModule;
  /**
   * Work of the API process when the projections run in another process: what
   * the feature's projection would have told the routes in-process (e.g. that
   * a held copy request's task finished), the API process learns by reading
   * the read models.
   */
  followReadModels?(context: FeatureContext): Stoppable;
  /** Background work of the task service (e.g. the copy consumer); stopped on shutdown. */
  startWorkers?(context: FeatureContext): Promise<Stoppable>;
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

export const coreProjections = (rm: ReadModels): Projection[] => [orgProjection(rm), schemaProjection(rm), factsProjection(rm)];

/** Every projection of a service: the core read models, then each feature's (in feature order). */
export function buildProjections(readModels: ReadModels, features: Feature[]): Projection[] {
  return [...coreProjections(readModels), ...features.flatMap((f) => f.projections?.(readModels) ?? [])];
}

/** The features' HTTP routes. */
export function featureRoutes(features: Feature[], context: FeatureContext): RouteModule[] {
  return features.flatMap((f) => (f.routes ? [f.routes(context)] : []));
}

/** Starts each feature's following of the read models (for a process whose projections run elsewhere). */
export function followReadModels(features: Feature[], context: FeatureContext): Stoppable[] {
  return features.flatMap((f) => (f.followReadModels ? [f.followReadModels(context)] : []));
}

/** Starts every feature's workers in feature order; if one fails, stops those already started and rethrows. */
export async function startWorkers(features: Feature[], context: FeatureContext): Promise<Stoppable[]> {
  const workers: Stoppable[] = [];
  try {
    for (const feature of features) if (feature.startWorkers) workers.push(await feature.startWorkers(context));
  } catch (error) {
    await stopAll(workers);
    throw error;
  }
  return workers;
}

/** Stops in reverse order of starting. */
export async function stopAll(started: Stoppable[]): Promise<void> {
  for (const item of [...started].reverse()) await item.stop();
}
