import { DuplicateEntityError, StreamVersionConflictError } from '../../shared/errors';
import { CURRENT_SCHEMA_VERSION, isEventOf, streams, type EventMetadata, type NewEvent } from '../../shared/events';
import type { EventStore } from '../../shared/eventstore/port';
import { TargetChangedError } from '../../shared/domain/task/errors';
import { CopyInterruptedError, type CopyDependencies, type CopyJob, type CopyOutcome } from './copy-job';
import { copiedEvent, copiedEventFromText, copyMetadata, parseCausation } from './remap';
import { DEFAULT_TENANT_KEY, defaultTenantCommand } from '../../shared/domain/env/default-tenant';
import { inScope, narrowsEvents, scopedEvent } from './scope';
import { readBounded, readBoundedText } from './source-reader';

/**
 * Copies into a new environment: creates it through the organisation decider
 * (so key uniqueness holds; a taken key fails the task before anything is
 * written), then replays the source stream into the new stream in batches.
 *
 * Resumable and idempotent: the environment id and every object id are
 * deterministic, each append states the version it expects, and each copied
 * event names its source event, so a resumed copy reads the target's last
 * event to know where to go on. Redelivering the task never duplicates events.
 */
export async function copyToNewEnvironment(deps: CopyDependencies, job: CopyJob): Promise<CopyOutcome> {
  const { request, origin } = job;
  if (request.target.kind !== 'new') throw new Error('copyToNewEnvironment needs a new target');
  const targetId = request.target.environmentId;
  await ensureEnvironment(deps, job);

  const sourceStream = streams.environment(job.sourceEnvironmentId);
  const targetStream = streams.environment(targetId);
  const resumed = await resumePoint(deps.eventStore, targetStream, sourceStream, origin.taskId);
  const { nextSourceVersion } = resumed;
  let { version } = resumed;
  let eventsCopied = version + 1;
  let sourceEventsRead = nextSourceVersion;
  // Followed through what this copy writes; only a resumed copy reads what it wrote before.
  let defaultTenant = version < 0 ? false : await hasDefaultTenant(deps.eventStore, targetStream, version);

  /**
   * One batch's append, then its progress report. At most one is under way: the
   * next batch is read and remapped while the event store's writer thread
   * commits this one, and handed over only once this one is durable.
   */
  const appendBatch = async (events: NewEvent[], lastSourceVersion: number): Promise<void> => {
    if (events.length > 0) {
      try {
        const result = await deps.eventStore.append(targetStream, events, version === -1 ? 'no_stream' : version);
        version = result.streamVersion;
        defaultTenant = defaultTenantAfter(events, defaultTenant);
      } catch (error) {
        // Another attempt of this task wrote the same events (retry later), or someone else wrote here (give up).
        if (error instanceof StreamVersionConflictError) await resumePoint(deps.eventStore, targetStream, sourceStream, origin.taskId);
        throw error;
      }
      eventsCopied += events.length;
      if (deps.metrics) deps.metrics.eventsCopied += events.length;
    }
    sourceEventsRead = lastSourceVersion + 1;
    await job.progress({ sourceEventsRead, eventsCopied });
  };

  let appending: Promise<void> = Promise.resolve();
  for await (const { events, lastSourceVersion } of copiedBatches(deps, job, sourceStream, targetId, nextSourceVersion)) {
    if (job.signal.aborted) {
      await appending;
      throw new CopyInterruptedError();
    }
    await appending;
    appending = appendBatch(events, lastSourceVersion);
    // Its failure is seen at the next `await appending`; until then it must not count as unhandled.
    appending.catch(() => undefined);
  }
  await appending;
  if (!defaultTenant) await writeDefaultTenant(deps, job, targetStream, { version, sourceEventsRead });
  return { environmentId: targetId, sourceEventsRead, eventsCopied };
}

/**
 * The source stream from `fromVersion` up to the copy's bound, a batch at a
 * time: the events the copy writes for each, and the source version the batch
 * ends at. Without key filters, and from a log that stores text, the events are
 * read and copied as text (copiedEventFromText).
 */
async function* copiedBatches(
  deps: CopyDependencies,
  job: CopyJob,
  sourceStream: string,
  targetId: string,
  fromVersion: number,
): AsyncGenerator<{ events: NewEvent[]; lastSourceVersion: number }> {
  const { request, origin } = job;
  const asText = narrowsEvents(request.scope)
    ? null
    : readBoundedText(deps.eventStore, sourceStream, fromVersion, job.bound, deps.batchSize);
  if (asText) {
    for await (const batch of asText) {
      const events = batch.filter((e) => inScope(e.type, request.scope)).map((e) => copiedEventFromText(e, targetId, origin));
      yield { events, lastSourceVersion: batch.at(-1)!.streamVersion };
    }
    return;
  }
  for await (const batch of readBounded(deps.eventStore, sourceStream, fromVersion, job.bound, deps.batchSize)) {
    const events = batch
      .filter((e) => inScope(e.type, request.scope))
      .flatMap((e) => {
        const scoped = isEventOf('env', e) ? scopedEvent(e, request.scope) : e;
        return scoped ? [copiedEvent(scoped, targetId, origin)] : [];
      });
    yield { events, lastSourceVersion: batch.at(-1)!.streamVersion };
  }
}

