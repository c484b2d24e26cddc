import type { TransactionSql } from 'postgres';
import { openPostgresPool, type PostgresPool } from '../eventstore/postgres-connection';
import { translateStoreError } from '../eventstore/postgres-errors';
import type { CheckpointSaveResult, Collection, CollectionSpec, DocumentStore } from './port';
import { PostgresCollection, type StatementRunner } from './postgres-collection';
import { checkpointsTable, defineSchema, defineTable, defineUnderLock, emptyAllTables, tableName } from './postgres-tables';
import type { ReadStores } from '../read-stores/port';
import { PostgresTaskStore, postgresTasksSchema, postgresTasksTableExists } from '../read-stores/tasks/postgres';
import { PostgresGrantStore, postgresGrantsSchema, postgresGrantsTablesExist } from '../read-stores/grants/postgres';
import { TableGrowth } from './postgres-statistics';
import { WriteBuffer, type HeldWrites } from './postgres-write-buffer';

export interface PostgresDocumentStoreOptions {
  /** POSTGRES_URL: a libpq connection string (a URI or keywords; several hosts and target_session_attrs taken). */
  url: string;
  /** The schema the read models' tables live in (POSTGRES_READ_MODELS_SCHEMA); made when missing. */
  schema: string;
  /** Connections at most (reads, and writes outside the projections' transaction). Default 10. */
  poolSize?: number;
  /** Seconds to wait for a connection before a call fails. Default 5. */
  connectTimeoutSeconds?: number;
}

/** A connection a statement runs on: the pool, or the open transaction's. */
type Runs = PostgresPool | TransactionSql<{ int8: number }>;

/**
 * Read models and checkpoints on PostgreSQL: a table per collection in a schema of their own
 * (postgres-tables.ts), queried through the declared fields' btree indexes (postgres-collection.ts).
 *
 * Transactions are atomic. The projections' view (`writerView()`) runs a transaction on one
 * connection reserved from the pool, and while it is open every statement of that view goes to
 * it, so its reads see its writes; the store itself reads through the pool, which sees committed
 * state only (read committed). Inside the transaction, the view's writes are held and sent
 * together when a read of their table, or the commit, needs them (postgres-write-buffer.ts): a
 * projection batch would otherwise wait for a round trip per document. A write through the store waits until the open transaction has
 * ended, as on SQLite: a projection batch gives the event loop back with its transaction open,
 * and a write from elsewhere (the task relay's checkpoint) is then neither taken into the batch
 * nor left waiting on a row lock the batch holds. Checkpoints are a table, saved by
 * compare-and-set in one statement.
 */
export class PostgresDocumentStore implements DocumentStore, StatementRunner {
  readonly atomicTransactions = true;
  /** A page without a sort comes in id order (postgres-collection.ts). */
  readonly unsortedPagesById = true;
  readonly schema: string;
  private readonly collections = new Map<string, Collection<{ id: string }>>();
  /** Tables made (or being made) by this store or its writer view: once each. */
  private readonly tables = new Map<string, Promise<void>>();
  /** Settles when the open transaction ends; null while none is open. */
  private transactionEnded: Promise<void> | null = null;
  private view: PostgresWriterView | null = null;
  private readStores: ReadStores | null = null;
  private closed = false;
  /** Rows written per table, to have the planner's statistics follow a rebuild (postgres-statistics.ts). */
  private readonly growth = new TableGrowth();

  private constructor(
    readonly sql: PostgresPool,
    schema: string,
  ) {
    this.schema = schema;
  }

  /** Connects and makes the schema and the checkpoints' table when missing. */
  static async connect(options: PostgresDocumentStoreOptions): Promise<PostgresDocumentStore> {
    const sql = openPostgresPool(options.url, {
      max: options.poolSize ?? 10,
      connectTimeoutSeconds: options.connectTimeoutSeconds,
      applicationName: 'rebac-read-models',
      connection: { default_transaction_isolation: 'read committed' },
    });
    try {
      await defineSchema(sql, options.schema);
      // The domain stores' tables (shared/read-stores/): made when missing, under the DDL lock.
      if (!(await postgresTasksTableExists(sql, options.schema))) await defineUnderLock(sql, postgresTasksSchema(options.schema));
      if (!(await postgresGrantsTablesExist(sql, options.schema))) await defineUnderLock(sql, postgresGrantsSchema(options.schema));
    } catch (error) {
      await sql.end({ timeout: 0 });
      throw translateStoreError(error, STORE);
    }
    return new PostgresDocumentStore(sql, options.schema);
  }

  collection<T extends { id: string }>(spec: CollectionSpec): Collection<T> {
    return collectionOf(this.collections, this, spec);
  }

