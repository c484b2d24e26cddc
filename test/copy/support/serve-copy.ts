/**
 * The embedded service with the copy feature, in its own process, for the
 * crash test: `node -r @swc-node/register test/copy/support/serve-copy.ts`
 * with DATA_DIR and ADMIN_API_KEY set. Prints `{"url": ...}` once listening.
 * SLOW_COPY_APPEND_MS delays each append of the copy worker, so that a test
 * can kill the process in the middle of a copy.
 */
import pino from 'pino';
import { startEmbedded } from '../../../app/embedded';
import type { FeatureContext } from '../../../app/feature';
import type { EventStore } from '../../../shared/eventstore/port';
import { loadConfig } from '../../../shared/config';
import { environmentCopyFeature } from '../../../app/features/environment-copy';

function slowAppends(store: EventStore, delayMs: number): EventStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'append') {
        return async (...args: Parameters<EventStore['append']>) => {
          if (args[0].startsWith('env-')) await new Promise((r) => setTimeout(r, delayMs));
          return target.append(...args);
        };
      }
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

async function main(): Promise<void> {
  const config = loadConfig({ ...process.env, PORT: process.env.PORT ?? '0', LOG_LEVEL: 'silent' });
  const feature = environmentCopyFeature({ batchSize: 1000, worker: { progressIntervalMs: 0 } });
  const delayMs = Number(process.env.SLOW_COPY_APPEND_MS ?? 0);
  const start = feature.startWorkers!.bind(feature);
  feature.startWorkers = (context: FeatureContext) =>
    start(delayMs > 0 ? { ...context, eventStore: slowAppends(context.eventStore, delayMs) } : context);
  const service = await startEmbedded(config, pino({ level: process.env.CHILD_LOG_LEVEL ?? 'silent' }), [feature]);
  process.stdout.write(`${JSON.stringify({ url: service.url })}\n`);
  process.on('SIGTERM', () => void service.close().then(() => process.exit(0)));
  // Never outlive the test that started us.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) process.exit(1);
  }, 500).unref();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
