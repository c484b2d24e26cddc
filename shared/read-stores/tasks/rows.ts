import type { TaskDoc } from './port';

/**
 * A task as a row of the SQL engines' tasks table: a column per field, the progress's counts as
 * columns of their own, and the fields that hold structures (scope, as_of, result, error) as their
 * JSON text (kept as written, so a result reads back with its keys in their order).
 */
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
] as const;

/** The row's values, in TASK_COLUMNS' order. */
export function taskRow(task: TaskDoc): unknown[] {
  return [
    task.task_id,
    task.type,
    task.status,
    task.organization_id,
    task.project_id,
    task.source_environment,
    task.source_environment_id,
    task.target_kind,
    task.target_environment_id,
    JSON.stringify(task.scope),
    JSON.stringify(task.as_of),
    task.requested_at_position,
    task.attempts,
    task.progress.source_events_total,
    task.progress.source_events_read,
    task.progress.events_copied,
    JSON.stringify(task.result),
    JSON.stringify(task.error),
    task.created_at,
    task.updated_at,
    task.started_at,
    task.finished_at,
  ];
}

/** The task of a row read as `SELECT <TASK_COLUMNS>` (values in that order). */
export function taskOfRow(row: unknown[]): TaskDoc {
  const at = (column: (typeof TASK_COLUMNS)[number]) => row[COLUMN_INDEX[column]];
  const text = (column: (typeof TASK_COLUMNS)[number]) => at(column) as string;
  const json = <T>(column: (typeof TASK_COLUMNS)[number]) => JSON.parse(text(column)) as T;
  return {
    id: text('task_id'),
    task_id: text('task_id'),
    type: text('type') as TaskDoc['type'],
    status: text('status') as TaskDoc['status'],
    organization_id: text('organization_id'),
    project_id: text('project_id'),
    source_environment: text('source_environment'),
    source_environment_id: at('source_environment_id') as string | null,
    target_kind: text('target_kind') as TaskDoc['target_kind'],
    target_environment_id: at('target_environment_id') as string | null,
    scope: json('scope'),
    as_of: json('as_of'),
    requested_at_position: Number(at('requested_at_position')),
    attempts: Number(at('attempts')),
    progress: {
      source_events_total: Number(at('source_events_total')),
      source_events_read: Number(at('source_events_read')),
      events_copied: Number(at('events_copied')),
    },
    result: json('result'),
    error: json('error'),
    created_at: text('created_at'),
    updated_at: text('updated_at'),
    started_at: at('started_at') as string | null,
    finished_at: at('finished_at') as string | null,
  };
}

const COLUMN_INDEX = Object.fromEntries(TASK_COLUMNS.map((column, i) => [column, i])) as Record<(typeof TASK_COLUMNS)[number], number>;
