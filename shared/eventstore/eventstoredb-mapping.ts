import {
  ANY,
  NO_STREAM,
  CancelledError,
  DeadlineExceededError,
  MaxAppendSizeExceededError,
  NotLeaderError,
  UnavailableError as EsdbUnavailableError,
  WrongExpectedVersionError,
  type AppendExpectedRevision,
  type Position,
  type RecordedEvent as EsdbRecordedEvent,
} from '@eventstore/db-client';
import { PayloadTooLargeError, StreamVersionConflictError, UnavailableError } from '../errors';
import type { EventMetadata, RecordedEvent } from '../events/envelope';
import { streamCategory } from '../events/envelope';
import type { ExpectedVersion } from './port';

/**
 * Translations between our event-store vocabulary and EventStoreDB's, kept
 * pure so they are unit-tested without a server.
 *
 * - Versions: ours and ESDB's revisions both start at 0; `'no_stream'` and
 *   `'any'` map to ESDB's constants of the same meaning.
 * - Positions: ours are numbers. Every event ESDB (20+) writes commits itself,
 *   so its commit and prepare positions are equal: the commit position is our
 *   number, and `{commit: n, prepare: n}` resumes from it.
 */
export function toExpectedRevision(expected: ExpectedVersion): AppendExpectedRevision {
  if (expected === 'any') return ANY;
  if (expected === 'no_stream') return NO_STREAM;
  return BigInt(expected);
}

/** Our number for an ESDB version description (`'no_stream'` and friends → -1). */
export function versionNumber(revision: unknown): number {
  return typeof revision === 'bigint' || typeof revision === 'number' ? Number(revision) : -1;
}

export function toPosition(position: number): Position {
  const value = BigInt(position);
  return { commit: value, prepare: value };
}

/** The largest commit position ESDB reports when it does not know one (an unsigned -1). */
const NO_POSITION = 2n ** 63n;

/** Our position of an ESDB event; null when the server did not report one. */
export function positionOf(event: Pick<EsdbRecordedEvent, 'position'>): number | null {
  const commit = event.position?.commit;
  if (commit === undefined || commit >= NO_POSITION) return null;
  return Number(commit);
}

/** Events of system streams (`$…`) are never ours. */
export const isSystemStream = (streamId: string): boolean => streamId.startsWith('$');

export function inCategories(streamId: string, categories: Set<string> | null): boolean {
  return !isSystemStream(streamId) && (categories === null || categories.has(streamCategory(streamId).category));
}

export function toRecorded(event: EsdbRecordedEvent, position: number): RecordedEvent {
  return {
    position,
    streamId: event.streamId,
    streamVersion: Number(event.revision),
    type: event.type,
    data: event.data,
    metadata: event.metadata as unknown as EventMetadata,
  };
}

/** True for failures worth retrying: the server is unreachable, not the leader, or slow. */
export function isTransient(error: unknown): boolean {
  return (
    error instanceof EsdbUnavailableError ||
    error instanceof DeadlineExceededError ||
    error instanceof NotLeaderError ||
    error instanceof CancelledError
  );
}

/** Translates ESDB's errors into ours; anything we have no word for passes unchanged. */
export function translateError(error: unknown, streamId: string, expected?: ExpectedVersion): unknown {
  if (error instanceof WrongExpectedVersionError) {
    const wanted =
      expected === undefined || expected === 'any' ? versionNumber(error.expectedVersion) : expected === 'no_stream' ? -1 : expected;
    return new StreamVersionConflictError(streamId, wanted, versionNumber(error.actualVersion));
  }
  if (isTransient(error)) {
    return new UnavailableError(`The event store (EventStoreDB) is not reachable: ${(error as Error).message}`, { cause: String(error) });
  }
  // Too large for this server: a 413 to the one command whose append it is (the pipeline appends a refused batch's commands one by one).
  if (error instanceof MaxAppendSizeExceededError) {
    return new PayloadTooLargeError(
      `An append to ${streamId} is larger than EventStoreDB's maximum append size (${String(error.maxAppendSize)} bytes); raise the server's MaxAppendSize (e.g. KURRENTDB_MAX_APPEND_SIZE)`,
    );
  }
  return error;
}
