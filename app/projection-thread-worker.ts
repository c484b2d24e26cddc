import './tracing/projection-thread';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import pino from 'pino';
import type { Config } from '../shared/config';
import { SqliteDocumentStore } from '../shared/docstore/sqlite-document-store';
import { SqliteEventStore } from '../shared/eventstore/sqlite-event-store';
import type { Projection } from '../shared/read-models/projection';
import { ReadModels } from '../shared/read-models/read-models';
import { ProjectionRunner } from '../projection-service/runner';
import { coreProjections } from './feature';
import { hasRegisteredProjections, registeredProjections } from './feature-registry';
import { sqliteEventsPath, sqliteReadModelsPath } from './stores';
import { stopTracing } from '../shared/tracing/start';
import { activeSpanIds, tracing } from '../shared/tracing/spans';
import {
  publishPositions,
  type FromProjectionThread,
  type ProjectionThreadData,
  type ToProjectionThread,
} from './projection-thread-messages';

/**
 * The projection thread of the one-process service (app/projection-thread.ts): the projection
 * runner over its own connections to the SQLite event log (read only; the main thread appends)
 * and read models (the only writer of its projections). After each batch commits it publishes
 * the positions in the shared memory, then tells the main thread, whose waiting writes wake.
 */
async function main(): Promise<void> {
  const data = workerData as ProjectionThreadData;
  const port = parentPort!;
  const config: Config = data.config;
  // Each line goes to the main thread, which writes it through its own logger (and destination).
  const logger = pino(
    // Lines written in a projection batch's span say which (as the root logger's do: shared/logger.ts).
    { level: data.logLevel, base: undefined, ...(tracing.on ? { mixin: () => activeSpanIds() ?? {} } : {}) },
    { write: (line: string) => port.postMessage({ log: line } satisfies FromProjectionThread) },
  );
  const log = new SqliteEventStore({ path: sqliteEventsPath(config) });
  const store = new SqliteDocumentStore(sqliteReadModelsPath(config));
  const positions = new BigInt64Array(data.positions);
  const runner: ProjectionRunner = new ProjectionRunner(
    // Nothing here appends: the main thread decides and appends every command.
    log,
    store,
    threadProjections(ReadModels.writer(store), data.features),
    logger,
    {
      onCommitted: (position) => {
        publishPositions(positions, position, data.tracked, (name) => runner.lastAppliedBy(name));
        port.postMessage({ committed: position } satisfies FromProjectionThread);
      },
      // Stopped for good (another runner moved the checkpoint): the main thread starts the thread again.
      onFailed: (error) => port.postMessage({ failed: describe(error) } satisfies FromProjectionThread),
    },
  );

  let stopping: Promise<void> | null = null;
  port.on('message', (message: ToProjectionThread) => {
    if (message === 'appended') log.noticeAppends();
    else if (message === 'stop')
      stopping ??= (async () => {
        await runner.stop();
        await log.close();
        await store.close();
        await stopTracing();
        port.postMessage('stopped' satisfies FromProjectionThread);
        port.close();
      })();
  });

  await runner.start();
  publishPositions(positions, runner.position, data.tracked, (name) => runner.lastAppliedBy(name));
  port.postMessage({ started: { from: runner.startedFrom } } satisfies FromProjectionThread);
}

/** The core projections, then each feature's, in feature order (as buildProjections orders them). */
function threadProjections(readModels: ReadModels, features: string[]): Projection[] {
  return [
    ...coreProjections(readModels),
    ...features.filter(hasRegisteredProjections).flatMap((name) => registeredProjections(name, readModels)),
  ];
}

const describe = (error: unknown): string => (error instanceof Error ? (error.stack ?? error.message) : JSON.stringify(error));

if (!isMainThread) {
  main().catch((error: unknown) => {
    parentPort?.postMessage({ failed: describe(error) } satisfies FromProjectionThread);
    process.exit(1);
  });
}
