import { openPostgresPool, type PostgresPool } from '../eventstore/postgres-connection';
import { translateStoreError } from '../eventstore/postgres-errors';
import {
  resourceName,
  type DecisionEntry,
  type DecisionFilter,
  type DecisionLogStore,
  type DecisionPage,
  type DecisionPageRequest,
} from './port';

/** What a failure that is passing says cannot be reached. */
const STORE = 'The decision log on PostgreSQL';

/** An advisory lock key (its own 64-bit space per database) the table's creation serialises on. */
const DDL_LOCK = 0x7265_6261_6311; // "rebac" 11

/**
 * The decision log in a PostgreSQL table of its own, `<schema>.decision_log`, in the read models'
 * schema (it is not a read model: `dropAll` leaves it, as the other engines do). A row per entry:
 * the columns the filters and the order read, and the entry itself as `json` (its text as it was
 * appended, so the input's attributes come back with their keys as sent).
 *
 * Ids are UUIDv7s of the entries' times (port.ts) and sort as text by bytes (COLLATE "C"), so
 * (ts, id) is the order of the pages, and each index leads with the environment and ends with it.
 */
export class PostgresDecisionLog implements DecisionLogStore {
  private readonly table: string;

  private constructor(
    private readonly sql: PostgresPool,
    schema: string,
  ) {
    this.table = `"${schema}".decision_log`;
  }

  static async connect(options: { url: string; schema: string; poolSize?: number }): Promise<PostgresDecisionLog> {
    if (!/^[a-z_][a-z0-9_]*$/.test(options.schema)) throw new Error(`invalid schema name ${options.schema}`);
    const sql = openPostgresPool(options.url, { max: options.poolSize ?? 4, applicationName: 'rebac-decision-log' });
    try {
      await define(sql, options.schema);
    } catch (error) {
      await sql.end({ timeout: 0 });
      throw translateStoreError(error, STORE);
    }
    return new PostgresDecisionLog(sql, options.schema);
  }

  /** One statement for the batch: its rows from one JSON array; an entry appended again (a retried batch) is kept once. */
  async append(entries: readonly DecisionEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await this.run(
      `INSERT INTO ${this.table} (id, env, ts, api_key, query_type, "user", action, resource_type, resource, tenant, decision, entry)
       SELECT r.id, r.env, r.ts, r.api_key, r.query_type, r."user", r.action, r.resource_type, r.resource, r.tenant, r.decision, r.entry
       FROM json_to_recordset($1::text::json) AS r(
         id text, env text, ts bigint, api_key text, query_type text, "user" text, action text,
         resource_type text, resource text, tenant text, decision boolean, entry json)
       ON CONFLICT (id) DO NOTHING`,
      [JSON.stringify(entries.map(row))],
    );
  }

  async query(filter: DecisionFilter, page: DecisionPageRequest): Promise<DecisionPage> {
    const parameters: unknown[] = [];
    const where = whereOf(filter, parameters);
    const direction = page.order === 'newest' ? 'DESC' : 'ASC';
    const offset = (page.page - 1) * page.perPage;
    const [counted, found] = await Promise.all([
      this.run(`SELECT count(*) FROM ${this.table} WHERE ${where}`, parameters),
      this.run(
        `SELECT entry FROM ${this.table} WHERE ${where} ORDER BY ts ${direction}, id ${direction} LIMIT $${parameters.length + 1} OFFSET $${parameters.length + 2}`,
        [...parameters, page.perPage, offset],
      ),
    ]);
    return { entries: found.rows.map((r) => r[0] as DecisionEntry), total: Number(counted.rows[0]![0]) };
  }

  async get(environmentId: string, id: string): Promise<DecisionEntry | null> {
    const [found] = (await this.run(`SELECT entry FROM ${this.table} WHERE id = $1 AND env = $2`, [id, environmentId])).rows;
    return found ? (found[0] as DecisionEntry) : null;
  }

  async deleteOlderThan(timestamp: number): Promise<number> {
    return (await this.run(`DELETE FROM ${this.table} WHERE ts < $1`, [timestamp])).count;
  }

  /** The entries after the newest `max`, in (ts, id) order: those at or below the first of them, in one statement. */
  async keepNewest(max: number): Promise<number> {
    const deleted = await this.run(
      `DELETE FROM ${this.table}
       WHERE (ts, id) <= (SELECT ts, id FROM ${this.table} ORDER BY ts DESC, id DESC OFFSET $1 LIMIT 1)`,
      [max],
    );
    return deleted.count;
  }

