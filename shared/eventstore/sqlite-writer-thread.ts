import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import type { AppendResult } from './port';
import type { WriterAppend, WriterConflict, WriterData, WriterMessage, WriterReply } from './sqlite-writer-messages';

/**
 * The SQLite event store's writer thread (SqliteEventStore starts it). Each message is one
 * transaction of appends; each append is checked against its expected version and refused alone
 * on a mismatch. Events go 64 rows per INSERT (prepared once per row count): a bulk's thousands of
 * events cost a statement call per 64 rather than per event. lastInsertRowid is the last row's
 * position.
 */
const { path } = workerData as WriterData;
const port = parentPort!;
const db = new Database(path);
db.pragma('synchronous = FULL');
db.pragma('busy_timeout = 10000');

/** The columns of an events row the writer inserts. */
const COLUMNS = 6;
const ROWS_PER_INSERT = 64;
const version = db.prepare<[string], number>('SELECT version FROM streams WHERE stream_id = ?').pluck();
const setVersion = db.prepare<[string, number]>(
  'INSERT INTO streams (stream_id, version) VALUES (?, ?) ON CONFLICT (stream_id) DO UPDATE SET version = excluded.version',
);
const inserts = new Map<number, Database.Statement<unknown[]>>();

/** The INSERT of `rows` events (prepared on first use). */
function insertStatement(rows: number): Database.Statement<unknown[]> {
  let statement = inserts.get(rows);
  if (!statement) {
    const row = `(${new Array<string>(COLUMNS).fill('?').join(', ')})`;
    statement = db.prepare<unknown[]>(
      `INSERT INTO events (stream_id, category, stream_version, type, data, metadata) VALUES ${new Array<string>(rows).fill(row).join(', ')}`,
    );
    inserts.set(rows, statement);
  }
  return statement;
}

function appendOne(append: WriterAppend): AppendResult | WriterConflict {
  const current = version.get(append.streamId) ?? -1;
  const expected = append.expected;
  if (!(expected === 'any' || (expected === 'no_stream' ? current === -1 : current === expected))) return { conflict: current };
  let streamVersion = current;
  let position = 0;
  const values: unknown[] = [];
  const insert = () => {
    position = Number(insertStatement(values.length / COLUMNS).run(values).lastInsertRowid);
    values.length = 0;
  };
  for (let i = 0; i < append.rows.length; i += 3) {
    streamVersion += 1;
    values.push(append.streamId, append.category, streamVersion, append.rows[i], append.rows[i + 1], append.rows[i + 2]);
    if (values.length === ROWS_PER_INSERT * COLUMNS) insert();
  }
  if (values.length > 0) insert();
  if (append.rows.length > 0) setVersion.run(append.streamId, streamVersion);
  return { streamVersion, position };
}

const write = db.transaction((appends: WriterAppend[]) => appends.map(appendOne));

/** max_page_count as opened (the most SQLite allows): what "no limit" sets back. */
const unlimitedPages = db.pragma('max_page_count', { simple: true }) as number;
let maxBytes: number | null = null;

/** Makes `bytes` (null: none) the most the log may occupy, from this transaction on. */
function limitSize(bytes: number | null): void {
  if (bytes === maxBytes) return;
  const pages = bytes === null ? unlimitedPages : Math.max(1, Math.floor(bytes / (db.pragma('page_size', { simple: true }) as number)));
  db.pragma(`max_page_count = ${pages}`);
  maxBytes = bytes;
}

port.on('message', (message: WriterMessage) => {
  let reply: WriterReply;
  try {
    limitSize(message.maxBytes);
    reply = { outcomes: write.immediate(message.appends) };
  } catch (error) {
    reply = { error: describe(error) };
  }
  port.postMessage(reply);
});

/** A failure as it crosses to the store: its message, and SQLite's code when it has one (SQLITE_FULL, SQLITE_BUSY). */
function describe(error: unknown): { message: string; code?: string } {
  const message = String((error instanceof Error && error.message) || error);
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? { message, code } : { message };
}
