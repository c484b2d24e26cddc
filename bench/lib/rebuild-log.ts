import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { streams } from '../../shared/events';
import { SqliteEventStore } from '../../shared/eventstore/sqlite-event-store';
import { Dataset, type DatasetSize } from './dataset';
import { loadFacts, loadSchema } from './load-ours';
import { environmentKey, startService, type RunningService } from './service';
import { timeTravelWorld } from './time-travel-world';

/** An event log to rebuild read models from, in this process (see bench/rebuild-breakdown.ts). */
export interface RebuildLog {
  events: SqliteEventStore;
  /** The log's last position. */
  head: number;
  /** Closes the log and deletes its data directory. */
  close: () => Promise<void>;
}

/**
 * A bootstrapped log (organisation, project, environments) from a real first
 * start of the service, with the time-travel world's `total` events appended
 * to its production environment: the log the rebuild row replays.
 */
export async function rebuildLog(total: number): Promise<RebuildLog> {
  const first = await startService();
  const environmentId = (await first.admin.ok('GET', '/v2/projects/default/envs/production')).id as string;
  return logOf(first, async (events) => {
    let version = await events.streamVersion(streams.environment(environmentId));
    for (const batch of timeTravelWorld(total).batches)
      version = (await events.append(streams.environment(environmentId), batch, version < 0 ? 'no_stream' : version)).streamVersion;
  });
}

/**
 * The log the bulk-load row writes: the bench's model and data set (`size`) through the
 * schema API and the bulk endpoints of a running service, as `npm run bench` loads it.
 */
export async function bulkLoadLog(size: DatasetSize): Promise<RebuildLog> {
  const service = await startService();
  try {
    const api = await environmentKey(service.admin);
    await loadSchema(api);
    await loadFacts(api, new Dataset(size), { chunk: 5000, concurrency: 2 });
  } catch (error) {
    await service.stop();
    throw error;
  }
  return logOf(service, async () => undefined);
}

/** Stops `service`, keeping its data, and opens its log after `fill` appended to it. */
async function logOf(service: RunningService, fill: (events: SqliteEventStore) => Promise<void>): Promise<RebuildLog> {
  await service.stop({ keepData: true });
  const events = new SqliteEventStore({ path: join(service.dataDir, 'events.sqlite') });
  const close = async () => {
    await events.close();
    rmSync(service.dataDir, { recursive: true, force: true });
  };
  try {
    await fill(events);
    return { events, head: await events.headPosition(), close };
  } catch (error) {
    await close();
    throw error;
  }
}
