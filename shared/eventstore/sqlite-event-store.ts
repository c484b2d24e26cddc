import Database from 'better-sqlite3';
import type { Worker } from 'node:worker_threads';
import type { NewEvent, RecordedEvent } from '../events/envelope';
import { streamCategory } from '../events/envelope';
import { StreamVersionConflictError, UnavailableError } from '../errors';
import type { AppendObserver, AppendResult, EventStore, ExpectedVersion, StoredEventText, SubscribeOptions, Subscription } from './port';
import { AppendWakeups, subscribeByPolling } from './catch-up-subscription';
import { eventJson, sizeOver } from './event-json';
import { activeSpanContext, endSpan, startSpanFor, type Span, type SpanContext } from '../tracing/spans';
import { startWorkerModule } from '../threads/start-worker-module';
import type { WriterAppend, WriterData, WriterMessage, WriterReply } from './sqlite-writer-messages';

interface PendingAppend {
  streamId: string;
  events: NewEvent[];
  expected: ExpectedVersion;
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
  /** performance.now() when it was asked (for the observer). */
  asked: number;
  /** The span that asked (tracing on): the group commit that stores it is traced in its trace. */
  caller?: SpanContext;
}

/**
 * An event's row as the reads select it (EVENT_COLUMNS), as an array: better-sqlite3's raw
 * rows cost about half of its row objects, which a catch-up reads a million of.
 */
type EventRow = [position: number, streamId: string, streamVersion: number, type: string, data: string, metadata: string];
const EVENT_COLUMNS = 'position, stream_id, stream_version, type, data, metadata';

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

export interface SqliteEventStoreOptions {
  /** File path (not ':memory:': the writer thread opens it too). */
  path: string;
  /** How often a subscriber looks for appends made by other processes sharing the file. */
  pollIntervalMs?: number;
  /** Largest data or metadata JSON of one event; default SQLite's own length limit (SQLITE_MAX_LENGTH). */
  maxEventBytes?: number;
  /**
   * Most bytes the log may occupy (SQLite's `max_page_count` on the writer's
   * connection); an append that needs more is refused as on a full disk. A
   * limit below the current size holds the log at its current size. Default:
   * none. Tests use it (and `setMaxBytes`) to make the disk full and free it again.
   */
  maxBytes?: number | null;
  /** Told each append's latency and each group commit's size (metrics). */
  observer?: AppendObserver;
}

/** SQLite's default SQLITE_MAX_LENGTH (better-sqlite3 keeps it): a longer value fails the whole transaction. */
const SQLITE_MAX_LENGTH = 1_000_000_000;

/**
 * Event store on one SQLite file in WAL mode with `synchronous=FULL`, so an
 * append is on disk (fsynced) before its promise resolves.
 *
 * Appends are written by a worker thread (sqlite-writer-thread.ts) with its own connection: a commit's
 * fsync takes milliseconds (far more on a busy disk), and on the event loop it
 * stalled every request, read model and check for that long (a large share of
 * the main thread's time under concurrent single writes: docs/bench-history/design-choices.md). Reads stay on this
 * thread's connection; WAL lets them run while the writer commits, and a
 * commit is visible to them before its append resolves.
 *
 * Group commit: appends issued in the same tick, and those that arrive while a
 * transaction is being written, go into one transaction (one fsync), each
 * checked against its own expected version; a conflicting append is rejected
 * alone. This is what lets many concurrent writers share one durable log
 * without paying one fsync each.
 *
 * A transaction SQLite refuses for a passing reason (the disk is full, or
 * another process held the write lock past the busy timeout) is rolled back
 * whole, and each of its appends fails with UnavailableError (503): nothing
 * acknowledged before is touched, and appends succeed again once space is back.
 */
export class SqliteEventStore implements EventStore {
  private readonly db: Database.Database;
  private readonly path: string;
  private readonly appended: AppendWakeups;
  private pending: PendingAppend[] = [];
  private flushScheduled = false;
  /** The appends of the transaction the writer is working on. */
  private writing: PendingAppend[] | null = null;
  private writer: Worker | null = null;
  /** The span of the transaction the writer is working on (tracing on, and an append of it was traced). */
  private commitSpan: Span | undefined;
  /** Called once nothing is pending or being written (close waits for it). */
  private onIdle: (() => void) | null = null;
  private closed = false;
  private readonly pollIntervalMs: number;
  readonly maxEventBytes: number;
  private maxBytes: number | null;
  private readonly observer: AppendObserver | null;
  private readonly statements;