  /** The table of `spec`, made once per store on first use (the writer view shares it). */
  defined(spec: CollectionSpec): Promise<void> {
    let made = this.tables.get(spec.name);
    if (!made) {
      made = defineTable(this.sql, this.schema, spec).catch((error: unknown) => {
        this.tables.delete(spec.name);
        throw translateStoreError(error, STORE);
      });
      this.tables.set(spec.name, made);
    }
    return made;
  }

  async run(sql: string, parameters: unknown[], write = false): Promise<unknown[][]> {
    if (write) return this.writing(() => runOn(this.sql, sql, parameters));
    return runOn(this.sql, sql, parameters);
  }

  runCount(sql: string, parameters: unknown[]): Promise<number> {
    return this.writing(() => countOn(this.sql, sql, parameters));
  }

  /** The store's writes go at once (they are not in a transaction of its own). */
  held(): HeldWrites | null {
    return null;
  }

  async flush(): Promise<void> {}

  wrote(table: string, rows: number): void {
    this.growth.wrote(table, rows);
  }

  /**
   * Analyses the tables that grew enough (postgres-statistics.ts), in the background: ANALYZE
   * blocks no reads nor writes, and a failure only leaves the statistics to autovacuum.
   */
  private analyseGrown(): void {
    for (const table of this.growth.due()) {
      void this.sql.unsafe(`ANALYZE ${tableName(this.schema, table)}`).catch(() => undefined);
    }
  }

  /** Runs `write` once no transaction is open (at once if none is). */
  private async writing<R>(write: () => Promise<R>): Promise<R> {
    while (this.transactionEnded !== null) await this.transactionEnded;
    return write();
  }

  writerView(): DocumentStore {
    return (this.view ??= new PostgresWriterView(this));
  }

  /** The domain stores on the pool: committed state, writes once no batch transaction is open. */
  stores(): ReadStores {
    return (this.readStores ??= { tasks: new PostgresTaskStore(this), grants: new PostgresGrantStore(this) });
  }

  /**
   * Refused, as on SQLite: the work of a transaction reads and writes through the writer view,
   * and this view's writes would wait for the transaction to end.
   */
  transaction<R>(_work: () => Promise<R>): Promise<R> {
    return Promise.reject(new Error("PostgresDocumentStore: run transactions on writerView(), the projections' view of the store"));
  }

  /**
   * Runs `work` in a transaction on a reserved connection, once no other one is open (the writer
   * view's `transaction`); `attach` hands the view that connection for the transaction's length.
   */
  async runTransaction<R>(work: () => Promise<R>, attach: (tx: Runs | null) => void): Promise<R> {
    let ended!: () => void;
    // Marked open in the turn the last check found none (see writing): no write slips in between.
    await this.writing(async () => {
      this.transactionEnded = new Promise((resolve) => (ended = resolve));
    });
    try {
      const result = (await this.sql.begin(async (tx) => {
        attach(tx);
        try {
          return await work();
        } finally {
          attach(null);
        }
      })) as R;
      this.analyseGrown();
      return result;
    } finally {
      this.transactionEnded = null;
      ended();
    }
  }

  loadCheckpoint(name: string): Promise<number | null> {
    return checkpointOn(this.sql, this.schema, name);
  }

  saveCheckpoint(name: string, expected: number | null, next: number): Promise<CheckpointSaveResult> {
    return this.writing(() => saveCheckpointOn(this.sql, this.schema, name, expected, next));
  }

