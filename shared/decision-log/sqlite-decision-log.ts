import Database from 'better-sqlite3';
import type { DecisionEntry, DecisionFilter, DecisionLogStore, DecisionPage, DecisionPageRequest } from './port';

/**
 * The decision log in a SQLite file of its own (not the read models' file: its appends never
 * wait for a projection batch, nor a batch for them). One row per entry: the filtered columns,
 * each behind an index that leads with the environment and ends with the time, and the entry's
 * JSON. Several processes (the check workers) append to one file: WAL, and a busy wait.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS decision_log (
  id TEXT PRIMARY KEY,
  env TEXT NOT NULL,
  ts INTEGER NOT NULL,
  api_key TEXT,
  query_type TEXT NOT NULL,
  user TEXT NOT NULL,
  action TEXT,
  resource_type TEXT,
  resource TEXT,
  tenant TEXT,
  decision INTEGER,
  entry TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS decision_log_env_ts ON decision_log (env, ts);
CREATE INDEX IF NOT EXISTS decision_log_env_user_ts ON decision_log (env, user, ts);
CREATE INDEX IF NOT EXISTS decision_log_env_decision_ts ON decision_log (env, decision, ts);
CREATE INDEX IF NOT EXISTS decision_log_env_resource_type_ts ON decision_log (env, resource_type, ts);
CREATE INDEX IF NOT EXISTS decision_log_ts ON decision_log (ts);
`;

export class SqliteDecisionLog implements DecisionLogStore {
  private readonly db: Database.Database;
  private readonly insert: Database.Statement;
  private readonly appendAll: (entries: readonly DecisionEntry[]) => void;

  constructor(path: string) {
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
    this.insert = this.db.prepare(
      `INSERT OR IGNORE INTO decision_log (id, env, ts, api_key, query_type, user, action, resource_type, resource, tenant, decision, entry)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.appendAll = this.db.transaction((entries: readonly DecisionEntry[]) => {
      for (const e of entries) {
        const resource = e.resourceType === null ? null : e.resourceKey === null ? e.resourceType : `${e.resourceType}:${e.resourceKey}`;
        this.insert.run(
          e.id,
          e.environmentId,
          e.timestamp,
          e.apiKeyId,
          e.queryType,
          e.user,
          e.action,
          e.resourceType,
          resource,
          e.tenant,
          e.decision === null ? null : e.decision ? 1 : 0,
          JSON.stringify(e),
        );
      }
    });
  }

  async append(entries: readonly DecisionEntry[]): Promise<void> {
    if (entries.length > 0) this.appendAll(entries);
  }

  async query(filter: DecisionFilter, page: DecisionPageRequest): Promise<DecisionPage> {
    const { where, params } = whereOf(filter);
    const total = (this.db.prepare(`SELECT count(*) AS n FROM decision_log WHERE ${where}`).get(...params) as { n: number }).n;
    const direction = page.order === 'newest' ? 'DESC' : 'ASC';
    const rows = this.db
      .prepare(`SELECT entry FROM decision_log WHERE ${where} ORDER BY ts ${direction}, id ${direction} LIMIT ? OFFSET ?`)
      .all(...params, page.perPage, (page.page - 1) * page.perPage) as Array<{ entry: string }>;
    return { entries: rows.map((r) => JSON.parse(r.entry) as DecisionEntry), total };
  }

  async get(environmentId: string, id: string): Promise<DecisionEntry | null> {
    const row = this.db.prepare('SELECT entry FROM decision_log WHERE id = ? AND env = ?').get(id, environmentId) as
      { entry: string } | undefined;
    return row ? (JSON.parse(row.entry) as DecisionEntry) : null;
  }

  async deleteOlderThan(timestamp: number): Promise<number> {
    return this.db.prepare('DELETE FROM decision_log WHERE ts < ?').run(timestamp).changes;
  }

  async keepNewest(max: number): Promise<number> {
    const edge = this.db.prepare('SELECT ts, id FROM decision_log ORDER BY ts DESC, id DESC LIMIT 1 OFFSET ?').get(max - 1) as
      { ts: number; id: string } | undefined;
    if (!edge) return 0;
    return this.db.prepare('DELETE FROM decision_log WHERE ts < ? OR (ts = ? AND id < ?)').run(edge.ts, edge.ts, edge.id).changes;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}

/** The filter as SQL over the indexed columns; values as parameters. */
function whereOf(filter: DecisionFilter): { where: string; params: unknown[] } {
  const clauses = ['env = ?'];
  const params: unknown[] = [filter.environmentId];
  const oneOf = (column: string, values: string[]) => {
    clauses.push(`${column} IN (${values.map(() => '?').join(', ')})`);
    params.push(...values);
  };
  if (filter.apiKeyIds) oneOf('api_key', filter.apiKeyIds);
  if (filter.users) oneOf('user', filter.users);
  if (filter.decision !== undefined) {
    clauses.push('decision = ?');
    params.push(filter.decision ? 1 : 0);
  }
  if (filter.resources) {
    const marks = filter.resources.map(() => '?').join(', ');
    clauses.push(`(resource_type IN (${marks}) OR resource IN (${marks}))`);
    params.push(...filter.resources, ...filter.resources);
  }
  for (const [column, value] of [
    ['tenant', filter.tenant],
    ['action', filter.action],
    ['query_type', filter.queryType],
  ] as const) {
    if (value === undefined) continue;
    clauses.push(`${column} = ?`);
    params.push(value);
  }
  if (filter.from !== undefined) {
    clauses.push('ts >= ?');
    params.push(filter.from);
  }
  if (filter.to !== undefined) {
    clauses.push('ts <= ?');
    params.push(filter.to);
  }
  return { where: clauses.join(' AND '), params };
}
