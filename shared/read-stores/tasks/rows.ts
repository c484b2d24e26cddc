import type { EnvironmentDoc } from '../../read-models/read-models';
import type { TaskError } from '../../events/task-events';
import type { TaskDoc } from './port';

/**
 * A task as every engine stores it: a field per column (MongoDB keys it by `_id` instead of
 * `task_id`), the progress's counts as fields of their own, and the fields that hold structures
 * (scope, as_of, result, error) as their JSON text (kept as written, so a result reads back with
 * its keys in their order, and any `.` or `$` in them stays as it is).
 */
export interface TaskRecord {
  task_id: string;
  type: TaskDoc['type'];
  status: TaskDoc['status'];
  organization_id: string;
  project_id: string;
  source_environment: string;
  source_environment_id: string | null;
  target_kind: TaskDoc['target_kind'];
  target_environment_id: string | null;
  scope: string;
  as_of: string;
  requested_at_position: number;
  attempts: number;
  source_events_total: number;
  source_events_read: number;
  events_copied: number;
  result: string;
  error: string;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export function recordOf(task: TaskDoc): TaskRecord {
  return {
    task_id: task.task_id,
    type: task.type,
    status: task.status,
    organization_id: task.organization_id,
    project_id: task.project_id,
    source_environment: task.source_environment,
    source_environment_id: task.source_environment_id,
    target_kind: task.target_kind,
    target_environment_id: task.target_environment_id,
    scope: JSON.stringify(task.scope),
    as_of: JSON.stringify(task.as_of),
    requested_at_position: task.requested_at_position,
    attempts: task.attempts,
    source_events_total: task.progress.source_events_total,
    source_events_read: task.progress.source_events_read,
    events_copied: task.progress.events_copied,
    result: JSON.stringify(task.result),
    error: JSON.stringify(task.error),
    created_at: task.created_at,
    updated_at: task.updated_at,
    started_at: task.started_at,
    finished_at: task.finished_at,
  };
}

/** The task a record holds; numbers as the engine gives them back (a driver may hand a bigint column as text). */
export function taskOfRecord(record: TaskRecord): TaskDoc {
  return {
    id: record.task_id,
    task_id: record.task_id,
    type: record.type,
    status: record.status,
    organization_id: record.organization_id,
    project_id: record.project_id,
    source_environment: record.source_environment,
    source_environment_id: record.source_environment_id ?? null,
    target_kind: record.target_kind,
    target_environment_id: record.target_environment_id ?? null,
    scope: JSON.parse(record.scope) as TaskDoc['scope'],
    as_of: JSON.parse(record.as_of) as TaskDoc['as_of'],
    requested_at_position: Number(record.requested_at_position),
    attempts: Number(record.attempts),
    progress: {
      source_events_total: Number(record.source_events_total),
      source_events_read: Number(record.source_events_read),
      events_copied: Number(record.events_copied),
    },
    result: JSON.parse(record.result) as EnvironmentDoc | null,
    error: JSON.parse(record.error) as TaskError | null,
    created_at: record.created_at,
    updated_at: record.updated_at,
    started_at: record.started_at ?? null,
    finished_at: record.finished_at ?? null,
  };
}

/** The SQL engines' columns: the record's fields, in the tasks table's order. */
export const TASK_COLUMNS = [
  'task_id',
  'type',
  'status',
  'organization_id',
  'project_id',
  'source_environment',
  'source_environment_id',
  'target_kind',
  'target_environment_id',
  'scope',
  'as_of',
  'requested_at_position',
  'attempts',
  'source_events_total',
  'source_events_read',
  'events_copied',
  'result',
  'error',
  'created_at',
  'updated_at',
  'started_at',
  'finished_at',
] as const satisfies ReadonlyArray<keyof TaskRecord>;

/** The row's values, in TASK_COLUMNS' order. */
export function taskRow(task: TaskDoc): unknown[] {
  const record = recordOf(task);
  return TASK_COLUMNS.map((column) => record[column]);
}

/** The task of a row read as `SELECT <TASK_COLUMNS>` (values in that order). */
export function taskOfRow(row: unknown[]): TaskDoc {
  return taskOfRecord(Object.fromEntries(TASK_COLUMNS.map((column, i) => [column, row[i]])) as unknown as TaskRecord);
}
