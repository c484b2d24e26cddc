import Database from 'better-sqlite3';
import type { CheckpointSaveResult, Collection, CollectionSpec, DocumentStore, FieldValue, Filter, FindOptions } from './port';
import { WalCheckpointer } from './sqlite-wal-checkpointer';
import type { ReadStores } from '../read-stores/port';
import { SQLITE_TASKS_SCHEMA, SqliteTaskStore } from '../read-stores/tasks/sqlite';
import { SQLITE_GRANTS_SCHEMA, SqliteGrantStore } from '../read-stores/grants/sqlite';

/**
 * Read models on SQLite. Each collection is a table `rm_<name>` with one column
 * per declared field (indexed as declared) and the document as JSON.
 *
 * Two connections: the projection writes through one inside transactions, and
 * queries read through the other, so a query never sees a half-applied batch
 * even when a long projection batch yields to the event loop. Which connection
 * a call uses follows the view it comes through: the store itself reads the
 * committed state and its writes wait for an open transaction to end;
 * `writerView()`, the projections' view, runs the transactions and reads and
 * writes inside them. (This used to follow the async context, through an
 * AsyncLocalStorage: that turns on Node's promise hooks for the whole process,
 * and every promise of every request paid for them: docs/bench-history/design-choices.md.)
 *
 * A replica (`SqliteDocumentStore.replica`) is another process's read-only view of the same
 * file (the check workers of the one-process service, app/check-workers.ts): one read-only
 * connection, no DDL, no writes, and every read of one turn of the event loop inside one read
 * transaction. Another process commits at any time, so without that a check's few reads could
 * straddle a batch and see a state the log never had; with it, all reads of a turn (a request's
 * whole handling, the reads being synchronous) see one committed batch, and `snapshotCheckpoint`
 * says which.
 */
export class SqliteDocumentStore implements DocumentStore {
  readonly atomicTransactions = true;
  /** Null in a replica. */
  private readonly writer: Database.Database | null;
  private readonly reader: Database.Database;
  /** Settles when the open transaction ends; null while none is open (see writing). */
  private transactionEnded: Promise<void> | null = null;
  private readonly collections = new Map<string, SqliteCollection<{ id: string }>>();
  private readonly writerStatements = new Map<string, Database.Statement>();
  private readonly readerStatements = new Map<string, Database.Statement>();
  /** Tables defined (created, indexes declared) by this store or its writer view. */
  private readonly definedTables = new Set<string>();
  private view: SqliteWriterView | null = null;
  private readStores: ReadStores | null = null;
  private closed = false;

  private readonly walCheckpointer: WalCheckpointer | null;
  /** Replica: the read transaction of this turn of the event loop is open. */
  private snapshotOpen = false;
  /** Replica: the checkpoints read in this turn's snapshot. */
  private readonly snapshotCheckpoints = new Map<string, number | null>();

  /** A read-only view of a file another process writes (see the class comment). */
  static replica(path: string): SqliteDocumentStore {
    return new SqliteDocumentStore(path, { replica: true });
  }

  constructor(path: string, options: { replica?: boolean } = {}) {
    if (options.replica) {
      this.writer = null;
      this.reader = new Database(path, { readonly: true, fileMustExist: true });
      this.reader.pragma('busy_timeout = 10000');
      this.walCheckpointer = null;
      return;
    }
    const writer = open(path);
    this.writer = writer;
    // The projection reads back index pages of the grants it writes at random places (a user's
    // grants, a grant's dependants), so a cache above SQLite's default pays off at benchmark scale
    // while a larger one gained little more for its memory (docs/bench-history/design-choices.md). The cache only
    // grows as far as it is used.
    writer.pragma(`cache_size = -${WRITER_CACHE_KIB}`);
    writer.exec('CREATE TABLE IF NOT EXISTS rm_checkpoints (name TEXT PRIMARY KEY, position INTEGER NOT NULL) WITHOUT ROWID');
    // The domain stores' tables, made here, before any batch transaction could take their DDL in (and roll it back).
    writer.exec(SQLITE_TASKS_SCHEMA);
    writer.exec(SQLITE_GRANTS_SCHEMA);
    this.reader = open(path);
    // Checkpoints off the event loop (see WalCheckpointer); SQLite's automatic ones only as a fallback.
    this.walCheckpointer = WalCheckpointer.start(path, () => writer.pragma('wal_autocheckpoint = 1000'));
    if (this.walCheckpointer) writer.pragma('wal_autocheckpoint = 0');
  }

