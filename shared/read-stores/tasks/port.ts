import type { EnvironmentDoc } from '../../read-models/read-models';
import type { CopyAsOf, TaskError } from '../../events/task-events';

/** A background task as the read side keeps it (one per task), built from its stream by the task projection. */
export interface TaskDoc {
  /** The task's id again (`task_id`), for callers that key documents by `id`. */
  id: string;
  task_id: string;
  type: 'environment_copy';
  status: 'processing' | 'success' | 'failure';
  organization_id: string;
  project_id: string;
  /** The source as the client named it (key or id), and its id when it resolved. */
  source_environment: string;
  source_environment_id: string | null;
  target_kind: 'new' | 'existing';
  /** The new environment's id (decided at request time), or the existing target's id. */
  target_environment_id: string | null;
  scope: { facts: boolean };
  as_of: CopyAsOf;
  /** Global log position of the request: the source is copied as of this position (or `as_of`). */
  requested_at_position: number;
  attempts: number;
  progress: TaskProgress;
  /** On success: the environment, as the environments read model had it when the task finished. */
  result: EnvironmentDoc | null;
  error: TaskError | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface TaskProgress {
  source_events_total: number;
  source_events_read: number;
  events_copied: number;
}

/** How far a copy got, as its progress and outcome events report it. */
export interface TaskCounts {
  sourceEventsRead: number;
  eventsCopied: number;
}

/**
 * The tasks' read store: what the routes, the held requests' poller and the metrics read, and what
 * the task projection writes, as named operations (each one query shape, served by an index of the
 * engine's; docs/read-stores.md). The writes are the projection's, through the store of the
 * runner's writer view, so that on a transactional engine they commit with the batch. Each sets
 * what its event says (never increments), so a replayed event changes nothing; an update of a task
 * not stored changes nothing.
 */
export interface TaskStore {
  get(taskId: string): Promise<TaskDoc | null>;
  /** Of `taskIds`, the ones that finished (succeeded or failed), in one query whatever their number. */
  finishedAmong(taskIds: string[]): Promise<string[]>;
  /** How many tasks are processing. */
  countProcessing(): Promise<number>;

  /** The task as its request makes it, replacing any stored one (the request is the start of its stream). */
  requested(task: TaskDoc): Promise<void>;
  /** Attempt `attempt` started at `at`: attempts are the most seen, `started_at` the first start. */
  started(taskId: string, attempt: number, at: string): Promise<void>;
  progressed(taskId: string, counts: TaskCounts, at: string): Promise<void>;
  /** It succeeded with `result` (the target environment as the read models hold it), no error left. */
  succeeded(taskId: string, result: EnvironmentDoc | null, counts: TaskCounts, at: string): Promise<void>;
  /** It failed with `error`, no result left; the progress stays as last reported. */
  failed(taskId: string, error: TaskError, at: string): Promise<void>;
}
