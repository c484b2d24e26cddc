import type { NewEvent, RecordedEvent } from '../events/envelope';
import { streamCategory } from '../events/envelope';
import { StreamVersionConflictError } from '../errors';
import { activeSpanContext, endSpan, startSpanFor, type SpanContext } from '../tracing/spans';
import { AppendWakeups, subscribeByPolling } from './catch-up-subscription';
import { eventJson, sizeOver } from './event-json';
import type { AppendObserver, AppendResult, EventStore, ExpectedVersion, StoredEventText, SubscribeOptions, Subscription } from './port';
import { openPostgresPool, type PostgresPool as Db } from './postgres-connection';
import { translateReadError, translateWriteError } from './postgres-errors';
import { APPEND_CHANNEL, migrate } from './postgres-schema';

export interface PostgresEventStoreOptions {
  /** POSTGRES_URL: a libpq connection string (a URI or keywords; several hosts and target_session_attrs taken). */
  url: string;
  /** Connections for reads (catch-ups, stream loads); appends and LISTEN have one each of their own. Default 10. */
  poolSize?: number;
  /**
   * How often an idle subscriber looks for appends when no notification came. Appends notify
   * (LISTEN/NOTIFY), so this only bounds the delay after a lost notification. Default 1000.
   */
  pollIntervalMs?: number;
  /** Largest data or metadata JSON of one event. Default 256 MiB (a text value may hold 1 GB; a batch's arrays too). */
  maxEventBytes?: number;
  /** Seconds to wait for a connection before a request fails with 503. Default 5. */
  connectTimeoutSeconds?: number;
  /** Told each append's latency and each batch's size (metrics). */
  observer?: AppendObserver;
}

interface PendingAppend {
  streamId: string;
  events: NewEvent[];
  expected: ExpectedVersion;
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
  asked: number;
  /** The span that asked (tracing on): the group commit that stores it is traced in its trace. */
  caller?: SpanContext;
}

/** One batch's parameters to append_events: one entry per append, and one per event. */
interface BatchArrays {
  streams: string[];
  categories: string[];
  expected: number[];
  counts: number[];
  types: string[];
  data: string[];
  metadata: string[];
}

type EventRow = [position: number, streamId: string, streamVersion: number, type: string, data: string, metadata: string];
const EVENT_COLUMNS = 'position, stream_id, stream_version, type, data, metadata';

const DEFAULT_MAX_EVENT_BYTES = 256 * 1024 * 1024;
/** A batch stops taking appends past this many bytes of JSON (a larger append goes alone): its arrays stay far below 1 GB. */
const BATCH_BYTES = 32 * 1024 * 1024;
/** `expected` as append_events takes it. */
const ANY = -2;
const NO_STREAM = -1;

/**
 * The event store on PostgreSQL (the `postgres` client).
 *
 * Group commit, as the SQLite store's: appends asked while a batch is with the server go into
 * the next one, and a batch is one call of append_events (postgres-schema.ts): one statement,
 * one round trip, one commit, each append checked against its own expected version and refused
 * alone on a conflict. Appends have a connection of their own, so a long catch-up read never
 * holds a write behind it.
 *
 * The global order is gap-safe: append_events serialises on an advisory lock held until commit,
 * so positions become visible in order, and a reader that has seen a position has seen every
 * lower one that will ever exist. Subscribers wake on NOTIFY (sent at commit), with a slow poll
 * in case a notification is lost while the listening connection reconnects.
 *
 * A server that is down, restarting or read-only fails appends with UnavailableError (503); a
 * batch is stored whole or not at all.
 */
export class PostgresEventStore implements EventStore {
  readonly maxEventBytes: number;
  private readonly appended: AppendWakeups;
  private pending: PendingAppend[] = [];
  private flushScheduled = false;
  private writing: PendingAppend[] | null = null;
  private onIdle: (() => void) | null = null;
  private closed = false;
  private readonly pollIntervalMs: number;
  private readonly observer: AppendObserver | null;

  private reader: Db;
  private writer: Db;

  private constructor(private readonly options: PostgresEventStoreOptions) {
    this.reader = this.openReader();
    this.writer = openPool(options, 1);
    this.maxEventBytes = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.observer = options.observer ?? null;
    this.appended = new AppendWakeups(this.pollIntervalMs);
  }

  /** Connects, brings the schema to this release's version, and starts listening for appends. */
  static async connect(options: PostgresEventStoreOptions): Promise<PostgresEventStore> {
    const store = new PostgresEventStore(options);
    try {
      await migrate(store.writer);
      await store.listen(store.reader);
    } catch (error) {
      await store.endPools();
      throw translateReadError(error);
    }
    return store;
  }

  private openReader(): Db {
    return openPool(this.options, this.options.poolSize ?? 10);
  }