  /** True for a replica: reads only, DDL and writes are the writing process's. */
  get isReplica(): boolean {
    return this.writer === null;
  }

  /** The connection this view reads through: the committed state (in a replica, this turn's snapshot of it). */
  connection(): Database.Database {
    if (this.writer === null) this.openTurnSnapshot();
    return this.reader;
  }

  /**
   * The projections' view of this store: `transaction` runs on it, and its
   * collections read and write through the writing connection, so inside a
   * transaction they see its writes. Everything else uses the store itself.
   */
  writerView(): DocumentStore {
    this.writeConnection();
    return (this.view ??= new SqliteWriterView(this));
  }

  /** The domain stores on this store's connections: committed state, writes once no batch transaction is open. */
  stores(): ReadStores {
    return (this.readStores ??= { tasks: new SqliteTaskStore(this), grants: new SqliteGrantStore(this) });
  }

  writeConnection(): Database.Database {
    if (this.writer === null) throw new Error('a read-model replica does not write (the process that runs the projections does)');
    return this.writer;
  }

  /**
   * Replica: the checkpoint `name` as of the snapshot the reads of this turn see (the projection
   * runner commits its checkpoint with each batch, so this is exactly the position of what they read).
   */
  snapshotCheckpoint(name: string): number | null {
    this.openTurnSnapshot();
    if (!this.snapshotCheckpoints.has(name)) this.snapshotCheckpoints.set(name, this.readCheckpoint(name));
    return this.snapshotCheckpoints.get(name)!;
  }

  /** Replica: begins this turn's read transaction (SQLite takes the snapshot at its first read) and ends it after the turn. */
  private openTurnSnapshot(): void {
    if (this.snapshotOpen) return;
    this.reader.exec('BEGIN');
    this.snapshotOpen = true;
    setImmediate(() => this.closeTurnSnapshot());
  }

  private closeTurnSnapshot(): void {
    if (!this.reader.open) return;
    try {
      this.reader.exec('COMMIT');
    } catch {
      // A statement still running (none of the reads here iterates across turns): keep the snapshot one more turn.
      setImmediate(() => this.closeTurnSnapshot());
      return;
    }
    this.snapshotOpen = false;
    this.snapshotCheckpoints.clear();
  }

  /** On this view's connection, through the statement cache (a replica reads it once per turn). */
  private readCheckpoint(name: string): number | null {
    return checkpointRow(this, name);
  }

  /**
   * A prepared statement for `sql` on this view's connection (or the writer),
   * cached: preparing dominated the cost of small queries. Bounded, since
   * `$in` lists of varying length make many distinct statements.
   */
  statement(sql: string, write = false): Database.Statement {
    return this.prepared(write ? this.writeConnection() : this.connection(), sql);
  }

  /** `sql` prepared on `db`, through the statement cache of that connection. */
  prepared(db: Database.Database, sql: string): Database.Statement {
    const cache = db === this.writer ? this.writerStatements : this.readerStatements;
    let statement = cache.get(sql);
    if (!statement) {
      if (cache.size >= 1000) cache.clear();
      statement = db.prepare(sql);
      cache.set(sql, statement);
    }
    return statement;
  }

  collection<T extends { id: string }>(spec: CollectionSpec): Collection<T> {
    return collectionOf(this.collections, this, spec);
  }

  /**
   * Creates the table of `spec` and its declared indexes once per store (the
   * writer view shares them); a replica reads the tables the writing process made.
   */
  define(spec: CollectionSpec): void {
    if (this.isReplica || this.definedTables.has(spec.name)) return;
    defineTable(this.writeConnection(), spec);
    this.definedTables.add(spec.name);
  }

  /**
   * Refused: the work of a transaction reads and writes through the writer
   * view, and this view's writes would wait for the transaction to end.
   */
  transaction<R>(_work: () => Promise<R>): Promise<R> {
    return Promise.reject(new Error("SqliteDocumentStore: run transactions on writerView(), the projections' view of the store"));
  }