  async dropAll(): Promise<void> {
    await this.writing(() => emptyAllTables(this.sql, this.schema)).catch((error: unknown) => {
      throw translateStoreError(error, STORE);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.sql.end({ timeout: 5 });
  }
}

/**
 * The projections' view of a PostgresDocumentStore (`writerView()`): the same tables, with its
 * statements on the transaction's connection while one is open (so inside it they see its
 * writes), on the pool otherwise. Its writes never wait: the only transaction they could meet is its own.
 */
class PostgresWriterView implements DocumentStore, StatementRunner {
  readonly atomicTransactions = true;
  readonly unsortedPagesById = true;
  private readonly collections = new Map<string, Collection<{ id: string }>>();
  /** The open transaction's connection, or null. */
  private tx: Runs | null = null;
  /** The open transaction's writes not sent yet (postgres-write-buffer.ts), or null. */
  private buffer: WriteBuffer | null = null;
  private readStores: ReadStores | null = null;

  constructor(private readonly store: PostgresDocumentStore) {}

  /** The domain stores on the batch transaction's connection while one is open (their statements go at once, not held). */
  stores(): ReadStores {
    return (this.readStores ??= { tasks: new PostgresTaskStore(this), grants: new PostgresGrantStore(this) });
  }

  get schema(): string {
    return this.store.schema;
  }

  private get connection(): Runs {
    return this.tx ?? this.store.sql;
  }

  writerView(): DocumentStore {
    return this;
  }

  collection<T extends { id: string }>(spec: CollectionSpec): Collection<T> {
    return collectionOf(this.collections, this, spec);
  }

  defined(spec: CollectionSpec): Promise<void> {
    return this.store.defined(spec);
  }

  run(sql: string, parameters: unknown[]): Promise<unknown[][]> {
    return runOn(this.connection, sql, parameters);
  }

  runCount(sql: string, parameters: unknown[]): Promise<number> {
    return countOn(this.connection, sql, parameters);
  }

  held(table: string, send: (held: HeldWrites) => Promise<void>): HeldWrites | null {
    return this.buffer?.heldFor(table, send) ?? null;
  }

  async flush(table: string): Promise<void> {
    await this.buffer?.flush(table);
  }

  wrote(table: string, rows: number): void {
    this.store.wrote(table, rows);
  }

  /** Its writes are held while the transaction runs, and sent before it commits (postgres-write-buffer.ts). */
  transaction<R>(work: () => Promise<R>): Promise<R> {
    if (this.tx) return Promise.reject(new Error('PostgresDocumentStore: a transaction is already open on the writer view'));
    return this.store.runTransaction(
      async () => {
        const result = await work();
        await this.buffer!.flushAll();
        return result;
      },
      (tx) => {
        this.tx = tx;
        this.buffer = tx ? new WriteBuffer() : null;
      },
    );
  }

  loadCheckpoint(name: string): Promise<number | null> {
    return checkpointOn(this.connection, this.schema, name);
  }

  saveCheckpoint(name: string, expected: number | null, next: number): Promise<CheckpointSaveResult> {
    return saveCheckpointOn(this.connection, this.schema, name, expected, next);
  }

  async dropAll(): Promise<void> {
    // On the transaction's connection when one is open: emptied with the batch, or not at all; what it held goes too.
    if (this.buffer) this.buffer = new WriteBuffer();
    await emptyAllTables(this.connection as PostgresPool, this.schema);
  }

  /** Closes the store it views (one pool, one owner: closing either closes both). */
  close(): Promise<void> {
    return this.store.close();
  }
}

/** The collection of `spec` on `runner`, made once per runner. */
function collectionOf<T extends { id: string }>(
  made: Map<string, Collection<{ id: string }>>,
  runner: StatementRunner,
  spec: CollectionSpec,
): Collection<T> {
  let existing = made.get(spec.name);
  if (!existing) {
    existing = new PostgresCollection(runner, spec);
    made.set(spec.name, existing);
  }
  return existing as unknown as Collection<T>;
}

/** What a failure that is passing (the server down, restarting, read-only) says cannot be reached: answered 503. */
const STORE = 'The read models on PostgreSQL';

/** A statement's rows as arrays, prepared once per connection (its text is the same at every call). */
async function runOn(connection: Runs, sql: string, parameters: unknown[]): Promise<unknown[][]> {
  try {
    return await connection.unsafe(sql, parameters as never[], { prepare: true }).values();
  } catch (error) {
    throw translateStoreError(error, STORE);
  }
}

async function countOn(connection: Runs, sql: string, parameters: unknown[]): Promise<number> {
  try {
    return (await connection.unsafe(sql, parameters as never[], { prepare: true })).count;
  } catch (error) {
    throw translateStoreError(error, STORE);
  }
}

async function checkpointOn(connection: Runs, schema: string, name: string): Promise<number | null> {
  const [row] = await runOn(connection, `SELECT position FROM ${checkpointsTable(schema)} WHERE name = $1`, [name]);
  return row ? (row[0] as number) : null;
}

/** Compare-and-set in one statement: inserted when none was saved, else updated only where it is still `expected`. */
async function saveCheckpointOn(
  connection: Runs,
  schema: string,
  name: string,
  expected: number | null,
  next: number,
): Promise<CheckpointSaveResult> {
  const table = checkpointsTable(schema);
  const saved =
    expected === null
      ? await runOn(connection, `INSERT INTO ${table} (name, position) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING 1`, [
          name,
          next,
        ])
      : await runOn(connection, `UPDATE ${table} SET position = $2 WHERE name = $1 AND position = $3 RETURNING 1`, [name, next, expected]);
  if (saved.length === 1) return { ok: true };
  return { ok: false, reason: 'MISMATCH', current: await checkpointOn(connection, schema, name) };
}
