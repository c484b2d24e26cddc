import { StreamVersionConflictError } from '../../shared/errors';
import { isEventOf, streams } from '../../shared/events';
import { CopyConflictError } from '../../shared/domain/task/errors';
import type { CopyDependencies, CopyJob, CopyOutcome } from './copy-job';
import { applyToSnapshot, emptySnapshot, type EnvSnapshot } from './env-snapshot';
import { planMerge, type Conflict } from './merge-plan';
import { copyMetadata } from './remap';
import { inScope, scopedEvent } from './scope';
import { readBounded } from './source-reader';

const MAX_PLAN_ATTEMPTS = 5;

/**
 * Copies into an existing environment: plans the merge in memory against the
 * target's current state and appends the whole plan in one append at the
 * version it was planned on, so the target changes all at once or not at all.
 * A concurrent write to the target makes the append fail; the plan is then
 * made again on the new state. Idempotent: the plan's events carry the task id
 * as their correlation id, and a task whose events are already in the target
 * is done.
 */
export async function copyToExistingEnvironment(deps: CopyDependencies, job: CopyJob): Promise<CopyOutcome> {
  const { request, origin } = job;
  if (request.target.kind !== 'existing' || request.target.environmentId === null)
    throw new Error('copyToExistingEnvironment needs a resolved existing target');
  const targetId = request.target.environmentId;
  const targetStream = streams.environment(targetId);

  const { snapshot: source, read: sourceEventsRead } = await loadSource(deps, job);
  await job.progress({ sourceEventsRead, eventsCopied: 0 });

  for (let attempt = 1; ; attempt++) {
    const target = await loadTarget(deps, targetStream, origin.taskId);
    if (target.alreadyApplied > 0) return { environmentId: targetId, sourceEventsRead, eventsCopied: target.alreadyApplied };
    const plan = planMerge({
      source,
      target: target.snapshot,
      scope: request.scope,
      strategy: request.target.conflictStrategy,
      targetEnvironmentId: targetId,
    });
    if (!plan.ok) throw conflictError(request.target.ref, plan.conflicts);
    if (plan.events.length === 0) return { environmentId: targetId, sourceEventsRead, eventsCopied: 0 };
    // Caused by the last source event the plan saw.
    const metadata = copyMetadata(
      origin,
      sourceEventsRead > 0 ? `${streams.environment(job.sourceEnvironmentId)}@${sourceEventsRead - 1}` : undefined,
    );
    try {
      await deps.eventStore.append(
        targetStream,
        plan.events.map((e) => ({ ...e, metadata })),
        target.version === -1 ? 'no_stream' : target.version,
      );
      if (deps.metrics) deps.metrics.eventsCopied += plan.events.length;
      return { environmentId: targetId, sourceEventsRead, eventsCopied: plan.events.length };
    } catch (error) {
      if (!(error instanceof StreamVersionConflictError) || attempt >= MAX_PLAN_ATTEMPTS) throw error;
      deps.logger.debug({ taskId: origin.taskId, attempt }, 'target changed while planning the copy; planning again');
    }
  }
}

async function loadSource(deps: CopyDependencies, job: CopyJob): Promise<{ snapshot: EnvSnapshot; read: number }> {
  const snapshot = emptySnapshot();
  let read = 0;
  for await (const batch of readBounded(deps.eventStore, streams.environment(job.sourceEnvironmentId), 0, job.bound, deps.batchSize)) {
    for (const event of batch) {
      if (!isEventOf('env', event) || !inScope(event.type, job.request.scope)) continue;
      const scoped = scopedEvent(event, job.request.scope);
      if (scoped) applyToSnapshot(snapshot, scoped);
    }
    read = batch.at(-1)!.streamVersion + 1;
  }
  return { snapshot, read };
}

async function loadTarget(deps: CopyDependencies, targetStream: string, taskId: string) {
  const snapshot = emptySnapshot();
  let version = -1;
  let alreadyApplied = 0;
  for (;;) {
    const batch = await deps.eventStore.readStream(targetStream, version + 1, deps.batchSize);
    for (const recorded of batch) {
      if (isEventOf('env', recorded)) applyToSnapshot(snapshot, recorded);
      if (recorded.metadata.correlationId === taskId) alreadyApplied++;
      version = recorded.streamVersion;
    }
    if (batch.length < deps.batchSize) break;
  }
  return { snapshot, version, alreadyApplied };
}

function conflictError(targetRef: string, conflicts: Conflict[]): CopyConflictError {
  const shown = conflicts
    .slice(0, 10)
    .map((c) => `${c.kind} '${c.key}'`)
    .join(', ');
  const more = conflicts.length > 10 ? ` and ${conflicts.length - 10} more` : '';
  return new CopyConflictError(
    `${conflicts.length} object(s) of environment '${targetRef}' differ from the source: ${shown}${more}. Nothing was copied; use conflict_strategy 'overwrite' to replace them with the source's`,
    { conflicts: conflicts.slice(0, 100) },
  );
}
