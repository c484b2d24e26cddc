import { Worker } from 'node:worker_threads';

/**
 * Runs the read-model database's WAL checkpoints on a worker thread.
 *
 * With SQLite's automatic checkpoints, the connection that commits copies the
 * write-ahead log into the database file inside its COMMIT, on the event loop:
 * after a large projection batch (a 100,000-grant fan-out) that was a stall of
 * about half a second, during which no request was served. PASSIVE checkpoints
 * from another connection block neither the readers nor the writer.
 */
export class WalCheckpointer {
  private constructor(private readonly worker: Worker) {}

  /**
   * Starts checkpointing `path` every `intervalMs`. Returns null where a worker
   * cannot run (the caller then keeps SQLite's automatic checkpoints); calls
   * `onFailure` if the worker dies later, for the same fallback.
   */
  static start(path: string, onFailure: () => void, intervalMs = 200): WalCheckpointer | null {
    try {
      const worker = new Worker(SOURCE, { eval: true, workerData: { path, intervalMs, module: require.resolve('better-sqlite3') } });
      worker.unref();
      worker.on('error', onFailure);
      return new WalCheckpointer(worker);
    } catch {
      return null;
    }
  }

  async stop(): Promise<void> {
    this.worker.removeAllListeners('error');
    await this.worker.terminate();
  }
}

const SOURCE = `
const { workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 1000');
setInterval(() => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch { /* busy: next time */ }
}, workerData.intervalMs);
`;
