import { embeddedFeatures } from '../../../app/features';
import { runService } from '../../../app/run-service';
import { startTaskService } from '../../../app/start-task-service';
import { registerEventStoreEngine } from '../../../app/stores';
import type { EventStore } from '../../../shared/eventstore/port';
import { PostgresEventStore } from '../../../shared/eventstore/postgres-event-store';
import { SqliteEventStore } from '../../../shared/eventstore/sqlite-event-store';

/**
 * The task service exactly as task-service/main.ts runs it, except that every
 * append to an environment stream first waits SLOW_ENV_APPEND_MS (default
 * 1500): a copy then stays in the middle of its work long enough for a test
 * to kill the process there.
 */
const delayMs = Number(process.env.SLOW_ENV_APPEND_MS ?? 1500);

function slowed<S extends EventStore>(store: S): S {
  const append = store.append.bind(store);
  store.append = async (streamId, events, expected) => {
    if (streamId.startsWith('env-')) await new Promise((r) => setTimeout(r, delayMs));
    return append(streamId, events, expected);
  };
  return store;
}

registerEventStoreEngine('sqlite', async (config) => {
  if (!config.EVENTS_SQLITE_PATH) throw new Error('EVENTS_SQLITE_PATH is required');
  return slowed(new SqliteEventStore({ path: config.EVENTS_SQLITE_PATH }));
});
registerEventStoreEngine('postgres', async (config) => {
  if (!config.POSTGRES_URL) throw new Error('POSTGRES_URL is required');
  return slowed(await PostgresEventStore.connect({ url: config.POSTGRES_URL, poolSize: config.POSTGRES_POOL_SIZE }));
});

runService('task-service', (config, logger) => startTaskService(config, logger, embeddedFeatures()));
