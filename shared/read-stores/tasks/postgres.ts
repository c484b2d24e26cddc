import type { PostgresStatements } from '../statements';
import type { PostgresPool } from '../../eventstore/postgres-connection';
import type { EnvironmentDoc } from '../../read-models/read-models';
import type { TaskError } from '../../events/task-events';
import type { TaskCounts, TaskDoc, TaskStore } from './port';
import { TASK_COLUMNS, taskOfRow, taskRow } from './rows';

/** The tasks' table, schema-qualified and quoted (`rm_` like every read-model table: a rebuild empties it too). */
const tasksTable = (schema: string): string => `"${schema}"."rm_tasks"`;

/**
 * The statements that make the tasks' table and its index (see the SQLite schema for why the
 * partial index, and why the generic collection of before goes). Run by the document store when it
 * connects, under its DDL lock, only when the table is missing.
 */
export function postgresTasksSchema(schema: string): string[] {
  const table = tasksTable(schema);
  return [
    `CREATE TABLE IF NOT EXISTS ${table} (
  task_id text COLLATE "C" PRIMARY KEY,
  type text NOT NULL,
  status text NOT NULL,
  organization_id text NOT NULL,
  project_id text NOT NULL,
  source_environment text NOT NULL,
  source_environment_id text,
  target_kind text NOT NULL,
  target_environment_id text,
  scope text NOT NULL,
  as_of text NOT NULL,
  requested_at_position bigint NOT NULL,
  attempts integer NOT NULL,
  source_events_total bigint NOT NULL,
  source_events_read bigint NOT NULL,
  events_copied bigint NOT NULL,
  result text NOT NULL,
  error text NOT NULL,
  created_at text NOT NULL,
  updated_at text NOT NULL,
  started_at text,
  finished_at text
)`,
    `CREATE INDEX IF NOT EXISTS rm_tasks__processing ON ${table} (status) WHERE status = 'processing'`,
    `DROP TABLE IF EXISTS "${schema}"."rm_background_tasks"`,
  ];
}

/** Whether the tasks' table is there (read without a lock: a service may start on a read-only server). */
export async function postgresTasksTableExists(sql: PostgresPool, schema: string): Promise<boolean> {
  const [row] = await sql<[{ made: boolean }]>`SELECT to_regclass(${`"${schema}".rm_tasks`}) IS NOT NULL AS made`;
  return row?.made === true;
}

/** The tasks' read store on PostgreSQL: SQL on `<schema>.rm_tasks`, each statement prepared once per connection. */
export class PostgresTaskStore implements TaskStore {
  private readonly sql: Record<
    'get' | 'finishedAmong' | 'countProcessing' | 'requested' | 'started' | 'progressed' | 'succeeded' | 'failed',
    string
  >;

  constructor(private readonly runner: PostgresStatements) {
    const table = tasksTable(runner.schema);
    const placeholders = TASK_COLUMNS.map((_, i) => `$${i + 1}`).join(', ');
    const replaced = TASK_COLUMNS.filter((c) => c !== 'task_id')
      .map((c) => `${c} = EXCLUDED.${c}`)
      .join(', ');
    this.sql = {
      get: `SELECT ${TASK_COLUMNS.join(', ')} FROM ${table} WHERE task_id = $1`,
      finishedAmong: `SELECT task_id FROM ${table} WHERE task_id = ANY($1::text[]) AND status <> 'processing'`,
      countProcessing: `SELECT COUNT(*)::int FROM ${table} WHERE status = 'processing'`,
      requested: `INSERT INTO ${table} (${TASK_COLUMNS.join(', ')}) VALUES (${placeholders}) ON CONFLICT (task_id) DO UPDATE SET ${replaced}`,
      started: `UPDATE ${table} SET attempts = GREATEST(attempts, $2), started_at = COALESCE(started_at, $3), updated_at = $3 WHERE task_id = $1`,
      progressed: `UPDATE ${table} SET source_events_read = $2, events_copied = $3, updated_at = $4 WHERE task_id = $1`,
      succeeded: `UPDATE ${table} SET status = 'success', result = $2, error = 'null', source_events_read = $3, events_copied = $4,
        finished_at = $5, updated_at = $5 WHERE task_id = $1`,
      failed: `UPDATE ${table} SET status = 'failure', result = 'null', error = $2, finished_at = $3, updated_at = $3 WHERE task_id = $1`,
    };
  }

  async get(taskId: string): Promise<TaskDoc | null> {
    const [row] = await this.runner.run(this.sql.get, [taskId]);
    return row ? taskOfRow(row) : null;
  }

  async finishedAmong(taskIds: string[]): Promise<string[]> {
    if (taskIds.length === 0) return [];
    const rows = await this.runner.run(this.sql.finishedAmong, [taskIds]);
    return rows.map(([id]) => id as string);
  }

  async countProcessing(): Promise<number> {
    const [[n]] = (await this.runner.run(this.sql.countProcessing, [])) as [[number]];
    return n;
  }

  requested(task: TaskDoc): Promise<void> {
    return this.write(this.sql.requested, taskRow(task));
  }

  started(taskId: string, attempt: number, at: string): Promise<void> {
    return this.write(this.sql.started, [taskId, attempt, at]);
  }

  progressed(taskId: string, counts: TaskCounts, at: string): Promise<void> {
    return this.write(this.sql.progressed, [taskId, counts.sourceEventsRead, counts.eventsCopied, at]);
  }

  succeeded(taskId: string, result: EnvironmentDoc | null, counts: TaskCounts, at: string): Promise<void> {
    return this.write(this.sql.succeeded, [taskId, JSON.stringify(result), counts.sourceEventsRead, counts.eventsCopied, at]);
  }

  failed(taskId: string, error: TaskError, at: string): Promise<void> {
    return this.write(this.sql.failed, [taskId, JSON.stringify(error), at]);
  }

  private async write(sql: string, parameters: unknown[]): Promise<void> {
    await this.runner.run(sql, parameters, true);
  }
}
