import type { Worker } from 'node:worker_threads';
import { startWorkerModule } from '../threads/start-worker-module';
import type { WalCheckpointerData } from './sqlite-wal-checkpointer-messages';

/**
 * Runs the read-model database's WAL checkpoints on a worker thread (sqlite-wal-checkpointer-thread.ts).
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
      const worker = startWorkerModule(__dirname, 'sqlite-wal-checkpointer-thread', {
        workerData: { path, intervalMs } satisfies WalCheckpointerData,
      });
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
