import type { RecordedEvent } from '../../shared/events';
import type { EventStore } from '../../shared/eventstore/port';

/**
 * The end of what a copy reads: the source as it was at a log position, and
 * optionally at a time. With a time, the copy takes the longest prefix of the
 * source stream whose events were all accepted at or before it (a prefix is
 * always a valid state; picking events by time alone might not be).
 */
export interface SourceBound {
  position: number;
  /** ISO 8601 UTC (`toISOString()` form, so strings compare as times). */
  time?: string;
}

export const withinBound = (event: RecordedEvent, bound: SourceBound): boolean =>
  event.position <= bound.position && (bound.time === undefined || event.metadata.timestamp <= bound.time);

/**
 * Reads a stream from `fromVersion` in batches up to the bound, without ever
 * holding more than one batch: this is what lets a copy of millions of events
 * run in constant memory.
 */
export async function* readBounded(
  store: EventStore,
  streamId: string,
  fromVersion: number,
  bound: SourceBound,
  batchSize: number,
): AsyncGenerator<RecordedEvent[]> {
  let next = fromVersion;
  for (;;) {
    const batch = await store.readStream(streamId, next, batchSize);
    const end = batch.findIndex((e) => !withinBound(e, bound));
    const inside = end < 0 ? batch : batch.slice(0, end);
    if (inside.length > 0) yield inside;
    if (end >= 0 || batch.length < batchSize) return;
    next = batch.at(-1)!.streamVersion + 1;
  }
}
