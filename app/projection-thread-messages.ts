import pino, { type Logger } from 'pino';
import type { Config } from '../shared/config';

/**
 * What the main thread and the projection thread of the one-process service share
 * (app/projection-thread.ts, app/projection-thread-worker.ts).
 */

/** The projection thread's start: the configuration, the features whose projections it runs, the shared positions. */
export interface ProjectionThreadData {
  config: Config;
  /** The main thread's log level: the thread's lines go to its logger (`log` messages). */
  logLevel: string;
  features: string[];
  /** Projections whose last applied position the main thread reads (ProjectionThread.lastAppliedBy). */
  tracked: string[];
  /** BigInt64 slots: the read models' position, then each tracked projection's (publishPositions). */
  positions: SharedArrayBuffer;
}

/** `appended`: the main thread appended to the log (read it now, not at the next poll). */
export type ToProjectionThread = 'appended' | 'stop';
export type FromProjectionThread =
  | { started: { from: number } }
  | { committed: number }
  | { failed: string }
  /** One log line (pino's JSON), for the main thread's logger. */
  | { log: string }
  | 'stopped';

/** Bytes of the shared positions for `tracked` projections. */
export const positionsBytes = (tracked: string[]): number => BigInt64Array.BYTES_PER_ELEMENT * (1 + tracked.length);

/**
 * Writes the positions after a batch committed: each tracked projection's first, then the read
 * models' position, so a reader that sees a position also sees the projections' of that batch.
 */
export function publishPositions(slots: BigInt64Array, position: number, tracked: string[], lastAppliedBy: (name: string) => number): void {
  tracked.forEach((name, i) => Atomics.store(slots, 1 + i, BigInt(lastAppliedBy(name))));
  Atomics.store(slots, 0, BigInt(position));
}

/** The fields of a forwarded log line that the main thread's logger writes itself. */
const OWN_FIELDS = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'service', 'component']);

/** Writes a line the thread logged through `logger` (which adds its own time, service and component). */
export function relayLogLine(logger: Logger, line: string): void {
  const entry = JSON.parse(line) as Record<string, unknown>;
  const level = pino.levels.labels[entry.level as number] as pino.Level | undefined;
  const fields = Object.fromEntries(Object.entries(entry).filter(([key]) => !OWN_FIELDS.has(key)));
  logger[level ?? 'info'](fields, typeof entry.msg === 'string' ? entry.msg : '');
}