  /** A statement, prepared once per connection; a server that cannot be reached fails it with UnavailableError (503). */
  private async run(sql: string, parameters: unknown[]): Promise<{ rows: unknown[][]; count: number }> {
    try {
      const result = await this.sql.unsafe(sql, parameters as never[], { prepare: true }).values();
      return { rows: result as unknown as unknown[][], count: result.count };
    } catch (error) {
      throw translateStoreError(error, STORE);
    }
  }

  async close(): Promise<void> {
    await this.sql.end({ timeout: 5 });
  }
}

/** The table and its indexes, when missing (under a lock: several processes may start at once). */
async function define(sql: PostgresPool, schema: string): Promise<void> {
  const [made] = await sql<[{ made: boolean }]>`SELECT to_regclass(${`"${schema}".decision_log`}) IS NOT NULL AS made`;
  if (made?.made) return;
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${DDL_LOCK})`;
    await tx.unsafe(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await tx.unsafe(`CREATE TABLE IF NOT EXISTS "${schema}".decision_log (
  id            text COLLATE "C" PRIMARY KEY,
  env           text COLLATE "C" NOT NULL,
  ts            bigint NOT NULL,
  api_key       text COLLATE "C",
  query_type    text COLLATE "C" NOT NULL,
  "user"        text COLLATE "C" NOT NULL,
  action        text COLLATE "C",
  resource_type text COLLATE "C",
  resource      text COLLATE "C",
  tenant        text COLLATE "C",
  decision      boolean,
  entry         json NOT NULL
)`);
    // An environment's pages, newest or oldest first, with no other filter or one these do not serve.
    await tx.unsafe(`CREATE INDEX IF NOT EXISTS decision_log_env ON "${schema}".decision_log (env, ts, id)`);
    // The filters an auditor uses most: a user's decisions, the denied ones, a resource type's.
    await tx.unsafe(`CREATE INDEX IF NOT EXISTS decision_log_env_user ON "${schema}".decision_log (env, "user", ts, id)`);
    await tx.unsafe(`CREATE INDEX IF NOT EXISTS decision_log_env_decision ON "${schema}".decision_log (env, decision, ts, id)`);
    await tx.unsafe(`CREATE INDEX IF NOT EXISTS decision_log_env_resource_type ON "${schema}".decision_log (env, resource_type, ts, id)`);
    // Retention: the oldest entries of every environment.
    await tx.unsafe(`CREATE INDEX IF NOT EXISTS decision_log_ts ON "${schema}".decision_log (ts, id)`);
  });
}

/** An entry as the row `append` reads from JSON. */
function row(e: DecisionEntry): Record<string, unknown> {
  return {
    id: e.id,
    env: e.environmentId,
    ts: e.timestamp,
    api_key: e.apiKeyId,
    query_type: e.queryType,
    user: e.user,
    action: e.action,
    resource_type: e.resourceType,
    resource: resourceName(e),
    tenant: e.tenant,
    decision: e.decision,
    entry: e,
  };
}

/** The WHERE clause of a filter, its values appended to `parameters`. */
function whereOf(filter: DecisionFilter, parameters: unknown[]): string {
  const bind = (value: unknown): string => {
    parameters.push(value);
    return `$${parameters.length}`;
  };
  const clauses = [`env = ${bind(filter.environmentId)}`];
  if (filter.apiKeyIds) clauses.push(`api_key = ANY(${bind(filter.apiKeyIds)}::text[])`);
  if (filter.users) clauses.push(`"user" = ANY(${bind(filter.users)}::text[])`);
  if (filter.decision !== undefined) clauses.push(`decision = ${bind(filter.decision)}::boolean`);
  if (filter.resources) {
    const resources = bind(filter.resources);
    clauses.push(`(resource_type = ANY(${resources}::text[]) OR resource = ANY(${resources}::text[]))`);
  }
  if (filter.tenant !== undefined) clauses.push(`tenant = ${bind(filter.tenant)}`);
  if (filter.action !== undefined) clauses.push(`action = ${bind(filter.action)}`);
  if (filter.queryType !== undefined) clauses.push(`query_type = ${bind(filter.queryType)}`);
  if (filter.from !== undefined) clauses.push(`ts >= ${bind(filter.from)}::bigint`);
  if (filter.to !== undefined) clauses.push(`ts <= ${bind(filter.to)}::bigint`);
  return clauses.join(' AND ');
}