/**
 * Every new environment has a `default` tenant. A copy that took the source's
 * (with `scope.facts`) has it already and gets no second one; otherwise it is
 * written last, as if caused by the last source event read, so that a resumed
 * copy sees it as its own and goes on after it (and, finding it, writes none).
 * Not counted among the events copied.
 */
async function writeDefaultTenant(
  deps: CopyDependencies,
  job: CopyJob,
  targetStream: string,
  at: { version: number; sourceEventsRead: number },
): Promise<void> {
  const { type: _type, ...data } = defaultTenantCommand(job.request.target.kind === 'new' ? job.request.target.environmentId : '');
  const cause = `${streams.environment(job.sourceEnvironmentId)}@${Math.max(0, at.sourceEventsRead - 1)}`;
  await deps.eventStore.append(
    targetStream,
    [{ type: 'TenantCreated', data, metadata: copyMetadata(job.origin, cause) }],
    at.version === -1 ? 'no_stream' : at.version,
  );
}

/** Whether the stream (up to `version`) ends with a `default` tenant that exists. */
async function hasDefaultTenant(store: EventStore, stream: string, version: number): Promise<boolean> {
  let exists = false;
  for (let from = 0; from <= version; from += READ_BATCH)
    exists = defaultTenantAfter(await store.readStream(stream, from, READ_BATCH), exists);
  return exists;
}

/**
 * Whether a `default` tenant exists after `events`, given whether it did before them. Reads the
 * data of tenant events alone: a copied event's data is parsed when first read (SerialisedEvent),
 * and reading every event's here parsed the whole copy again (docs/bench-history/design-choices.md).
 */
export function defaultTenantAfter(events: ReadonlyArray<{ type: string; data: unknown }>, existed: boolean): boolean {
  let exists = existed;
  for (const event of events) {
    if (event.type !== 'TenantCreated' && event.type !== 'TenantDeleted') continue;
    if ((event.data as { key: string }).key === DEFAULT_TENANT_KEY) exists = event.type === 'TenantCreated';
  }
  return exists;
}

const READ_BATCH = 1000;

/** Creates the target environment unless this task already did. */
async function ensureEnvironment(deps: CopyDependencies, job: CopyJob): Promise<void> {
  const { request, origin } = job;
  if (request.target.kind !== 'new') return;
  const orgStream = streams.organization(request.organizationId);
  const state = await deps.orgCommands.currentState(orgStream);
  const { environmentId, ...fields } = request.target;
  if (state.environments.get(`${request.projectId}#${fields.key}`) === environmentId) return;
  const metadata: EventMetadata = {
    actor: origin.actor,
    ...(origin.requestId ? { requestId: origin.requestId } : {}),
    correlationId: origin.taskId,
    causationId: `${streams.task(origin.taskId)}@0`,
    timestamp: origin.timestamp,
    schemaVersion: CURRENT_SCHEMA_VERSION,
    ...origin.trace,
  };
  try {
    await deps.orgCommands.execute(
      orgStream,
      {
        type: 'CreateEnvironment',
        project: request.projectId,
        copiedFromTaskId: origin.taskId,
        environment: {
          id: environmentId,
          key: fields.key,
          name: fields.name,
          description: fields.description,
          customBranchName: fields.customBranchName,
          jwks: fields.jwks,
          settings: fields.settings,
        },
      },
      metadata,
    );
  } catch (error) {
    // Another attempt of this task (a redelivery racing this one) may have created it just now.
    const created =
      (await deps.orgCommands.currentState(orgStream)).environments.get(`${request.projectId}#${fields.key}`) === environmentId;
    if (!(error instanceof DuplicateEntityError) || !created) throw error;
  }
}

/**
 * Where a copy into `targetStream` goes on: the target's version, and the
 * source version after the one its last event was copied from. A last event
 * that this task did not write means someone else wrote to the environment.
 */
async function resumePoint(
  store: EventStore,
  targetStream: string,
  sourceStream: string,
  taskId: string,
): Promise<{ version: number; nextSourceVersion: number }> {
  const version = await store.streamVersion(targetStream);
  if (version < 0) return { version, nextSourceVersion: 0 };
  const [last] = await store.readStream(targetStream, version, 1);
  const cause = parseCausation(last?.metadata.causationId);
  if (!last || last.metadata.correlationId !== taskId || !cause || cause.streamId !== sourceStream) {
    throw new TargetChangedError(
      `The new environment was written to while the copy was filling it (event ${version} of ${targetStream} is not from this copy); it holds a partial copy and the task cannot finish it`,
    );
  }
  return { version, nextSourceVersion: cause.version + 1 };
}
