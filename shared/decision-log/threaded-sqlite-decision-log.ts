import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { DecisionEntry, DecisionFilter, DecisionLogStore, DecisionPage, DecisionPageRequest } from './port';
import { batchRowsOf, SqliteDecisionLog } from './sqlite-decision-log';
import type { FromWriter, ToWriter } from './sqlite-writer-thread';

type Pending = { resolve: (n: number) => void; reject: (e: Error) => void };
type Request = ToWriter extends infer T ? (T extends { id: number } ? Omit<T, 'id'> : never) : never;

/**
 * The SQLite decision log with its writes on a thread of their own (sqlite-writer-thread.ts):
 * better-sqlite3 is synchronous, and a batch of thousands of rows, or a retention delete, on the
 * main thread would stop every check in the process while it runs. Reads (the API's pages, rare)
 * use a connection of this thread, beside the writer's (WAL: a read never waits for a write).
 */
export class ThreadedSqliteDecisionLog implements DecisionLogStore {
  private readonly reader: SqliteDecisionLog;
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private closed: Promise<void> | null = null;

  constructor(path: string) {
    // Opened here first: it creates the file and its schema before the thread writes.
    this.reader = new SqliteDecisionLog(path);
    // Run from the sources (tests, the bench) the thread needs the same TypeScript loader; built, plain node.
    const typescript = extname(__filename) === '.ts';
    this.worker = new Worker(join(__dirname, `sqlite-writer-thread${extname(__filename)}`), {
      workerData: { decisionLogPath: path },
      execArgv:
        typescript && !process.execArgv.includes('@swc-node/register') ? [...process.execArgv, '-r', '@swc-node/register'] : undefined,
    });
    this.worker.unref();
    this.worker.on('message', (message: FromWriter) => {
      const waiting = this.pending.get(message.id);
      this.pending.delete(message.id);
      if ('error' in message) waiting?.reject(new Error(message.error));
      else waiting?.resolve(message.result);
    });
    this.worker.on('error', (error) => this.failAll(error));
    this.worker.on('exit', (code) => this.failAll(new Error(`the decision log's writer thread exited (code ${code})`)));
  }

  async append(entries: readonly DecisionEntry[]): Promise<void> {
    if (entries.length > 0) await this.ask({ op: 'append', rows: batchRowsOf(entries) });
  }

  query(filter: DecisionFilter, page: DecisionPageRequest): Promise<DecisionPage> {
    return this.reader.query(filter, page);
  }

  get(environmentId: string, id: string): Promise<DecisionEntry | null> {
    return this.reader.get(environmentId, id);
  }

  deleteOlderThan(timestamp: number): Promise<number> {
    return this.ask({ op: 'deleteOlderThan', timestamp });
  }

  keepNewest(max: number): Promise<number> {
    return this.ask({ op: 'keepNewest', max });
  }

  close(): Promise<void> {
    return (this.closed ??= (async () => {
      try {
        await this.ask({ op: 'close' });
      } finally {
        await this.worker.terminate();
        await this.reader.close();
      }
    })());
  }

  private ask(request: Request): Promise<number> {
    const id = ++this.nextId;
    return new Promise<number>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...request, id });
    });
  }

  private failAll(error: Error): void {
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }
}
