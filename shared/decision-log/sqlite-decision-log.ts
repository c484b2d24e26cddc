import Database from 'better-sqlite3';
import {
  idTimeBound,
  type DecisionEntry,
  type DecisionFilter,
  type DecisionLogStore,
  type DecisionPage,
  type DecisionPageRequest,
} from './port';

/**
 * The decision log in a SQLite file of its own (not the read models' file: its appends never
 * wait for a projection batch, nor a batch for them). One row per entry, clustered by its id: a
 * UUIDv7 whose time is the entry's (port.ts), so the table is in time order and new rows go at
 * its end, a time range is a range of ids, and retention deletes a prefix. One index, the
 * environment's (with the id after it: WITHOUT ROWID), so an environment's entries newest first
 * need no sort; every other filter is read from the rows of the environment's time range. An
 * index per filter (user, decision) tripled the cost of an append, and appends are what every
 * check pays; a read narrows by time. Several processes (the check workers) append to one file:
 * WAL, and a busy wait.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS decision_log (
  id TEXT PRIMARY KEY,
  env TEXT NOT NULL,
  api_key TEXT,
  query_type TEXT NOT NULL,
  user TEXT NOT NULL,
  action TEXT,
  resource_type TEXT,
  resource TEXT,
  tenant TEXT,
  decision INTEGER,
  entry TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS decision_log_env ON decision_log (env);
`;

/** An entry as the table's columns, in their order: flat, so it crosses to the writer thread cheaply. */
export type DecisionRow = [
  id: string,
  env: string,
  apiKey: string | null,
  queryType: string,
  user: string,
  action: string | null,
  resourceType: string | null,
  resource: string | null,
  tenant: string | null,
  decision: 0 | 1 | null,
  entry: string,
];

export function rowOf(e: DecisionEntry): DecisionRow {
  return [
    e.id,
    e.environmentId,
    e.apiKeyId,
    e.queryType,
    e.user,
    e.action,
    e.resourceType,
    e.resourceType === null ? null : e.resourceKey === null ? e.resourceType : `${e.resourceType}:${e.resourceKey}`,
    e.tenant,
    e.decision === null ? null : e.decision ? 1 : 0,
    JSON.stringify(e),
  ];
}

export class SqliteDecisionLog implements DecisionLogStore {
  private readonly db: Database.Database;
  private readonly insert: Database.Statement;
  private readonly insertAll: (rows: readonly DecisionRow[]) => void;

  constructor(path: string) {
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
    this.insert = this.db.prepare(
      `INSERT OR IGNORE INTO decision_log (id, env, api_key, query_type, user, action, resource_type, resource, tenant, decision, entry)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.insertAll = this.db.transaction((rows: readonly DecisionRow[]) => {
      for (const row of rows) this.insert.run(row);
    });
  }

  /** Rows made by `rowOf` (the threaded store makes them on its caller's thread, and sends only them). */
  appendRows(rows: readonly DecisionRow[]): void {
    if (rows.length > 0) this.insertAll(rows);
  }

  async append(entries: readonly DecisionEntry[]): Promise<void> {
    this.appendRows(entries.map(rowOf));
  }

  async query(filter: DecisionFilter, page: DecisionPageRequest): Promise<DecisionPage> {
    const { where, params } = whereOf(filter);
    // Named: the planner, without statistics on a young file, might scan the table instead.
    const from = 'decision_log INDEXED BY decision_log_env';
    const total = (this.db.prepare(`SELECT count(*) AS n FROM ${from} WHERE ${where}`).get(...params) as { n: number }).n;
    const direction = page.order === 'newest' ? 'DESC' : 'ASC';
    const rows = this.db
      .prepare(`SELECT entry FROM ${from} WHERE ${where} ORDER BY id ${direction} LIMIT ? OFFSET ?`)
      .all(...params, page.perPage, (page.page - 1) * page.perPage) as Array<{ entry: string }>;
    return { entries: rows.map((r) => JSON.parse(r.entry) as DecisionEntry), total };
  }

  async get(environmentId: string, id: string): Promise<DecisionEntry | null> {
    const row = this.db.prepare('SELECT entry FROM decision_log WHERE id = ? AND env = ?').get(id, environmentId) as
      { entry: string } | undefined;
    return row ? (JSON.parse(row.entry) as DecisionEntry) : null;
  }

  async deleteOlderThan(timestamp: number): Promise<number> {
    return this.db.prepare('DELETE FROM decision_log WHERE id < ?').run(idTimeBound(timestamp)).changes;
  }

  async keepNewest(max: number): Promise<number> {
    const edge = this.db.prepare('SELECT id FROM decision_log ORDER BY id DESC LIMIT 1 OFFSET ?').get(max - 1) as
      { id: string } | undefined;
    return edge ? this.db.prepare('DELETE FROM decision_log WHERE id < ?').run(edge.id).changes : 0;
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
  // Ids in time order: a time range is a range of ids.
  if (filter.from !== undefined) {
    clauses.push('id >= ?');
    params.push(idTimeBound(filter.from));
  }
  if (filter.to !== undefined) {
    clauses.push('id < ?');
    params.push(idTimeBound(filter.to + 1));
  }
  return { where: clauses.join(' AND '), params };
}
