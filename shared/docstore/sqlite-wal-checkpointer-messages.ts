/** What the WAL checkpointer's thread (sqlite-wal-checkpointer-thread.ts) is started with; it sends and takes no messages. */
export interface WalCheckpointerData {
  /** The database whose write-ahead log it checkpoints. */
  path: string;
  /** How often it checkpoints. */
  intervalMs: number;
}
