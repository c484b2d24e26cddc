import type { Projection } from '../shared/read-models/projection';
import type { ReadModels } from '../shared/read-models/read-models';
import type { Collection } from '../shared/docstore/port';
import type { EventHandlers, EventOf, TaskEvent } from '../shared/events';
import { dispatch, eventTypes, handledTypes } from '../shared/events';
import type { TaskCompletion } from '../shared/read-models/task-completion';
import type { TaskDoc } from '../shared/read-models/tasks';

/** What a task handler writes with, for one event at log `position`. */
interface TaskScope {
  rm: ReadModels;
  tasks: Collection<TaskDoc>;
  completion: TaskCompletion;
  at: string;
  position: number;
}

/** Every task event changes its task's document; an outcome also wakes the requests waiting for it. */
export const taskProjectionHandlers: EventHandlers<TaskEvent, TaskScope, Promise<void>> = {
  async EnvironmentCopyRequested({ tasks, at, position }, event) {
    await tasks.put(requestedDoc(event, position, at));
  },
  async TaskStarted(scope, { data: d }) {
    await update(scope, d.taskId, (doc) => {
      doc.attempts = Math.max(doc.attempts, d.attempt);
      doc.started_at ??= scope.at;
    });
  },
  async TaskProgressed(scope, { data: d }) {
    await update(scope, d.taskId, (doc) => {
      doc.progress = { ...doc.progress, source_events_read: d.sourceEventsRead, events_copied: d.eventsCopied };
    });
  },
  async TaskSucceeded(scope, { data: d }) {
    await update(scope, d.taskId, async (doc) => {
      doc.status = 'success';
      doc.result = await scope.rm.environments.get(d.environmentId);
      doc.error = null;
      doc.progress = { ...doc.progress, source_events_read: d.sourceEventsRead, events_copied: d.eventsCopied };
      doc.finished_at = scope.at;
    });
    scope.completion.finished(d.taskId, scope.position);
  },
  async TaskFailed(scope, { data: d }) {
    await update(scope, d.taskId, (doc) => {
      doc.status = 'failure';
      doc.result = null;
      doc.error = d.error;
      doc.finished_at = scope.at;
    });
    scope.completion.finished(d.taskId, scope.position);
  },
};

/**
 * Builds the task read model from task streams. Idempotent: every field is set
 * from the event (never incremented), so a replayed event changes nothing.
 * On a task's outcome it wakes the requests waiting for it.
 */
export function taskProjection(rm: ReadModels, tasks: Collection<TaskDoc>, completion: TaskCompletion): Projection<TaskEvent> {
  return {
    name: 'tasks',
    version: 1,
    handles: handledTypes(eventTypes.task, taskProjectionHandlers),
    async apply(event) {
      const scope = { rm, tasks, completion, at: event.metadata.timestamp, position: event.position };
      await dispatch(taskProjectionHandlers, event.type, scope, event);
    },
  };
}

async function update({ tasks, at }: TaskScope, taskId: string, change: (doc: TaskDoc) => void | Promise<void>): Promise<void> {
  const doc = await tasks.get(taskId);
  if (!doc) return;
  await change(doc);
  doc.updated_at = at;
  await tasks.put(doc);
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
