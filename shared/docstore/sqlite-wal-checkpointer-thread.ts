import Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { workerData } from 'node:worker_threads';
import type { WalCheckpointerData } from './sqlite-wal-checkpointer-messages';

/**
 * The WAL checkpointer's thread (WalCheckpointer starts it, and says why): a PASSIVE checkpoint
 * every interval, and a RESTART one once the log is larger than RESTART_ABOVE_BYTES.
 */
const { path, intervalMs } = workerData as WalCheckpointerData;

/** The WAL size from which a checkpoint waits for the readers to leave the log, so that it starts over. */
const RESTART_ABOVE_BYTES = 64 * 1024 * 1024;
/** How long a RESTART checkpoint waits for them before it gives up until the next interval. */
const RESTART_WAIT_MS = 50;
const BUSY_TIMEOUT_MS = 1000;

const db = new Database(path);
db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);

function walBytes(): number {
  try {
    return statSync(`${path}-wal`).size;
  } catch {
    return 0;
  }
}

setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // busy: next time
  }
  if (walBytes() <= RESTART_ABOVE_BYTES) return;
  db.pragma(`busy_timeout = ${RESTART_WAIT_MS}`);
  try {
    db.pragma('wal_checkpoint(RESTART)');
  } catch {
    // readers stayed: next time
  }
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
}, intervalMs);
