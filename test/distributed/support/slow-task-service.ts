import { embeddedFeatures } from '../../../app/features';
import { runService } from '../../../app/run-service';
import { startTaskService } from '../../../app/start-task-service';
import { registerEventStoreEngine } from '../../../app/stores';
import { SqliteEventStore } from '../../../shared/eventstore/sqlite-event-store';

/**
 * The task service exactly as task-service/main.ts runs it, except that every
 * append to an environment stream first waits SLOW_ENV_APPEND_MS (default
 * 1500): a copy then stays in the middle of its work long enough for a test
 * to kill the process there.
 */
const delayMs = Number(process.env.SLOW_ENV_APPEND_MS ?? 1500);

registerEventStoreEngine('sqlite', async (config) => {
  if (!config.EVENTS_SQLITE_PATH) throw new Error('EVENTS_SQLITE_PATH is required');
  const store = new SqliteEventStore({ path: config.EVENTS_SQLITE_PATH });
  const append = store.append.bind(store);
  store.append = async (streamId, events, expected) => {
    if (streamId.startsWith('env-')) await new Promise((r) => setTimeout(r, delayMs));
    return append(streamId, events, expected);
  };
  return store;
});

runService('task-service', (config, logger) => startTaskService(config, logger, embeddedFeatures()));
