import type { NewEvent, RecordedEvent } from '../events/envelope';
import type { AppendResult, EventStore, ExpectedVersion, SubscribeOptions, Subscription } from './port';

/**
 * The reads of an event store, for a process that must never write the log (a check worker of
 * the one-process service, app/check-worker.ts, reads the file the main process writes): an
 * append or a subscription is a programming error there, refused loudly rather than let two
 * processes decide on one stream.
 */
export class ReadOnlyEventStore implements EventStore {
  constructor(private readonly log: EventStore) {}

  get maxEventBytes(): number | undefined {
    return this.log.maxEventBytes;
  }

  append(streamId: string, _events: NewEvent[], _expected: ExpectedVersion): Promise<AppendResult> {
    return Promise.reject(new Error(`this process reads the event log only; an append to ${streamId} belongs to the main process`));
  }

  subscribe(_options: SubscribeOptions, _handler: (events: RecordedEvent[]) => Promise<void>): Subscription {
    throw new Error('this process reads the event log only; the projections run in the main process');
  }

  readStream(streamId: string, fromVersion?: number, limit?: number): Promise<RecordedEvent[]> {
    return this.log.readStream(streamId, fromVersion, limit);
  }

  streamVersion(streamId: string): Promise<number> {
    return this.log.streamVersion(streamId);
  }

  readAll(fromPosition: number, limit: number): Promise<RecordedEvent[]> {
    return this.log.readAll(fromPosition, limit);
  }

  headPosition(): Promise<number> {
    return this.log.headPosition();
  }

  close(): Promise<void> {
    return this.log.close();
  }
}
