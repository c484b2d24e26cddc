import type { Logger } from 'pino';
import { loadConfig, type Config } from '../shared/config';
import { createRootLogger } from '../shared/logger';
import { stopTracing } from '../shared/tracing/start';
import { StartupRefused } from './startup-refused';
import { limitHeapGrowth } from './heap-growth';

export interface RunningService {
  /** Graceful stop: stop taking work, finish or hand back what is in flight, store checkpoints, close clients. */
  close(): Promise<void>;
  /** Resolves with an exit code if the service stops on its own (e.g. its projections failed). */
  readonly failed?: Promise<number>;
}

/** Longest a graceful stop may take before the process exits anyway. */
const SHUTDOWN_TIMEOUT_MS = 30_000;

/**
 * The process shell of every entry point: loads the configuration, creates
 * the one root logger, sets how far the heaps grow (app/heap-growth.ts),
 * starts the service, and on SIGTERM/SIGINT closes it and exits 0 (1 if
 * closing fails or takes longer than 30 s).
 */
export function runService(name: string, start: (config: Config, logger: Logger) => Promise<RunningService>): void {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    // No configured logger without a configuration: the line goes out as LOG_FORMAT would have it, when that much is valid.
    const format = process.env.LOG_FORMAT === 'json' || process.env.LOG_FORMAT === 'pretty' ? process.env.LOG_FORMAT : undefined;
    refused(createRootLogger('info', name, { format }), new StartupRefused(error instanceof Error ? error.message : String(error)));
  }
  const logger = createRootLogger(config.LOG_LEVEL, name, { format: config.LOG_FORMAT });
  limitHeapGrowth(config.HEAP_GROWTH_PERCENT);
  let service: RunningService | null = null;
  let stopping = false;

  const stop = async (reason: string, code: number) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error('graceful shutdown took too long; exiting');
      process.exit(1);
    }, SHUTDOWN_TIMEOUT_MS);
    timer.unref();
    try {
      await service?.close();
      logger.info('stopped');
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      code = 1;
    }
    await stopTracing();
    process.exit(code);
  };
  process.on('SIGTERM', () => void stop('SIGTERM', 0));
  process.on('SIGINT', () => void stop('SIGINT', 0));

  start(config, logger).then(
    (started) => {
      service = started;
      if (stopping) void started.close();
      void started.failed?.then((code) => stop('service failed', code));
    },
    (error: unknown) => refused(logger, error),
  );
}

/**
 * A start that failed: one log line, then exit 1. A refusal the operator can act
 * on (StartupRefused: an invalid configuration, a held data directory, a taken port) is its message alone; anything
 * else keeps its stack, in the line's `err` (one JSON line; pretty output
 * prints the stack after it).
 */
function refused(logger: Logger, error: unknown): never {
  if (error instanceof StartupRefused) logger.fatal(error.details, `could not start: ${error.message}`);
  else logger.fatal({ err: error }, `could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
