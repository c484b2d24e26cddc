import type { SqliteStatements } from '../statements';
import type { EnvironmentDoc } from '../../read-models/read-models';
import type { TaskError } from '../../events/task-events';
import type { TaskCounts, TaskDoc, TaskStore } from './port';
import { TASK_COLUMNS, taskOfRow, taskRow } from './rows';

/**
 * The tasks' table on SQLite, made when the read models' file opens (SqliteDocumentStore). `rm_`
 * like every read-model table, so that emptying the read models for a rebuild empties it too. The
 * partial index serves the count of processing tasks and holds only those. The generic
 * collection the tasks were kept in before (`rm_background_tasks`) goes: the task projection's
 * version was raised with this table, so its rows are rebuilt here from the log.
 */
export const SQLITE_TASKS_SCHEMA = `
CREATE TABLE IF NOT EXISTS rm_tasks (
  task_id TEXT PRIMARY KEY,
  type TEXT NOT NULL,
  status TEXT NOT NULL,
  organization_id TEXT NOT NULL,
  project_id TEXT NOT NULL,
  source_environment TEXT NOT NULL,
  source_environment_id TEXT,
  target_kind TEXT NOT NULL,
  target_environment_id TEXT,
  scope TEXT NOT NULL,
  as_of TEXT NOT NULL,
  requested_at_position INTEGER NOT NULL,
  attempts INTEGER NOT NULL,
  source_events_total INTEGER NOT NULL,
  source_events_read INTEGER NOT NULL,
  events_copied INTEGER NOT NULL,
  result TEXT NOT NULL,
  error TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  started_at TEXT,
  finished_at TEXT
);
CREATE INDEX IF NOT EXISTS rm_tasks__processing ON rm_tasks (status) WHERE status = 'processing';
DROP TABLE IF EXISTS rm_background_tasks;
`;

const SELECT = `SELECT ${TASK_COLUMNS.join(', ')} FROM rm_tasks`;

/** The tasks' read store on SQLite: plain SQL on `rm_tasks`. */
export class SqliteTaskStore implements TaskStore {
  constructor(private readonly source: SqliteStatements) {}

  async get(taskId: string): Promise<TaskDoc | null> {
    const row = this.source.statement(`${SELECT} WHERE task_id = ?`).raw(true).get(taskId) as unknown[] | undefined;
    return row ? taskOfRow(row) : null;
  }

  async finishedAmong(taskIds: string[]): Promise<string[]> {
    if (taskIds.length === 0) return [];
    // One parameter, whatever the number of ids: one statement in the cache.
    const rows = this.source
      .statement("SELECT task_id FROM rm_tasks WHERE task_id IN (SELECT value FROM json_each(?)) AND status <> 'processing'")
      .raw(true)
      .all(JSON.stringify(taskIds)) as Array<[string]>;
    return rows.map(([id]) => id);
  }

  async countProcessing(): Promise<number> {
    const [n] = this.source.statement("SELECT COUNT(*) FROM rm_tasks WHERE status = 'processing'").raw(true).get() as [number];
    return n;
  }

  requested(task: TaskDoc): Promise<void> {
    return this.write(
      `INSERT OR REPLACE INTO rm_tasks (${TASK_COLUMNS.join(', ')}) VALUES (${TASK_COLUMNS.map(() => '?').join(', ')})`,
      taskRow(task),
    );
  }

  started(taskId: string, attempt: number, at: string): Promise<void> {
    return this.write(
      'UPDATE rm_tasks SET attempts = MAX(attempts, ?), started_at = COALESCE(started_at, ?), updated_at = ? WHERE task_id = ?',
      [attempt, at, at, taskId],
    );
  }

  progressed(taskId: string, counts: TaskCounts, at: string): Promise<void> {
    return this.write('UPDATE rm_tasks SET source_events_read = ?, events_copied = ?, updated_at = ? WHERE task_id = ?', [
      counts.sourceEventsRead,
      counts.eventsCopied,
      at,
      taskId,
    ]);
  }

  succeeded(taskId: string, result: EnvironmentDoc | null, counts: TaskCounts, at: string): Promise<void> {
    return this.write(
      `UPDATE rm_tasks SET status = 'success', result = ?, error = 'null', source_events_read = ?, events_copied = ?,
         finished_at = ?, updated_at = ? WHERE task_id = ?`,
      [JSON.stringify(result), counts.sourceEventsRead, counts.eventsCopied, at, at, taskId],
    );
  }

  failed(taskId: string, error: TaskError, at: string): Promise<void> {
    return this.write(
      "UPDATE rm_tasks SET status = 'failure', result = 'null', error = ?, finished_at = ?, updated_at = ? WHERE task_id = ?",
      [JSON.stringify(error), at, at, taskId],
    );
  }

  private async write(sql: string, values: unknown[]): Promise<void> {
    await this.source.writing(() => this.source.statement(sql, true).run(...values));
  }
}