  /** Runs `work` in a transaction on the writing connection, once no other one is open (the writer view's `transaction`). */
  async runTransaction<R>(work: () => Promise<R>): Promise<R> {
    const writer = this.writeConnection();
    // Begun as any write from outside is: once no other transaction is open.
    const end = await this.writing(() => this.begin(writer));
    try {
      const result = await work();
      writer.exec('COMMIT');
      return result;
    } catch (error) {
      if (writer.inTransaction) writer.exec('ROLLBACK');
      throw error;
    } finally {
      end();
    }
  }

  /** BEGIN, and the transaction marked open in the same turn (see writing); returns what marks it ended. */
  private begin(writer: Database.Database): () => void {
    writer.exec('BEGIN IMMEDIATE');
    let ended!: () => void;
    this.transactionEnded = new Promise((resolve) => (ended = resolve));
    return () => {
      this.transactionEnded = null;
      ended();
    };
  }

  /**
   * Runs `write` on the writer connection once no transaction is open (at once
   * if none is). The connection is one, and a projection batch gives the event
   * loop back between its steps with its transaction open, so a write from
   * elsewhere (the task relay saving its checkpoint) would otherwise land in
   * that transaction: rolled back with a failed batch while its caller went on
   * as if it were saved. `write` runs right after the last check, with no await
   * between (a transaction could begin there). The writer view writes at once.
   */
  async writing<R>(write: () => R): Promise<R> {
    while (this.transactionEnded !== null) await this.transactionEnded;
    return write();
  }

  async loadCheckpoint(name: string): Promise<number | null> {
    if (this.isReplica) return this.snapshotCheckpoint(name);
    return this.readCheckpoint(name);
  }

  saveCheckpoint(name: string, expected: number | null, next: number): Promise<CheckpointSaveResult> {
    return saveCheckpointRow(this, name, expected, next);
  }

  async dropAll(): Promise<void> {
    await this.writing(() => emptyAllTables(this.writeConnection()));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.walCheckpointer?.stop();
    this.reader.close();
    this.writer?.close();
  }
}

/**
 * The projections' view of a SqliteDocumentStore (`writerView()`): the same
 * file, tables and writing connection, read through that connection too, so
 * that inside its transaction it sees what the transaction wrote. Its writes
 * never wait: the only transaction they could meet is its own.
 */
class SqliteWriterView implements DocumentStore {
  readonly atomicTransactions = true;
  readonly isReplica = false;
  private readonly collections = new Map<string, SqliteCollection<{ id: string }>>();
  private readStores: ReadStores | null = null;

  constructor(private readonly store: SqliteDocumentStore) {}

  writerView(): DocumentStore {
    return this;
  }

  /** The domain stores on the writing connection: inside the batch transaction while one is open. */
  stores(): ReadStores {
    return (this.readStores ??= { tasks: new SqliteTaskStore(this), grants: new SqliteGrantStore(this) });
  }

  statement(sql: string): Database.Statement {
    return this.store.prepared(this.store.writeConnection(), sql);
  }

  async writing<R>(write: () => R): Promise<R> {
    return write();
  }

  define(spec: CollectionSpec): void {
    this.store.define(spec);
  }

  collection<T extends { id: string }>(spec: CollectionSpec): Collection<T> {
    return collectionOf(this.collections, this, spec);
  }

  transaction<R>(work: () => Promise<R>): Promise<R> {
    return this.store.runTransaction(work);
  }

  async loadCheckpoint(name: string): Promise<number | null> {
    return checkpointRow(this, name);
  }

  saveCheckpoint(name: string, expected: number | null, next: number): Promise<CheckpointSaveResult> {
    return saveCheckpointRow(this, name, expected, next);
  }

  async dropAll(): Promise<void> {
    emptyAllTables(this.store.writeConnection());
  }

  /** Closes the store it views (one file, one owner: closing either closes both). */
  close(): Promise<void> {
    return this.store.close();
  }
}

/** What a collection runs its statements through: the store, or its writer view. */
interface StatementSource {
  readonly isReplica: boolean;
  statement(sql: string, write?: boolean): Database.Statement;
  writing<R>(write: () => R): Promise<R>;
  define(spec: CollectionSpec): void;
  loadCheckpoint(name: string): Promise<number | null>;
}

/** The collection of `spec` on `source`, made once per source. */
function collectionOf<T extends { id: string }>(
  made: Map<string, SqliteCollection<{ id: string }>>,
  source: StatementSource,
  spec: CollectionSpec,
): Collection<T> {
  let existing = made.get(spec.name);
  if (!existing) {
    existing = new SqliteCollection(source, spec);
    made.set(spec.name, existing);
  }
  return existing as unknown as Collection<T>;
}

