import type { RecordedEvent } from '../../shared/events';
import type { EventStore, StoredEventText } from '../../shared/eventstore/port';

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

/** withinBound for an event read as text: its metadata is parsed only when the bound has a time. */
const textWithinBound = (event: StoredEventText, bound: SourceBound): boolean =>
  event.position <= bound.position &&
  (bound.time === undefined || (JSON.parse(event.json.metadata) as RecordedEvent['metadata']).timestamp <= bound.time);

/**
 * Reads a stream from `fromVersion` in batches up to the bound, without ever
 * holding more than one batch: this is what lets a copy of millions of events
 * run in constant memory.
 */
export function readBounded(
  store: EventStore,
  streamId: string,
  fromVersion: number,
  bound: SourceBound,
  batchSize: number,
): AsyncGenerator<RecordedEvent[]> {
  const read = (from: number) => store.readStream(streamId, from, batchSize);
  return boundedBatches(read, (event) => withinBound(event, bound), fromVersion, batchSize);
}

/**
 * readBounded's batches as the log stores them (EventStore.readStreamText),
 * for a copy that changes little of each event; null when the log has no text.
 */
export function readBoundedText(
  store: EventStore,
  streamId: string,
  fromVersion: number,
  bound: SourceBound,
  batchSize: number,
): AsyncGenerator<StoredEventText[]> | null {
  if (!store.readStreamText) return null;
  const read = store.readStreamText.bind(store);
  return boundedBatches(
    (from) => read(streamId, from, batchSize),
    (event) => textWithinBound(event, bound),
    fromVersion,
    batchSize,
  );
}

async function* boundedBatches<E extends { streamVersion: number }>(
  read: (fromVersion: number) => Promise<E[]>,
  within: (event: E) => boolean,
  fromVersion: number,
  batchSize: number,
): AsyncGenerator<E[]> {
  let next = fromVersion;
  for (;;) {
    const batch = await read(next);
    const end = batch.findIndex((e) => !within(e));
    const inside = end < 0 ? batch : batch.slice(0, end);
    if (inside.length > 0) yield inside;
    if (end >= 0 || batch.length < batchSize) return;
    next = batch.at(-1)!.streamVersion + 1;
  }
}
