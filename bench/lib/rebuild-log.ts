import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { streams } from '../../shared/events';
import { SqliteEventStore } from '../../shared/eventstore/sqlite-event-store';
import { startService } from './service';
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
  const dataDir = first.dataDir;
  const environmentId = (await first.admin.ok('GET', '/v2/projects/default/envs/production')).id as string;
  await first.stop({ keepData: true });
  const events = new SqliteEventStore({ path: join(dataDir, 'events.sqlite') });
  const close = async () => {
    await events.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    let version = await events.streamVersion(streams.environment(environmentId));
    for (const batch of timeTravelWorld(total).batches)
      version = (await events.append(streams.environment(environmentId), batch, version < 0 ? 'no_stream' : version)).streamVersion;
    return { events, head: await events.headPosition(), close };
  } catch (error) {
    await close();
    throw error;
  }
}
