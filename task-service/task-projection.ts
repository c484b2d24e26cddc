import type { Projection } from '../shared/read-models/projection';
import type { ReadModels } from '../shared/read-models/read-models';
import type { EventHandlers, EventOf, TaskEvent } from '../shared/events';
import { dispatch, eventTypes, handledTypes } from '../shared/events';
import type { TaskCompletion } from '../shared/read-models/task-completion';
import type { TaskDoc, TaskStore } from '../shared/read-stores/tasks/port';

/** What a task handler writes with, for one event at log `position`. */
interface TaskScope {
  rm: ReadModels;
  tasks: TaskStore;
  completion: TaskCompletion;
  at: string;
  position: number;
}

/** Every task event changes its task in the task store; an outcome also wakes the requests waiting for it. */
export const taskProjectionHandlers: EventHandlers<TaskEvent, TaskScope, Promise<void>> = {
  async EnvironmentCopyRequested({ tasks, at, position }, event) {
    await tasks.requested(requestedDoc(event, position, at));
  },
  async TaskStarted({ tasks, at }, { data: d }) {
    await tasks.started(d.taskId, d.attempt, at);
  },
  async TaskProgressed({ tasks, at }, { data: d }) {
    await tasks.progressed(d.taskId, d, at);
  },
  async TaskSucceeded(scope, { data: d }) {
    const result = await scope.rm.environments.get(d.environmentId);
    await scope.tasks.succeeded(d.taskId, result, d, scope.at);
    scope.completion.finished(d.taskId, scope.position);
  },
  async TaskFailed(scope, { data: d }) {
    await scope.tasks.failed(d.taskId, d.error, scope.at);
    scope.completion.finished(d.taskId, scope.position);
  },
};

/**
 * Builds the task read store from task streams. Idempotent: every field is set
 * from the event (never incremented), so a replayed event changes nothing.
 * On a task's outcome it wakes the requests waiting for it.
 */
export function taskProjection(rm: ReadModels, tasks: TaskStore, completion: TaskCompletion): Projection<TaskEvent> {
  return {
    name: 'tasks',
    // 2: the tasks moved from a generic collection to their own store's table (docs/read-stores.md).
    version: 2,
    handles: handledTypes(eventTypes.task, taskProjectionHandlers),
    async apply(event) {
      const scope = { rm, tasks, completion, at: event.metadata.timestamp, position: event.position };
      await dispatch(taskProjectionHandlers, event.type, scope, event);
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
