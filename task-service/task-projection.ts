import type { Projection } from '../shared/read-models/projection';
import type { ReadModels } from '../shared/read-models/read-models';
import type { Collection } from '../shared/docstore/port';
import type { EventOf, RecordedEvent, TaskEvent } from '../shared/events';
import type { TaskCompletion } from '../shared/read-models/task-completion';
import type { TaskDoc } from '../shared/read-models/tasks';

/**
 * Builds the task read model from task streams. Idempotent: every field is set
 * from the event (never incremented), so a replayed event changes nothing.
 * On a task's outcome it wakes the requests waiting for it.
 */
export function taskProjection(rm: ReadModels, tasks: Collection<TaskDoc>, completion: TaskCompletion): Projection {
  async function update(taskId: string, at: string, change: (doc: TaskDoc) => void | Promise<void>) {
    const doc = await tasks.get(taskId);
    if (!doc) return;
    await change(doc);
    doc.updated_at = at;
    await tasks.put(doc);
  }

  return {
    name: 'tasks',
    handles: new Set<TaskEvent['type']>(['EnvironmentCopyRequested', 'TaskStarted', 'TaskProgressed', 'TaskSucceeded', 'TaskFailed']),
    async apply(event: RecordedEvent) {
      const e = event as unknown as TaskEvent;
      const at = event.metadata.timestamp;
      switch (e.type) {
        case 'EnvironmentCopyRequested':
          await tasks.put(requestedDoc(e, event.position, at));
          break;
        case 'TaskStarted':
          await update(e.data.taskId, at, (doc) => {
            doc.attempts = Math.max(doc.attempts, e.data.attempt);
            doc.started_at ??= at;
          });
          break;
        case 'TaskProgressed':
          await update(e.data.taskId, at, (doc) => {
            doc.progress = { ...doc.progress, source_events_read: e.data.sourceEventsRead, events_copied: e.data.eventsCopied };
          });
          break;
        case 'TaskSucceeded': {
          const d = e.data;
          await update(d.taskId, at, async (doc) => {
            doc.status = 'success';
            doc.result = await rm.environments.get(d.environmentId);
            doc.error = null;
            doc.progress = { ...doc.progress, source_events_read: d.sourceEventsRead, events_copied: d.eventsCopied };
            doc.finished_at = at;
          });
          completion.finished(d.taskId, event.position);
          break;
        }
        case 'TaskFailed':
          await update(e.data.taskId, at, (doc) => {
            doc.status = 'failure';
            doc.result = null;
            doc.error = e.data.error;
            doc.finished_at = at;
          });
          completion.finished(e.data.taskId, event.position);
          break;
      }
    },
  };
}

function requestedDoc(e: EventOf<'EnvironmentCopyRequested'>, position: number, at: string): TaskDoc {
  const d = e.data;
  return {
    id: d.taskId,
    task_id: d.taskId,
    type: 'environment_copy',
    status: 'processing',
    organization_id: d.organizationId,
    project_id: d.projectId,
    source_environment: d.source.ref,
    source_environment_id: d.source.environmentId,
    target_kind: d.target.kind,
    target_environment_id: d.target.environmentId,
    scope: d.scope,
    as_of: d.asOf,
    requested_at_position: position,
    attempts: 0,
    progress: { source_events_total: d.sourceEventsTotal, source_events_read: 0, events_copied: 0 },
    result: null,
    error: null,
    created_at: at,
    updated_at: at,
    started_at: null,
    finished_at: null,
  };
}
