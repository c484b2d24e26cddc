import type { Logger } from 'pino';
import { buildProjections, type Feature } from './feature';
import { ReadModels } from '../shared/read-models/read-models';
import { ProjectionRunner } from '../projection-service/runner';
import type { Config } from '../shared/config';
import { metricsHandler } from '../shared/metrics/endpoint';
import { Metrics } from '../shared/metrics/metrics';
import { startHealthServer } from './health-server';
import { runUnderLease } from './lease';
import type { RunningService } from './run-service';
import { createDocumentStore, createEventStore, sharedReadModels } from './stores';

export interface ProjectionService extends RunningService {
  url: string;
  readonly runner: ProjectionRunner;
}

/**
 * The projection service as its own process: one ProjectionRunner with every
 * projection (core and features') from the stored checkpoint, plus /healthz
 * and /readyz.
 *
 * One runner per read-model store may be active. On a server that several
 * replicas share (MongoDB, PostgreSQL) the runner starts only while this
 * process holds the `read-models` lease in the document store: extra replicas
 * stand by and take over within LEASE_TTL_MS of the holder's death (at once
 * after a graceful stop). Without atomic transactions (MongoDB) a second runner
 * would write stale documents before its checkpoint compare-and-set failed; with
 * them (PostgreSQL) its batch would be rolled back, but it would then exit and
 * restart, over and over, beside the active one. On SQLite (one machine's file)
 * the batch and its checkpoint commit together, so the compare-and-set alone
 * keeps a second runner harmless.
 *
 * A failed batch is applied again with backoff (the read-model store may be
 * back in a moment); only a runner that lost its checkpoint to another one
 * stops for good, and the process then exits 1, to be restarted from the last
 * checkpoint (projections are idempotent).
 */
export async function startProjectionService(config: Config, logger: Logger, features: Feature[]): Promise<ProjectionService> {
  const metrics = new Metrics();
  const eventStore = await createEventStore(config, metrics.eventStore);
  const documentStore = await createDocumentStore(config);
  // The projections read and write inside their batches' transactions, through the store's writer view.
  const readModels = ReadModels.writer(documentStore);
  const runner = new ProjectionRunner(
    eventStore,
    documentStore,
    buildProjections(readModels, features),
    logger.child({ component: 'projections' }),
    {
      onFailed: (error) => {
        logger.fatal({ err: error }, 'projections failed; exiting to restart from the last checkpoint');
        fail(1);
      },
    },
  );

  let fail!: (code: number) => void;
  const failed = new Promise<number>((resolve) => (fail = resolve));
  const work = async () => {
    await runner.start();
    return { stop: () => runner.stop() };
  };
  const lease = !sharedReadModels(config)
    ? null
    : runUnderLease(documentStore, 'read-models', work, { ttlMs: config.LEASE_TTL_MS, logger, onLost: () => fail(1) });
  if (!lease) await work();

  metrics.readLogHead(() => eventStore.headPosition());
  metrics.followLog('read-models', () => (lease && !lease.active ? null : runner.position));

  const health = await startHealthServer(
    config.HOST,
    config.PORT,
    () => {
      if (lease && !lease.active) return { ready: runner.failure === null, role: 'standby' };
      return { ready: runner.ready, role: 'active', position: runner.position, startedFrom: runner.startedFrom };
    },
    logger,
    metricsHandler(metrics, config.METRICS_TOKEN),
  );

  return {
    url: health.url,
    runner,
    failed,
    async close() {
      await health.close();
      // Stops the runner after its batch in flight (its checkpoint is saved with it) and releases the lease.
      if (lease) await lease.stop();
      else await runner.stop();
      await eventStore.close();
      await documentStore.close();
    },
  };
}
