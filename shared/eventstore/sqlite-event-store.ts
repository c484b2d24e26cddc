import Database from 'better-sqlite3';
import { EventEmitter } from 'node:events';
import type { NewEvent, RecordedEvent } from '../events/envelope';
import { streamCategory } from '../events/envelope';
import { StreamVersionConflictError } from '../errors';
import type { AppendResult, EventStore, ExpectedVersion, SubscribeOptions, Subscription } from './port';
import { runCatchUpSubscription } from './catch-up-subscription';

interface PendingAppend {
  streamId: string;
  events: NewEvent[];
  expected: ExpectedVersion;
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

interface EventRow {
  position: number;
  stream_id: string;
  stream_version: number;
  type: string;
  data: string;
  metadata: string;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  position       INTEGER PRIMARY KEY AUTOINCREMENT,
  stream_id      TEXT    NOT NULL,
  category       TEXT    NOT NULL,
  stream_version INTEGER NOT NULL,
  type           TEXT    NOT NULL,
  data           TEXT    NOT NULL,
  metadata       TEXT    NOT NULL,
  UNIQUE (stream_id, stream_version)
);
CREATE INDEX IF NOT EXISTS events_by_category ON events (category, position);
CREATE TABLE IF NOT EXISTS streams (
  stream_id TEXT PRIMARY KEY,
  version   INTEGER NOT NULL
) WITHOUT ROWID;
`;

/** Columns of one event row in an INSERT, and rows per INSERT (64 × 6 = 384 parameters, far below SQLite's limit). */
const COLUMNS = 6;
const ROWS_PER_INSERT = 64;

export interface SqliteEventStoreOptions {
  /** File path, or ':memory:' for tests. */
  path: string;
  /** How often a subscriber looks for appends made by other processes sharing the file. */
  pollIntervalMs?: number;
}

/**
 * Event store on one SQLite file in WAL mode with `synchronous=FULL`, so an
 * append is on disk (fsynced) before its promise resolves.
 *
 * Group commit: appends issued in the same tick are written in one transaction
 * (one fsync), each checked against its own expected version; a conflicting
 * append is rejected alone. This is what lets many concurrent writers share one
 * durable log without paying one fsync each.
 */
export class SqliteEventStore implements EventStore {
  private readonly db: Database.Database;
  private readonly appended = new EventEmitter();
  private pending: PendingAppend[] = [];
  private flushScheduled = false;
  private closed = false;
  private readonly pollIntervalMs: number;
  private readonly statements;
  /** INSERT statements by row count (see insertStatement). */
  private readonly inserts = new Map<number, Database.Statement<unknown[]>>();

  constructor(options: SqliteEventStoreOptions) {
    this.db = new Database(options.path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 10000');
    this.db.exec(SCHEMA);
    this.pollIntervalMs = options.pollIntervalMs ?? 100;
    this.appended.setMaxListeners(0);
    this.statements = {
      version: this.db.prepare<[string], { version: number }>('SELECT version FROM streams WHERE stream_id = ?'),
      setVersion: this.db.prepare(
        'INSERT INTO streams (stream_id, version) VALUES (?, ?) ON CONFLICT (stream_id) DO UPDATE SET version = excluded.version',
      ),
      readStream: this.db.prepare<[string, number, number], EventRow>(
        'SELECT * FROM events WHERE stream_id = ? AND stream_version >= ? ORDER BY stream_version LIMIT ?',
      ),
      readAll: this.db.prepare<[number, number], EventRow>('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT ?'),
      head: this.db.prepare<[], { head: number | null }>('SELECT MAX(position) AS head FROM events'),
    };
  }

  append(streamId: string, events: NewEvent[], expected: ExpectedVersion): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    return new Promise((resolve, reject) => {
      this.pending.push({ streamId, events, expected, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.flushScheduled = false;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    const outcomes: Array<{ ok: true; result: AppendResult } | { ok: false; error: unknown }> = [];
    try {
      this.db.transaction(() => {
        for (const append of batch) outcomes.push(this.appendInTransaction(append));
      }).immediate();
    } catch (error) {
      for (const append of batch) append.reject(error);
      return;
    }
    batch.forEach((append, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) append.resolve(outcome.result);
      else append.reject(outcome.error);
    });
    this.appended.emit('appended');
  }

  private appendInTransaction(append: PendingAppend): { ok: true; result: AppendResult } | { ok: false; error: unknown } {
    const current = this.statements.version.get(append.streamId)?.version ?? -1;
    if (!matchesExpected(current, append.expected)) {
      const expected = append.expected === 'no_stream' ? -1 : (append.expected as number);
      return { ok: false, error: new StreamVersionConflictError(append.streamId, expected, current) };
    }
    const { category } = streamCategory(append.streamId);
    let version = current;
    let position = 0;
    const values: unknown[] = [];
    // A command's events share one metadata object: serialise it once, not once per event.
    let metadata: NewEvent['metadata'] | undefined;
    let metadataJson = '';
    const insert = (rows: number) => {
      position = Number(this.insertStatement(rows).run(values).lastInsertRowid);
      values.length = 0;
    };
    for (const event of append.events) {
      version += 1;
      if (event.metadata !== metadata) {
        metadata = event.metadata;
        metadataJson = JSON.stringify(metadata);
      }
      values.push(append.streamId, category, version, event.type, JSON.stringify(event.data), metadataJson);
      if (values.length === ROWS_PER_INSERT * COLUMNS) insert(ROWS_PER_INSERT);
    }
    if (values.length > 0) insert(values.length / COLUMNS);
    if (append.events.length > 0) this.statements.setVersion.run(append.streamId, version);
    return { ok: true, result: { streamVersion: version, position } };
  }

  /**
   * One INSERT of `rows` rows (prepared once per row count): a bulk's thousands
   * of events cost a statement call per 64 rather than per event, which halves
   * the append's CPU time. lastInsertRowid is the last row's position.
   */
  private insertStatement(rows: number): Database.Statement<unknown[]> {
    let statement = this.inserts.get(rows);
    if (!statement) {
      const row = `(${Array.from({ length: COLUMNS }, () => '?').join(', ')})`;
      statement = this.db.prepare<unknown[]>(
        `INSERT INTO events (stream_id, category, stream_version, type, data, metadata) VALUES ${Array.from({ length: rows }, () => row).join(', ')}`,
      );
      this.inserts.set(rows, statement);
    }
    return statement;
  }

  async readStream(streamId: string, fromVersion = 0, limit = Number.MAX_SAFE_INTEGER): Promise<RecordedEvent[]> {
    return this.statements.readStream.all(streamId, fromVersion, limit).map(toRecorded);
  }

  async streamVersion(streamId: string): Promise<number> {
    return this.statements.version.get(streamId)?.version ?? -1;
  }

  async readAll(fromPosition: number, limit: number): Promise<RecordedEvent[]> {
    return this.statements.readAll.all(fromPosition, limit).map(toRecorded);
  }

  async headPosition(): Promise<number> {
    return this.statements.head.get()?.head ?? 0;
  }

  subscribe(options: SubscribeOptions, handler: (events: RecordedEvent[]) => Promise<void>): Subscription {
    const categories = options.categories ? new Set(options.categories) : null;
    return runCatchUpSubscription({
      fromPosition: options.fromPosition,
      readBatch: async (after) => {
        const limit = options.batchSize ?? 500;
        if (!categories) {
          const events = await this.readAll(after, limit);
          return { events, lastPosition: events.at(-1)?.position ?? after };
        }
        // Filter in SQL (category index), so a subscriber to a few streams does not parse the whole log.
        // The head is read first: events appended after it are left for the next batch.
        const head = this.statements.head.get()?.head ?? 0;
        const events = this.categoryRead(categories.size).all(after, head, ...categories, limit).map(toRecorded);
        return { events, lastPosition: events.length === limit ? events.at(-1)!.position : Math.max(after, head) };
      },
      waitForMore: (signal) => this.waitForAppend(signal),
      handler,
      onError: options.onError,
    });
  }

  private readonly categoryReads = new Map<number, Database.Statement<unknown[], EventRow>>();
  private categoryRead(count: number): Database.Statement<unknown[], EventRow> {
    let statement = this.categoryReads.get(count);
    if (!statement) {
      const list = Array.from({ length: count }, () => '?').join(', ');
      statement = this.db.prepare<unknown[], EventRow>(`SELECT * FROM events WHERE position > ? AND position <= ? AND category IN (${list}) ORDER BY position LIMIT ?`);
      this.categoryReads.set(count, statement);
    }
    return statement;
  }

  /** Resolves on the next local append, or after the poll interval (appends by other processes). */
  private waitForAppend(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.appended.off('appended', done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, this.pollIntervalMs);
      this.appended.on('appended', done);
      signal.addEventListener('abort', done);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.pending.length > 0) this.flush();
    this.appended.emit('appended');
    this.db.close();
  }
}

function matchesExpected(current: number, expected: ExpectedVersion): boolean {
  if (expected === 'any') return true;
  if (expected === 'no_stream') return current === -1;
  return current === expected;
}

function toRecorded(row: EventRow): RecordedEvent {
  return {
    position: row.position,
    streamId: row.stream_id,
    streamVersion: row.stream_version,
    type: row.type,
    data: JSON.parse(row.data) as unknown,
    metadata: JSON.parse(row.metadata) as RecordedEvent['metadata'],
  };
}
