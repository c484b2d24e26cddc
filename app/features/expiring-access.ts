import type { Feature } from '../feature';
import { ExpiryScheduler } from '../../command-service/expiry/scheduler';

/**
 * Access that expires on time (docs/expiring-access.md): the scheduler that appends an expiry event
 * after each end, a worker of the process that runs workers (the one-process service; the task
 * service in the distributed mode). Ends themselves are part of the facts, whatever features run.
 */
export function expiringAccessFeature(): Feature {
  return {
    name: 'expiring-access',
    async startWorkers({ config, logger, services }) {
      if (config.EXPIRY_POLL_MS === 0) return { stop: async () => undefined };
      const scheduler = new ExpiryScheduler({
        readModels: services.readModels,
        envCommands: services.envCommands,
        clock: services.clock,
        logger: logger.child({ component: 'expiry-scheduler' }),
        pollMs: config.EXPIRY_POLL_MS,
      });
      scheduler.start();
      return scheduler;
    },
  };
}
