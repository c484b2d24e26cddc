import './app/tracing/one-process';
import { startEmbedded } from './app/embedded';
import { runService } from './app/run-service';
import { warmCommandState } from './app/warm-command-state';
import { embeddedFeatures } from './app/features';

/** `npm start`: the whole service in one process on the configured engines. */
runService('rebac', async (config, logger) => {
  const service = await startEmbedded(config, logger, embeddedFeatures());
  let stopping = false;
  void warmCommandState(service.services, logger, () => stopping);
  return {
    async close() {
      stopping = true;
      await service.close();
    },
  };
});
