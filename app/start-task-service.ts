import type { Logger } from 'pino';
import { startWorkers, stopAll, type Feature, type FeatureContext, type Stoppable } from './feature';
import { buildServices, flushCommandSnapshots } from './services';
import { ReadModels } from '../shared/read-models/read-models';
import type { Config } from '../shared/config';
import { metricsHandler } from '../shared/metrics/endpoint';
import { Metrics } from '../shared/metrics/metrics';
import { CheckpointFreshness } from './checkpoint-freshness';
import { startHealthServer } from './health-server';
import { runUnderLease, type LeasedWork, type RunExclusively } from './lease';
import type { RunningService } from './run-service';
import { createDocumentStore, createEventStore, registerKafkaTaskQueue } from './stores';
import { keylessSecrets } from '../shared/secrets/secret-box';

export interface TaskService extends RunningService {
  url: string;
}

/**
 * The task service as its own process: the features' background work (the
 * environment-copy relay and worker), plus /healthz and /readyz.
 *
 * Replicas share the work through the task queue's consumer group (Kafka
 * hands each replica some partitions). Work that must run once — the outbox
 * relay — runs under a lease in the document store: one replica relays, the
 * others stand by and take over within LEASE_TTL_MS of its death.
 * On SIGTERM the relay stops after its batch (checkpoint saved), the worker
 * stops taking tasks and aborts running copies at their next step (progress
 * is in the log; the unacknowledged message is delivered again and the copy
 * resumes), and the clients close.
 */
export async function startTaskService(config: Config, logger: Logger, features: Feature[]): Promise<TaskService> {
  registerKafkaTaskQueue(logger.child({ component: 'kafka' }));
  const metrics = new Metrics();
  const eventStore = await createEventStore(config, metrics.eventStore);
  const documentStore = await createDocumentStore(config);
  const readModels = new ReadModels(documentStore);
  const freshness = new CheckpointFreshness(documentStore, logger.child({ component: 'freshness' }));
  await freshness.start();
  // A copy carries secrets sealed as they are and compares them by MAC: this service needs no secrets key.
  const services = buildServices(config, logger, eventStore, readModels, metrics, freshness, keylessSecrets, false);
  const leases: LeasedWork[] = [];
  const runExclusively: RunExclusively = async (name, work) => {
    const lease = runUnderLease(documentStore, name, work, { ttlMs: config.LEASE_TTL_MS, logger });
    leases.push(lease);
    return lease;
  };
  const context: FeatureContext = { config, logger, eventStore, documentStore, services, runExclusively };

  let workers: Stoppable[];
  try {
    workers = await startWorkers(features, context);
  } catch (error) {
    await freshness.stop();
    await eventStore.close();
    await documentStore.close();
    throw error;
  }
  const health = await startHealthServer(
    config.HOST,
    config.PORT,
    () => ({ ready: true, exclusive: leases.map((l) => (l.active ? 'active' : 'standby')) }),
    logger,
    metricsHandler(metrics, config.METRICS_TOKEN),
  );
  logger.info('task service started');

  return {
    url: health.url,
    async close() {
      await health.close();
      await stopAll(workers);
      await flushCommandSnapshots(services);
      await freshness.stop();
      await eventStore.close();
      await documentStore.close();
    },
  };
}
