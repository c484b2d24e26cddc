import { parentPort, workerData } from 'node:worker_threads';
import { SqliteDecisionLog, type DecisionBatchRow } from './sqlite-decision-log';

/** What the main thread asks of the decision log's writer thread (threaded-sqlite-decision-log.ts), and its answers. */
export type ToWriter =
  | { id: number; op: 'append'; rows: DecisionBatchRow[] }
  | { id: number; op: 'deleteOlderThan'; timestamp: number }
  | { id: number; op: 'keepNewest'; max: number }
  | { id: number; op: 'close' };
export type FromWriter = { id: number; result: number } | { id: number; error: string };

/** The writer thread's entry: one connection to the file, every write of the process through it, in order. */
function serve(path: string): void {
  const store = new SqliteDecisionLog(path);
  parentPort!.on('message', (message: ToWriter) => {
    void (async () => {
      try {
        let result = 0;
        if (message.op === 'append') {
          store.appendRows(message.rows);
          result = message.rows.reduce((n, row) => n + row[3], 0);
        } else if (message.op === 'deleteOlderThan') result = await store.deleteOlderThan(message.timestamp);
        else if (message.op === 'keepNewest') result = await store.keepNewest(message.max);
        else await store.close();
        parentPort!.postMessage({ id: message.id, result } satisfies FromWriter);
      } catch (error) {
        parentPort!.postMessage({ id: message.id, error: (error as Error).message ?? String(error) } satisfies FromWriter);
      }
    })();
  });
}

if (parentPort && (workerData as { decisionLogPath?: string } | null)?.decisionLogPath)
  serve((workerData as { decisionLogPath: string }).decisionLogPath);