/** The checkpoint `name` read on `source`'s connection (null when never saved). */
function checkpointRow(source: StatementSource, name: string): number | null {
  const row = source.statement('SELECT position FROM rm_checkpoints WHERE name = ?').get(name) as { position: number } | undefined;
  return row?.position ?? null;
}

/** Compare-and-set of a checkpoint row, written when `source` may write (see `writing`). */
async function saveCheckpointRow(
  source: StatementSource,
  name: string,
  expected: number | null,
  next: number,
): Promise<CheckpointSaveResult> {
  const info = await source.writing(() =>
    expected === null
      ? source.statement('INSERT OR IGNORE INTO rm_checkpoints (name, position) VALUES (?, ?)', true).run(name, next)
      : source.statement('UPDATE rm_checkpoints SET position = ? WHERE name = ? AND position = ?', true).run(next, name, expected),
  );
  if (info.changes === 1) return { ok: true };
  return { ok: false, reason: 'MISMATCH', current: await source.loadCheckpoint(name) };
}

/** Empties every read-model table and the checkpoints. */
function emptyAllTables(db: Database.Database): void {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rm\\_%' ESCAPE '\\'").all() as Array<{
    name: string;
  }>;
  for (const { name } of tables) db.exec(name === 'rm_checkpoints' ? 'DELETE FROM rm_checkpoints' : `DELETE FROM ${name}`);
}

/** Page cache of the writing connection, in KiB. */
const WRITER_CACHE_KIB = 32 * 1024;

function open(path: string): Database.Database {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  // Read models can always be rebuilt from the log, so they need not fsync each commit.
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 10000');
  // When the WAL starts over, cut the file back (it otherwise stays at its largest size).
  db.pragma('journal_size_limit = 67108864');
  return db;
}

/** The column of a declared field in a collection's table (quoted). */
export const fieldColumn = (field: string) => `"f_${field}"`;

/**
 * A find's limit, written into its SQL rather than bound: bound as a parameter, a LIMIT made
 * SQLite 3.53 take much longer over an indexed lookup of a few rows (a grant's holders on one
 * instance, docs/bench-history/design-choices.md). Few distinct limits are asked,
 * so the statement cache keeps them all.
 */
function limitLiteral(limit: number): string {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new Error(`find: limit must be a non-negative integer, not ${limit}`);
  return String(limit);
}

/**
 * Creates the table of a collection and its declared indexes, and drops
 * indexes this adapter made that are no longer declared.
 */
