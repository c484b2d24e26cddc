import { NotFoundError } from '../../shared/errors';
import { isEventOf, streams } from '../../shared/events';
import type { EventStore } from '../../shared/eventstore/port';
import type { CopyRequest } from '../../shared/domain/task/decider';
import type { SourceBound } from './source-reader';

/**
 * Checks that the source environment exists, and existed at the copy's
 * `as_of`, and that an existing target exists; returns the bound the copy
 * reads up to: the request's own log position, or the earlier `as_of`.
 */
export async function resolveCopy(
  store: EventStore,
  request: CopyRequest,
  requestPosition: number,
): Promise<{ environmentId: string; bound: SourceBound }> {
  const orgEvents = (await store.readStream(streams.organization(request.organizationId))).filter((e) => isEventOf('org', e));
  const project = orgEvents.filter((e) => e.type === 'ProjectCreated').find((e) => e.data.id === request.projectId);
  const projectName = project?.data.key ?? request.projectId;
  const environmentId = request.source.environmentId;
  const created = orgEvents.filter((e) => e.type === 'EnvironmentCreated').find((e) => e.data.id === environmentId);
  if (environmentId === null || !created) {
    throw new NotFoundError(`Environment '${request.source.ref}' not found in project '${projectName}'`, {
      environment: request.source.ref,
    });
  }
  if (request.target.kind === 'existing' && request.target.environmentId === null) {
    throw new NotFoundError(`Target environment '${request.target.ref}' not found in project '${projectName}'`, {
      environment: request.target.ref,
    });
  }

  const bound: SourceBound = { position: requestPosition };
  const asOf = request.asOf;
  if (asOf && 'position' in asOf) {
    bound.position = Math.min(bound.position, asOf.position);
    if (created.position > asOf.position) {
      throw new NotFoundError(
        `Environment '${request.source.ref}' did not exist yet at log position ${asOf.position} (it was created at position ${created.position})`,
        { environment: request.source.ref },
      );
    }
  } else if (asOf && 'time' in asOf) {
    bound.time = asOf.time;
    if (created.metadata.timestamp > asOf.time) {
      throw new NotFoundError(
        `Environment '${request.source.ref}' did not exist yet at ${asOf.time} (it was created at ${created.metadata.timestamp})`,
        { environment: request.source.ref },
      );
    }
  }
  return { environmentId, bound };
}