  constructor(options: SqliteEventStoreOptions) {
    if (options.path === ':memory:')
      throw new Error('SqliteEventStore needs a file: its writer thread opens the database with a connection of its own');
    this.path = options.path;
    this.db = new Database(options.path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 10000');
    this.db.exec(SCHEMA);
    this.pollIntervalMs = options.pollIntervalMs ?? 100;
    this.maxEventBytes = options.maxEventBytes ?? SQLITE_MAX_LENGTH;
    this.maxBytes = options.maxBytes ?? null;
    this.observer = options.observer ?? null;
    this.appended = new AppendWakeups(this.pollIntervalMs);
    this.statements = {
      version: this.db.prepare<[string], { version: number }>('SELECT version FROM streams WHERE stream_id = ?'),
      // A stream's versions are dense (each append takes the next ones), so `limit` events from `from` are the
      // versions below `from + limit`. Bounded so rather than by a bound LIMIT, a read of one event on a
      // large log costs markedly less (an audit-log page reads one per match; docs/bench-history/design-choices.md).
      readStream: this.db
        .prepare<[string, number, number], EventRow>(
          `SELECT ${EVENT_COLUMNS} FROM events WHERE stream_id = ? AND stream_version >= ? AND stream_version < ? ORDER BY stream_version`,
        )
        .raw(true),
      readAll: this.db
        .prepare<[number, number], EventRow>(`SELECT ${EVENT_COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT ?`)
        .raw(true),
      head: this.db.prepare<[], { head: number | null }>('SELECT MAX(position) AS head FROM events'),
    };
  }

  append(streamId: string, events: NewEvent[], expected: ExpectedVersion): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    return new Promise((resolve, reject) => {
      this.pending.push({ streamId, events, expected, resolve, reject, asked: performance.now(), caller: activeSpanContext() });
      if (!this.flushScheduled && !this.writing) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Hands everything pending to the writer as one transaction, unless one is being written (then it goes next). */
  private flush(): void {
    this.flushScheduled = false;
    if (this.writing || this.pending.length === 0) return;
    const batch: PendingAppend[] = [];
    const appends: WriterAppend[] = [];
    for (const append of this.pending) {
      try {
        appends.push(toWriterAppend(append, this.maxEventBytes));
        batch.push(append);
      } catch (error) {
        append.reject(error); // data JSON cannot represent, or too long: refused alone, as a conflict would be
      }
    }
    this.pending = [];
    if (batch.length === 0) return this.idleCheck();
    this.writing = batch;
    this.commitSpan = startSpanFor(
      'group commit',
      batch.map((append) => append.caller),
      { 'rebac.appends': batch.length, 'db.system': 'sqlite' },
    );
    const writer = this.writerThread();
    writer.ref(); // an append under way keeps the process alive; an idle writer does not
    writer.postMessage({ appends, maxBytes: this.maxBytes } satisfies WriterMessage);
  }

  /** Changes the size limit (see `maxBytes`; null: none) from the next transaction on. */
  setMaxBytes(maxBytes: number | null): void {
    this.maxBytes = maxBytes;
  }

  private writerThread(): Worker {
    if (this.writer) return this.writer;
    const writer = startWorkerModule(__dirname, 'sqlite-writer-thread', {
      workerData: { path: this.path } satisfies WriterData,
      // It keeps nothing between transactions: a small young generation (the default one grows large) keeps its RSS small.
      resourceLimits: { maxYoungGenerationSizeMb: 4 },
    });
    writer.unref();
    writer.on('message', (reply: WriterReply) => this.written(reply));
    // A dead writer fails the transaction it had (SQLite rolls an unfinished one back); the next flush starts another.
    const failed = (error: unknown) => {
      if (this.writer !== writer) return;
      this.writer = null;
      this.written({ error: { message: `event store writer stopped: ${error instanceof Error ? error.message : String(error)}` } });
    };
    writer.on('error', failed);
    writer.on('exit', (code) => failed(new Error(`exit code ${code}`)));
    this.writer = writer;
    return writer;
  }

  private written(reply: WriterReply): void {
    const batch = this.writing;
    if (!batch) return;
    this.writing = null;
    endSpan(this.commitSpan, 'error' in reply ? reply.error.message : undefined);
    this.commitSpan = undefined;
    this.writer?.unref();
    batch.forEach((append, i) => {
      if ('error' in reply) return append.reject(writeError(reply.error));
      const outcome = reply.outcomes[i]!;
      if ('conflict' in outcome) {
        const expected = append.expected === 'no_stream' ? -1 : (append.expected as number);
        append.reject(new StreamVersionConflictError(append.streamId, expected, outcome.conflict));
      } else {
        append.resolve(outcome);
      }
    });
    if (this.observer) observe(this.observer, batch, reply);
    this.appended.notify(committedCategories(batch, reply));
    this.flush();
    this.idleCheck();
  }

  private idleCheck(): void {
    if (this.onIdle && !this.writing && this.pending.length === 0) this.onIdle();
  }

  async readStream(streamId: string, fromVersion = 0, limit = Number.MAX_SAFE_INTEGER): Promise<RecordedEvent[]> {
    return this.readVersions(streamId, fromVersion, limit).map(toRecorded);
  }

  async readStreamText(streamId: string, fromVersion: number, limit: number): Promise<StoredEventText[]> {
    return this.readVersions(streamId, fromVersion, limit).map(toStoredText);
  }

  /** Up to `limit` events of the stream from version `fromVersion` on. */
  private readVersions(streamId: string, fromVersion: number, limit: number): EventRow[] {
    if (!(limit > 0)) return [];
    return this.statements.readStream.all(streamId, fromVersion, Math.min(fromVersion + limit, Number.MAX_SAFE_INTEGER));
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
    return subscribeByPolling(
      options,
      handler,
      {
        readAll: (after, limit) => this.readAll(after, limit),
        // Filter in SQL (category index), so a subscriber to a few streams does not parse the whole log.
        readCategories: async (after, limit, categories) => {
          const head = this.statements.head.get()?.head ?? 0;
          const events = this.categoryRead(categories.length)
            .all(after, head, ...categories, limit)
            .map(toRecorded);
          return { events, head };
        },
      },
      this.appended,
    );
  }

  private readonly categoryReads = new Map<number, Database.Statement<unknown[], EventRow>>();
  private categoryRead(count: number): Database.Statement<unknown[], EventRow> {
    let statement = this.categoryReads.get(count);
    if (!statement) {
      const list = Array.from({ length: count }, () => '?').join(', ');
      statement = this.db
        .prepare<unknown[], EventRow>(
          `SELECT ${EVENT_COLUMNS} FROM events WHERE position > ? AND position <= ? AND category IN (${list}) ORDER BY position LIMIT ?`,
        )
        .raw(true);
      this.categoryReads.set(count, statement);
    }
    return statement;
  }

  /**
   * Another connection to the file (another thread's store) has appended: subscribers read now
   * instead of at their next poll.
   */
  noticeAppends(): void {
    this.appended.notify();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Appends already accepted are written (and answered) before the writer stops.
    await new Promise<void>((resolve) => {
      this.onIdle = resolve;
      this.flush();
      this.idleCheck();
    });
    this.appended.notify();
    const writer = this.writer;
    this.writer = null;
    await writer?.terminate();
    this.db.close();
  }
}

/** Tells the observer each append's latency and, when the transaction committed, how many appends and events it stored. */
function observe(observer: AppendObserver, batch: PendingAppend[], reply: WriterReply): void {
  const now = performance.now();
  let appends = 0;
  let events = 0;
  batch.forEach((append, i) => {
    observer.appended((now - append.asked) / 1000);
    if ('outcomes' in reply && !('conflict' in reply.outcomes[i]!)) {
      appends++;
      events += append.events.length;
    }
  });
  if (appends > 0) observer.committed(appends, events);
}

/** The categories of the streams a transaction's appends stored events in (conflicts stored nothing). */
function committedCategories(batch: PendingAppend[], reply: WriterReply): Set<string> {
  const categories = new Set<string>();
  if ('outcomes' in reply)
    batch.forEach((append, i) => {
      if (!('conflict' in reply.outcomes[i]!)) categories.add(streamCategory(append.streamId).category);
    });
  return categories;
}

/**
 * SQLite result codes of a transaction that wrote nothing for a passing
 * reason: the disk (or the size limit) is full, or another process held the
 * write lock longer than the busy timeout. Clients get a 503 and may retry;
 * anything else is unexpected (500).
 */
const UNAVAILABLE_CODES: Record<string, string> = {
  SQLITE_FULL: 'the disk holding the event log is full',
  SQLITE_BUSY: 'another process held the event log locked for too long',
};

/** The error each append of a failed transaction is rejected with (nothing of the transaction was written). */
function writeError(error: { message: string; code?: string }): Error {
  const reason = error.code ? UNAVAILABLE_CODES[error.code] : undefined;
  if (reason) return new UnavailableError(`The event store cannot take writes: ${reason}. Nothing was written; retry later.`);
  return Object.assign(new Error(error.message), error.code ? { code: error.code } : {});
}

/**
 * Serialised here (or taken as the command pipeline serialised it), so the writer
 * only runs SQL; a value over SQLite's length limit is refused here, alone, for
 * inside the writer's transaction it would fail every append sharing it.
 */
function toWriterAppend(append: PendingAppend, maxEventBytes: number): WriterAppend {
  const rows: string[] = [];
  for (const event of append.events) {
    const json = eventJson(event);
    const size = sizeOver(json.data, maxEventBytes) ?? sizeOver(json.metadata, maxEventBytes);
    if (size !== undefined)
      throw new RangeError(`a ${event.type} event is ${size} bytes of JSON; the event store takes at most ${maxEventBytes}`);
    rows.push(event.type, json.data, json.metadata);
  }
  return { streamId: append.streamId, category: streamCategory(append.streamId).category, expected: append.expected, rows };
}

function toStoredText(row: EventRow): StoredEventText {
  return { position: row[0], streamId: row[1], streamVersion: row[2], type: row[3], json: { data: row[4], metadata: row[5] } };
}

function toRecorded(row: EventRow): RecordedEvent {
  return {
    position: row[0],
    streamId: row[1],
    streamVersion: row[2],
    type: row[3],
    data: JSON.parse(row[4]) as unknown,
    metadata: JSON.parse(row[5]) as RecordedEvent['metadata'],
  };
}
