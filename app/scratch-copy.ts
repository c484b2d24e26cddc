import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { ScratchCopier, ScratchCopy } from '../command-service/assertions/dry-run';
import { createApp } from '../command-service/app';
import type { Services } from '../command-service/http/services';
import { ProjectionRunner } from '../projection-service/runner';
import type { Config } from '../shared/config';
import { UnavailableError } from '../shared/errors';
import { SqliteDocumentStore } from '../shared/docstore/sqlite-document-store';
import { streams, type RecordedEvent } from '../shared/events';
import type { EventStore } from '../shared/eventstore/port';
import { SqliteEventStore } from '../shared/eventstore/sqlite-event-store';
import { Metrics } from '../shared/metrics/metrics';
import type { EnvironmentDoc } from '../shared/read-models/read-models';
import { ReadModels } from '../shared/read-models/read-models';
import { coreProjections } from './feature';
import { closeServer, listen } from './http-server';
import { buildServices } from './services';

/** Events read from the real log per read, and appended to the scratch log per append. */
const PAGE = 5000;
/** How long the scratch read models may take to reach the copied log's head. */
const CATCH_UP_MS = 120_000;

/**
 * A scratch copy of one environment for a dry run (docs/assertions.md, "Dry run"): its
 * organisation's stream (organisation, projects, environments, API keys) and the environment's
 * stream, copied with their metadata into an event log of their own in a temporary directory,
 * projected by the core projections into read models of their own, and served by the core API
 * routes over those (on a loopback port, for this process only). Nothing is written to the real
 * log or read models: it only reads them. `close` removes all of it.
 */
export function scratchCopier(deps: { config: Config; logger: Logger; eventStore: EventStore; services: Services }): ScratchCopier {
  return async (env: EnvironmentDoc): Promise<ScratchCopy> => {
    const dir = mkdtempSync(join(tmpdir(), 'rebac-dry-run-'));
    const logger = deps.logger.child({ component: 'dry-run' });
    const events = new SqliteEventStore({ path: join(dir, 'events.sqlite') });
    const store = new SqliteDocumentStore(join(dir, 'read-models.sqlite'));
    const runner = new ProjectionRunner(events, store, coreProjections(ReadModels.writer(store)), logger, { checkpointName: 'dry-run' });
    let server: Awaited<ReturnType<typeof listen>>['server'] | null = null;
    const close = async () => {
      if (server) await closeServer(server);
      await runner.stop();
      await events.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    };
    try {
      let position = 0;
      for (const stream of [streams.organization(env.organization_id), streams.environment(env.id)]) {
        position = Math.max(position, await copyStream(deps.eventStore, events, stream));
      }
      await runner.start();
      const head = await events.headPosition();
      if (!(await runner.waitForPosition(head, CATCH_UP_MS)))
        throw new UnavailableError(
          `The scratch copy's read models did not reach its ${head} events within ${CATCH_UP_MS / 1000} s; retry later`,
        );
      const config: Config = { ...deps.config, DATA_DIR: dir, COMMAND_SNAPSHOT_EVERY: 0, PORT: 0, HOST: '127.0.0.1' };
      const services = buildServices(config, logger, events, new ReadModels(store), new Metrics(), runner, deps.services.secrets);
      ({ server } = await listen(createApp(services), config));
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      return { baseUrl: `http://127.0.0.1:${port}`, readModels: new ReadModels(store), position, close };
    } catch (error) {
      await close();
      throw error;
    }
  };
}

/** Copies one stream, page by page, keeping each event's type, data and metadata; answers its last event's real position. */
async function copyStream(from: EventStore, to: EventStore, stream: string): Promise<number> {
  let last = 0;
  for (let version = 0; ; version += PAGE) {
    const page: RecordedEvent[] = await from.readStream(stream, version, PAGE);
    if (page.length === 0) return last;
    await to.append(
      stream,
      page.map(({ type, data, metadata }) => ({ type, data, metadata })),
      version === 0 ? 'no_stream' : version - 1,
    );
    last = page[page.length - 1]!.position;
    if (page.length < PAGE) return last;
  }
}