function defineTable(db: Database.Database, spec: CollectionSpec): void {
  const table = `rm_${spec.name}`;
  // Field columns have no declared type, so no affinity: a value is stored and compared as it is. (`ANY` in a table that
  // is not STRICT means NUMERIC affinity: the text '01' was stored as the integer 1, so a lookup of key '01', '1.0' or
  // '0001' found key '1', and a compact collection read the user '007' back as the number 7. A file made before keeps
  // its columns; delete the read-model file to have the projection rebuild it from the log.)
  const columns = spec.fields.map(fieldColumn).join(', ');
  const clustered = spec.clustered ? ' WITHOUT ROWID' : '';
  db.exec(`CREATE TABLE IF NOT EXISTS ${table} (id TEXT PRIMARY KEY, ${columns}${columns ? ', ' : ''}doc TEXT NOT NULL)${clustered}`);
  // A field declared since the table was made gets its column (null in the rows there: a layout
  // that needs it filled has the read models rebuilt, shared/read-models/layout.ts).
  const present = new Set((db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>).map((c) => `"${c.name}"`));
  for (const column of spec.fields.map(fieldColumn)) if (!present.has(column)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${column}`);
  const declared = new Set<string>();
  spec.indexes.forEach((index) => {
    const name = `${table}__${index.join('_')}`;
    declared.add(name);
    db.exec(`CREATE INDEX IF NOT EXISTS ${name} ON ${table} (${index.map(fieldColumn).join(', ')})`);
  });
  // The declared indexes are the truth: one this adapter made that is no longer declared only costs every write.
  const existing = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?").all(table) as Array<{
    name: string;
  }>;
  for (const { name } of existing) {
    if (name.startsWith(`${table}__`) && !declared.has(name)) db.exec(`DROP INDEX IF EXISTS "${name}"`);
  }
}

class SqliteCollection<T extends { id: string }> implements Collection<T> {
  private readonly table: string;
  private readonly fields: Set<string>;
  private readonly upsertSql: string;
  private readonly insertMissingSql: string;
  private readonly compact: boolean;
  /** `id, <declared field columns>, doc`: what a whole document of a compact collection is read from. */
  private readonly wholeColumns: string;
  /** A compact document's first keys, id and the declared fields, as JSON (see assemble). */
  private readonly columnsTemplate: string;

  constructor(
    private readonly store: StatementSource,
    private readonly spec: CollectionSpec,
  ) {
    if (!/^[a-z_]+$/.test(spec.name)) throw new Error(`invalid collection name ${spec.name}`);
    this.table = `rm_${spec.name}`;
    this.fields = new Set(spec.fields);
    this.compact = spec.compact === true;
    this.wholeColumns = ['id', ...spec.fields.map(fieldColumn), 'doc'].join(', ');
    this.columnsTemplate = JSON.stringify(Object.fromEntries(['id', ...spec.fields].map((field) => [field, null])));
    const names = ['id', ...spec.fields.map(fieldColumn), 'doc'];
    const updates = [...spec.fields.map(fieldColumn), 'doc'].map((c) => `${c} = excluded.${c}`).join(', ');
    this.insertMissingSql = `INSERT INTO ${this.table} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')}) ON CONFLICT (id) DO NOTHING`;
    this.upsertSql = `INSERT INTO ${this.table} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')}) ON CONFLICT (id) DO UPDATE SET ${updates}`;
    // A replica reads the tables the writing process made (it starts once that one is ready).
    store.define(spec);
  }

  async get(id: string): Promise<T | null> {
    if (this.compact) {
      const row = this.store.statement(`SELECT ${this.wholeColumns} FROM ${this.table} WHERE id = ?`).raw(true).get(id) as
        unknown[] | undefined;
      return row ? this.assemble(row) : null;
    }
    const row = this.store.statement(`SELECT doc FROM ${this.table} WHERE id = ?`).get(id) as { doc: string } | undefined;
    return row ? (JSON.parse(row.doc) as T) : null;
  }

  async findOne(filter: Filter): Promise<T | null> {
    return (await this.find(filter, { limit: 1 }))[0] ?? null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    const { where, params } = this.where(filter, options.byId === true);
    const fields = options.fields?.map((f) => this.columnFor(f));
    let sql = `SELECT ${fields ? ['id', ...fields].join(', ') : this.compact ? this.wholeColumns : 'doc'} FROM ${this.table}${where}`;
    if (options.sortBy) {
      const direction = options.descending ? ' DESC' : '';
      const sortColumn = this.columnFor(options.sortBy);
      // `id` is the tiebreak of any other order (repeated, SQLite sorts again what the id index gives in order).
      sql += sortColumn === 'id' ? ` ORDER BY id${direction}` : ` ORDER BY ${sortColumn}${direction}, id${direction}`;
    }
    if (options.limit !== undefined) sql += ` LIMIT ${limitLiteral(options.limit)}`;
    if (options.skip) {
      sql += `${options.limit === undefined ? ' LIMIT -1' : ''} OFFSET ?`;
      params.push(options.skip);
    }
    if (options.fields)
      return this.store
        .statement(sql)
        .raw(true)
        .all(...params)
        .map((row) => this.partial(options.fields!, row as unknown[]));
    if (this.compact)
      return this.store
        .statement(sql)
        .raw(true)
        .all(...params)
        .map((row) => this.assemble(row as unknown[]));
    const rows = this.store.statement(sql).all(...params) as Array<{ doc: string }>;
    return rows.map((r) => JSON.parse(r.doc) as T);
  }

  /**
   * A row of `SELECT id, <declared fields>, doc` of a compact collection as the
   * whole document. Rows written before the collection was compact hold every
   * field in `doc` too; the values are the same, and the key order as well.
   */
  private assemble(row: unknown[]): T {
    // Its first keys come from parsing them all at once, then the values are set in place: keys added
    // one by one under computed names made V8 turn the object into a dictionary past a dozen, which
    // every later copy, serialisation and read of it paid for.
    const doc = JSON.parse(this.columnsTemplate) as Record<string, unknown>;
    doc.id = row[0];
    const fields = this.spec.fields;
    for (let i = 0; i < fields.length; i++) doc[fields[i]!] = row[i + 1];
    return Object.assign(doc, JSON.parse(row[row.length - 1] as string)) as T;
  }

  /** A row of `SELECT id, <fields>` as a partial document. */
  private partial(fields: string[], row: unknown[]): T {
    const doc: Record<string, unknown> = { id: row[0] };
    fields.forEach((field, i) => (doc[field] = row[i + 1] ?? null));
    return doc as T;
  }

  async count(filter: Filter): Promise<number> {
    const { where, params } = this.where(filter);
    const row = this.store.statement(`SELECT COUNT(*) AS n FROM ${this.table}${where}`).get(...params) as { n: number };
    return row.n;
  }

  async put(doc: T): Promise<void> {
    await this.store.writing(() => this.store.statement(this.upsertSql, true).run(...this.rowValues(doc)));
  }

  async putMany(docs: T[]): Promise<void> {
    await this.store.writing(() => {
      const statement = this.store.statement(this.upsertSql, true);
      for (const doc of docs) statement.run(...this.rowValues(doc));
    });
  }

  async insertMissing(docs: T[]): Promise<T[]> {
    return this.store.writing(() => {
      const statement = this.store.statement(this.insertMissingSql, true);
      return docs.filter((doc) => statement.run(...this.rowValues(doc)).changes === 1);
    });
  }

  async delete(id: string): Promise<void> {
    await this.store.writing(() => this.store.statement(`DELETE FROM ${this.table} WHERE id = ?`, true).run(id));
  }

  async deleteMany(filter: Filter): Promise<number> {
    const { where, params } = this.where(filter);
    return this.store.writing(() => this.store.statement(`DELETE FROM ${this.table}${where}`, true).run(...params).changes);
  }

  private rowValues(doc: T): unknown[] {
    const record = doc as unknown as Record<string, unknown>;
    return [doc.id, ...this.spec.fields.map((f) => toSqlValue(record[f])), JSON.stringify(this.compact ? this.rest(record) : doc)];
  }

  /** What a compact collection stores as JSON: the document without its id and declared fields (they are columns). */
  private rest(record: Record<string, unknown>): Record<string, unknown> {
    const rest: Record<string, unknown> = {};
    for (const key in record) if (key !== 'id' && !this.fields.has(key)) rest[key] = record[key];
    return rest;
  }

  private columnFor(field: string): string {
    if (field === 'id') return 'id';
    if (!this.fields.has(field)) throw new Error(`field ${field} is not declared on collection ${this.spec.name}`);
    return fieldColumn(field);
  }

  /** `byId`: only `id` may be read through an index (a unary `+` keeps SQLite from using one on any other column). */
  private where(filter: Filter, byId = false): { where: string; params: unknown[] } {
    const clauses: string[] = [];
    const params: unknown[] = [];
    for (const [field, condition] of Object.entries(filter)) {
      const col = byId && field !== 'id' ? `+${this.columnFor(field)}` : this.columnFor(field);
      if (condition !== null && typeof condition === 'object' && !('$in' in condition)) {
        for (const [operator, sql] of RANGE_OPERATORS) {
          const bound = condition[operator];
          if (bound === undefined) continue;
          clauses.push(`${col} ${sql} ?`);
          params.push(toSqlValue(bound));
        }
      } else if (condition !== null && typeof condition === 'object') {
        if (condition.$in.length === 0) {
          clauses.push('0');
          continue;
        }
        clauses.push(`${col} IN (${condition.$in.map(() => '?').join(', ')})`);
        params.push(...condition.$in.map(toSqlValue));
      } else if (condition === null) {
        clauses.push(`${col} IS NULL`);
      } else {
        clauses.push(`${col} = ?`);
        params.push(toSqlValue(condition));
      }
    }
    return { where: clauses.length ? ` WHERE ${clauses.join(' AND ')}` : '', params };
  }
}

const RANGE_OPERATORS = [
  ['$gt', '>'],
  ['$gte', '>='],
  ['$lt', '<'],
  ['$lte', '<='],
] as const;

function toSqlValue(value: unknown): FieldValue | number {
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string' || typeof value === 'number') return value;
  return JSON.stringify(value);
}
