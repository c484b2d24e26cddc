import { defaultConsoleDir } from '../command-service/http/console-ui';
import type { Logger } from 'pino';
import { createApp } from '../command-service/app';
import { bootstrapIfEmpty } from '../command-service/bootstrap';
import { featureRoutes, followReadModels, stopAll, type Feature, type FeatureContext } from './feature';
import { closeServer, listen } from './http-server';
import { buildServices, flushCommandSnapshots } from './services';
import { ReadModels } from '../shared/read-models/read-models';
import type { Config } from '../shared/config';
import { Metrics } from '../shared/metrics/metrics';
import { CheckpointFreshness } from './checkpoint-freshness';
import { warmCommandState } from './warm-command-state';
import type { RunningService } from './run-service';
import { createDocumentStore, createEventStore } from './stores';
import { loadSecretBox } from '../shared/secrets/secrets-key';

export interface CommandService extends RunningService {
  url: string;
}

/**
 * The command service as its own process: the HTTP API (every route,
 * features' included) over the event log and the read models, without
 * projections or workers. Another process (the projection service) keeps the
 * read models; this one learns how far they are from the projection
 * checkpoint (one shared poller), for read-your-writes and for `wait`.
 *
 * Replicas behind a load balancer are safe: appends carry the expected stream
 * version (a replica's cached state that is behind conflicts and is caught up
 * from the log), and first-start bootstrap agrees on one organisation. Ready
 * (`/readyz`) once the read models reached the log's head as it was at start
 * and the organisation exists.
 */
export async function startCommandService(config: Config, logger: Logger, features: Feature[]): Promise<CommandService> {
  // Its DATA_DIR is a cache and its replicas must share one key: it takes SECRETS_KEY (or a key file put there), never makes one.
  const secrets = loadSecretBox(config, logger, false);
  const metrics = new Metrics();
  const eventStore = await createEventStore(config, metrics.eventStore);
  const documentStore = await createDocumentStore(config);
  const readModels = new ReadModels(documentStore);
  const freshness = new CheckpointFreshness(documentStore, logger.child({ component: 'freshness' }));
  await freshness.start();
  metrics.readLogHead(() => eventStore.headPosition());
  metrics.followLog('read-models', () => freshness.position);
  let prepared = false;
  const services = buildServices(
    config,
    logger,
    eventStore,
    readModels,
    metrics,
    {
      get position() {
        return freshness.position;
      },
      get ready() {
        return prepared && freshness.ready;
      },
      waitForPosition: (position, timeoutMs) => freshness.waitForPosition(position, timeoutMs),
    },
    secrets,
  );
  const context: FeatureContext = { config, logger, eventStore, documentStore, services };
  // The console calls the public API only, so the command service serves it as the one-process service does.
  const consoleDir = config.UI_ENABLED ? (config.UI_DIR ?? defaultConsoleDir()) : undefined;
  const app = createApp(services, featureRoutes(features, context), { consoleDir });

  // The projections run elsewhere: what they would tell the routes in-process, the features learn from the read models.
  const followers = followReadModels(features, context);

  const { server, url } = await listen(app, config);
  logger.info({ url }, 'command service listening');

  let stopping = false;
  const preparing = (async () => {
    for (let backoffMs = 500; !stopping; backoffMs = Math.min(backoffMs * 2, 10_000)) {
      try {
        const head = await eventStore.headPosition();
        freshness.requireAtLeast(head);
        await untilReached(freshness, head, () => stopping, logger);
        if (stopping) return;
        const bootstrapped = await bootstrapIfEmpty(config, readModels, services.orgCommands, logger, services.envCommands);
        freshness.requireAtLeast(bootstrapped);
        await untilReached(freshness, bootstrapped, () => stopping, logger);
        prepared = true;
        logger.info({ position: freshness.position }, 'command service ready');
        void warmCommandState(services, logger, () => stopping);
        return;
      } catch (error) {
        logger.warn({ err: error, backoffMs }, 'could not prepare the command service; retrying');
        await new Promise((r) => setTimeout(r, backoffMs));
      }
    }
  })();

  return {
    url,
    async close() {
      stopping = true;
      await closeServer(server);
      await services.decisionLog.close();
      await preparing;
      await flushCommandSnapshots(services);
      await stopAll(followers);
      await freshness.stop();
      await eventStore.close();
      await documentStore.close();
    },
  };
}

/** Waits (without bound: the projection service may start later) until the read models reflect `position`. */
async function untilReached(freshness: CheckpointFreshness, position: number, stopping: () => boolean, logger: Logger): Promise<void> {
  for (let waited = 1; !stopping() && !(await freshness.waitForPosition(position, 1000)); waited++) {
    if (waited % 10 === 0) logger.info({ position, at: freshness.position }, 'waiting for the projection service to reach the log head');
  }
}
