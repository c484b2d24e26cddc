import './app/tracing/one-process';
import { startEmbedded } from './app/embedded';
import { loadConfig } from './shared/config';
import { warmCommandState } from './app/warm-command-state';
import { createRootLogger } from './shared/logger';
import { embeddedFeatures } from './app/features';
import { stopTracing } from './shared/tracing/start';

/** `npm start`: the whole service in one process on the configured engines. */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createRootLogger(config.LOG_LEVEL, 'rebac', { format: config.LOG_FORMAT });
  const service = await startEmbedded(config, logger, embeddedFeatures());
  let stopping = false;
  void warmCommandState(service.services, logger, () => stopping);
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await service.close();
    logger.info('stopped');
    await stopTracing();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
