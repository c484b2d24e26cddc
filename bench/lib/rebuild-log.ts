import { rmSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { buildProjections, type Feature } from '../../app/feature';
import { ProjectionRunner, type ProjectionRunnerOptions } from '../../projection-service/runner';
import type { DocumentStore } from '../../shared/docstore/port';
import { SqliteDocumentStore } from '../../shared/docstore/sqlite-document-store';
import { streams } from '../../shared/events';
import { SqliteEventStore } from '../../shared/eventstore/sqlite-event-store';
import { ReadModels } from '../../shared/read-models/read-models';
import { bytesWrittenOf } from './child';
import { Dataset, type DatasetSize } from './dataset';
import { loadFacts, loadSchema } from './load-ours';
import { FULL_DATASET } from './options';
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

/**
 * Which log an in-process replay tool reads, from the environment: `variable` names the world
 * (`rebuild`, the default: the rebuild row's log, REBUILD_EVENTS events long, 100,000 unless
 * set; `bulk`: the log the bulk-load row writes, at full scale, of its own length).
 */
export function replayWorld(variable: string): { world: 'rebuild' | 'bulk'; open: () => Promise<RebuildLog> } {
  const world = process.env[variable] ?? 'rebuild';
  if (world !== 'rebuild' && world !== 'bulk') throw new Error(`${variable}: rebuild or bulk, not ${world}`);
  const events = process.env.REBUILD_EVENTS;
  if (world === 'bulk') {
    if (events !== undefined) throw new Error(`REBUILD_EVENTS: the bulk load's log has its own length (${variable}=bulk)`);
    return { world, open: () => bulkLoadLog(FULL_DATASET) };
  }
  return { world, open: () => rebuildLog(Number(events ?? 100_000)) };
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

/** What one replay of a log cost this process: wall time, CPU (every thread), and bytes written (null where /proc cannot tell). */
export interface Replayed {
  wallS: number;
  cpuUs: number;
  writtenBytes: number | null;
}

/**
 * Replays the whole log into a fresh read-model database with the core projections and those of
 * `features`, through a ProjectionRunner in this process, as the service rebuilds; its cost is
 * measured from the runner's start until it reaches the log's head (the bytes written: the pages
 * its COMMITs and checkpoints touch, this process alone once the service that wrote the log has
 * stopped). `target`: a SQLite file's path (opened and closed here), or an empty store of another
 * engine (the caller closes it; its server's work is not in this process's figures).
 */
export async function replayLog(
  log: RebuildLog,
  target: string | DocumentStore,
  features: Feature[],
  options: ProjectionRunnerOptions = {},
): Promise<Replayed> {
  const store = typeof target === 'string' ? new SqliteDocumentStore(target) : target;
  const runner = new ProjectionRunner(
    log.events,
    store,
    buildProjections(ReadModels.writer(store), features),
    pino({ level: 'silent' }),
    options,
  );
  try {
    const cpu = process.cpuUsage();
    const writtenBefore = bytesWrittenOf(process.pid);
    const started = performance.now();
    await runner.start();
    const reached = await runner.waitForPosition(log.head, 3_600_000);
    const wallS = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    const writtenAfter = bytesWrittenOf(process.pid);
    if (!reached) throw new Error(`the projections did not reach ${log.head}`);
    const writtenBytes = writtenBefore === null || writtenAfter === null ? null : writtenAfter - writtenBefore;
    return { wallS, cpuUs: used.user + used.system, writtenBytes };
  } finally {
    await runner.stop();
    if (typeof target === 'string') await store.close();
  }
}
