import type { Logger } from 'pino';
import type { Services } from '../command-service/http/services';
import { streams } from '../shared/events';

/**
 * Brings every environment's command state into memory in the background once
 * the service is ready, so the first write after a restart does not pay for
 * loading it (seconds for a large environment, even from its snapshot).
 * One environment at a time, between other work: a write that arrives first
 * simply takes its turn on that stream, as it would have without this. Never
 * rejects: a failure is logged.
 */
export async function warmCommandState(services: Services, logger: Logger, stopped: () => boolean): Promise<void> {
  try {
    const started = performance.now();
    const environments = await services.readModels.environments.find({});
    for (const environment of environments) {
      if (stopped()) return;
      await services.envCommands.currentState(streams.environment(environment.id));
    }
    logger.info({ environments: environments.length, ms: Math.round(performance.now() - started) }, 'command state loaded');
  } catch (error) {
    // Only a cache: the first write to an environment loads its state anyway.
    logger.warn({ err: error }, 'could not load the command state ahead of writes');
  }
}
