import { Worker } from 'node:worker_threads';

/**
 * Runs the read-model database's WAL checkpoints on a worker thread.
 *
 * With SQLite's automatic checkpoints, the connection that commits copies the
 * write-ahead log into the database file inside its COMMIT, on the event loop:
 * after a large projection batch (a fan-out to every file of a big folder) that
 * was a stall during which no request was served. PASSIVE checkpoints
 * from another connection block neither the readers nor the writer.
 *
 * A PASSIVE checkpoint never lets the log start over, though: SQLite restarts
 * the WAL only when a write begins while no reader uses it, which under steady
 * load (a reader always busy) does not happen, so the WAL grew without bound in
 * the full benchmark, and every page lookup searches the WAL's index segment by
 * segment: commits grew many times slower (docs/bench-history/design-choices.md). Once the WAL passes
 * RESTART_ABOVE_BYTES, a RESTART checkpoint waits (briefly: it gives up after
 * RESTART_WAIT_MS and tries again later) for the readers to leave the log, so the
 * next write starts it from the beginning. Writers wait for that moment too;
 * the WAL being small, it is short.
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

const RESTART_ABOVE_BYTES = 64 * 1024 * 1024;
const RESTART_WAIT_MS = 50;

const SOURCE = `
const { workerData } = require('node:worker_threads');
const { statSync } = require('node:fs');
const Database = require(workerData.module);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 1000');
const walBytes = () => { try { return statSync(workerData.path + '-wal').size; } catch { return 0; } };
setInterval(() => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch { /* busy: next time */ }
  if (walBytes() <= ${RESTART_ABOVE_BYTES}) return;
  db.pragma('busy_timeout = ${RESTART_WAIT_MS}');
  try { db.pragma('wal_checkpoint(RESTART)'); } catch { /* readers stayed: next time */ }
  db.pragma('busy_timeout = 1000');
}, workerData.intervalMs);
`;