  private listen(reader: Db): Promise<unknown> {
    return reader.listen(
      APPEND_CHANNEL,
      (payload) => this.appended.notify(new Set(payload.split(','))),
      // Listening again after a reconnect: what was notified meanwhile is lost, so every subscriber looks.
      () => this.appended.notify(),
    );
  }

  /** Listens on a new reader pool, retrying until it can (subscribers poll meanwhile) or the pool is replaced or closed. */
  private async listenAgain(reader: Db): Promise<void> {
    while (!this.closed && this.reader === reader) {
      try {
        await this.listen(reader);
        // What was notified before is lost: every subscriber looks.
        this.appended.notify();
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, this.pollIntervalMs));
      }
    }
  }

  /**
   * Replaces a pool whose connecting timed out with a new one. Given several hosts, the `postgres`
   * client 3.4 can leave a pool whose connection broke mid-statement (its server died) unable to
   * connect again: after a standby's promotion each request still timed out, for about a minute
   * (porsager/postgres#815, #988), where a new pool connects at once. A pool that merely cannot
   * reach any server is replaced every `connect_timeout`, which costs nothing.
   */
  private renewAfter(error: unknown, pool: 'reader' | 'writer'): void {
    if (this.closed || (error as { code?: unknown } | null)?.code !== 'CONNECT_TIMEOUT') return;
    const old = this[pool];
    if (pool === 'writer') {
      this.writer = openPool(this.options, 1);
    } else {
      const reader = this.openReader();
      this.reader = reader;
      void this.listenAgain(reader);
    }
    void old.end({ timeout: 0 }).catch(() => undefined);
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

  /** Sends what is pending as one batch, unless one is with the server (then it goes next). */
  private flush(): void {
    this.flushScheduled = false;
    if (this.writing || this.pending.length === 0) return this.idleCheck();
    const batch: PendingAppend[] = [];
    const arrays: BatchArrays = { streams: [], categories: [], expected: [], counts: [], types: [], data: [], metadata: [] };
    let bytes = 0;
    let taken = 0;
    for (; taken < this.pending.length && (batch.length === 0 || bytes < BATCH_BYTES); taken++) {
      const append = this.pending[taken]!;
      try {
        bytes += addAppend(arrays, append, this.maxEventBytes);
        batch.push(append);
      } catch (error) {
        append.reject(error); // data JSON cannot hold, or too large: refused alone, as a conflict is
      }
    }
    this.pending = this.pending.slice(taken);
    if (batch.length === 0) return this.flush();
    this.writing = batch;
    void this.write(batch, arrays);
  }

  private async write(batch: PendingAppend[], arrays: BatchArrays): Promise<void> {
    let outcomes: Array<[conflict: boolean, version: number, position: number]> | null = null;
    let failure: unknown = null;
    const span = startSpanFor(
      'group commit',
      batch.map((append) => append.caller),
      { 'rebac.appends': batch.length, 'db.system': 'postgresql' },
    );
    try {
      const rows = await this.writer`
        SELECT out_conflict, out_version, out_position FROM append_events(
          ${arrays.streams}::text[], ${arrays.categories}::text[], ${arrays.expected}::bigint[], ${arrays.counts}::int[],
          ${arrays.types}::text[], ${arrays.data}::text[], ${arrays.metadata}::text[])`.values();
      outcomes = rows as unknown as Array<[boolean, number, number]>;
    } catch (error) {
      failure = translateWriteError(error);
      this.renewAfter(error, 'writer');
    }
    endSpan(span, outcomes ? undefined : failure);
    this.writing = null;
    let appends = 0;
    let events = 0;
    const now = performance.now();
    const categories = new Set<string>();
    batch.forEach((append, i) => {
      this.observer?.appended((now - append.asked) / 1000);
      if (!outcomes) return append.reject(failure);
      const [conflict, version, position] = outcomes[i]!;
      if (conflict) {
        const expected = append.expected === 'no_stream' ? -1 : (append.expected as number);
        return append.reject(new StreamVersionConflictError(append.streamId, expected, version));
      }
      appends++;
      events += append.events.length;
      if (append.events.length > 0) categories.add(streamCategory(append.streamId).category);
      append.resolve({ streamVersion: version, position });
    });
    if (appends > 0) this.observer?.committed(appends, events);
    if (categories.size > 0) this.appended.notify(categories);
    this.flush();
  }

  private idleCheck(): void {
    if (this.onIdle && !this.writing && this.pending.length === 0) this.onIdle();
  }

  async readStream(streamId: string, fromVersion = 0, limit = Number.MAX_SAFE_INTEGER): Promise<RecordedEvent[]> {
    return (await this.readVersions(streamId, fromVersion, limit)).map(toRecorded);
  }

  async readStreamText(streamId: string, fromVersion: number, limit: number): Promise<StoredEventText[]> {
    return (await this.readVersions(streamId, fromVersion, limit)).map(toStoredText);
  }

  /** A stream's versions are dense, so `limit` events from `from` are the versions below `from + limit`. */
  private async readVersions(streamId: string, fromVersion: number, limit: number): Promise<EventRow[]> {
    if (!(limit > 0)) return [];
    const below = Math.min(fromVersion + limit, Number.MAX_SAFE_INTEGER);
    return this.selectEvents('stream_id = $1 AND stream_version >= $2 AND stream_version < $3 ORDER BY stream_version', [
      streamId,
      fromVersion,
      below,
    ]);
  }

  async streamVersion(streamId: string): Promise<number> {
    const rows = await this.reading(() => this.reader<[{ version: number }]>`SELECT version FROM streams WHERE stream_id = ${streamId}`);
    return rows[0]?.version ?? -1;
  }

  async readAll(fromPosition: number, limit: number): Promise<RecordedEvent[]> {
    if (!(limit > 0)) return [];
    return (await this.selectEvents('position > $1 ORDER BY position LIMIT $2', [fromPosition, limit])).map(toRecorded);
  }

  async headPosition(): Promise<number> {
    const rows = await this.reading(() => this.reader<[{ head: number }]>`SELECT coalesce(max(position), 0) AS head FROM events`);
    return rows[0]?.head ?? 0;
  }

  subscribe(options: SubscribeOptions, handler: (events: RecordedEvent[]) => Promise<void>): Subscription {
    return subscribeByPolling(
      options,
      handler,
      {
        readAll: (after, limit) => this.readAll(after, limit),
        // Filtered on the server (category index); the order is gap-safe, so every position up to the head has committed.
        readCategories: async (after, limit, categories) => {
          const head = await this.headPosition();
          const rows = await this.selectEvents(
            'position > $1 AND position <= $2 AND category = ANY($3::text[]) ORDER BY position LIMIT $4',
            [after, head, categories, limit],
          );
          return { events: rows.map(toRecorded), head };
        },
      },
      this.appended,
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Appends already accepted are written (and answered) before the connections close.
    await new Promise<void>((resolve) => {
      this.onIdle = resolve;
      this.idleCheck();
    });
    this.appended.notify();
    await this.endPools();
  }

  private async endPools(): Promise<void> {
    await Promise.all([this.reader.end({ timeout: 5 }), this.writer.end({ timeout: 5 })]);
  }

  /** Events' rows as arrays (cheaper than row objects for a catch-up's thousands): `SELECT … FROM events WHERE <where>`. */
  private async selectEvents(where: string, parameters: Array<string | number | string[]>): Promise<EventRow[]> {
    const rows = await this.reading(
      async () => await this.reader.unsafe(`SELECT ${EVENT_COLUMNS} FROM events WHERE ${where}`, parameters).values(),
    );
    return rows as unknown as EventRow[];
  }

  private async reading<R>(read: () => Promise<R>): Promise<R> {
    try {
      return await read();
    } catch (error) {
      this.renewAfter(error, 'reader');
      throw translateReadError(error);
    }
  }
}

function openPool(options: PostgresEventStoreOptions, max: number): Db {
  return openPostgresPool(options.url, {
    max,
    connectTimeoutSeconds: options.connectTimeoutSeconds,
    applicationName: 'rebac-event-store',
    // append_events reads the head after taking its lock, in a statement snapshot of its own: read committed.
    connection: { default_transaction_isolation: 'read committed' },
  });
}

/** Adds one append to a batch's arrays; returns its bytes of JSON. Throws, adding nothing, when an event cannot be stored. */
function addAppend(arrays: BatchArrays, append: PendingAppend, maxEventBytes: number): number {
  const jsons = append.events.map((event) => {
    const json = eventJson(event);
    const size = sizeOver(json.data, maxEventBytes) ?? sizeOver(json.metadata, maxEventBytes);
    if (size !== undefined)
      throw new RangeError(`a ${event.type} event is ${size} bytes of JSON; the event store takes at most ${maxEventBytes}`);
    return json;
  });
  let bytes = 0;
  append.events.forEach((event, i) => {
    const json = jsons[i]!;
    arrays.types.push(event.type);
    arrays.data.push(json.data);
    arrays.metadata.push(json.metadata);
    bytes += json.data.length + json.metadata.length;
  });
  arrays.streams.push(append.streamId);
  arrays.categories.push(streamCategory(append.streamId).category);
  arrays.expected.push(append.expected === 'any' ? ANY : append.expected === 'no_stream' ? NO_STREAM : append.expected);
  arrays.counts.push(append.events.length);
  return bytes;
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
