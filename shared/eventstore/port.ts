import type { NewEvent, RecordedEvent } from '../events/envelope';
import type { EventJson } from './event-json';

/**
 * Expected stream version for an append, in our own vocabulary (adapters
 * translate their engine's): `'no_stream'` — the stream must not exist;
 * `'any'` — no check; a number — the 0-based version of the stream's last event.
 */
export type ExpectedVersion = 'no_stream' | 'any' | number;

export interface AppendResult {
  /** Version of the last event appended (0-based). */
  streamVersion: number;
  /** Global position of the last event appended. */
  position: number;
}

export interface Subscription {
  /** Stops delivery; resolves once no handler call is running. */
  stop(): Promise<void>;
}

export interface SubscribeOptions {
  /** Deliver events with position strictly greater than this (0 = from the start). */
  fromPosition: number;
  /**
   * Upper bound on events per handler call: a number, or a function asked
   * before each read with the position the read starts after (a subscriber
   * catching up on a long log may take larger batches than once it is live).
   */
  batchSize?: number | ((after: number) => number);
  /** Only events of these stream categories (`env`, `org`, `task`), where the engine can filter. */
  categories?: string[];
  /** Called when delivery fails for a reason other than the handler (engine down); the subscription retries with backoff. */
  onError?: (error: unknown) => void;
}

/**
 * What an event store tells about its writes, for metrics (adapters take one as
 * an option). Called on the path of every append, so implementations must be
 * cheap and must not throw.
 */
export interface AppendObserver {
  /** One append was answered (stored, or refused by a conflict or the engine) `seconds` after it was asked. */
  appended(seconds: number): void;
  /** One write to the engine stored `appends` appends holding `events` events together (SQLite: one group commit). */
  committed(appends: number, events: number): void;
}

/**
 * The append-only event log. Appends are atomic per call and durable once the
 * returned promise resolves (an acknowledged append survives a crash).
 */
export interface EventStore {
  /**
   * Largest serialised data, or metadata, of one event the engine stores (UTF-8
   * bytes of its JSON); undefined when the engine states none. The command
   * pipeline refuses a command with a larger event on its own, before it joins
   * a batch (an engine error inside an append fails everything in it).
   */
  readonly maxEventBytes?: number;

  /**
   * Appends events to one stream if it is at `expected`. Rejects with
   * StreamVersionConflictError otherwise, appending nothing.
   */
  append(streamId: string, events: NewEvent[], expected: ExpectedVersion): Promise<AppendResult>;

  /** Events of one stream from version `fromVersion` (inclusive), in order, at most `limit`. */
  readStream(streamId: string, fromVersion?: number, limit?: number): Promise<RecordedEvent[]>;

  /**
   * readStream's events as the log stores them, their data and metadata as JSON text, unparsed:
   * for a reader that writes them again with few changes (the copy). Only a log that stores text
   * has it.
   */
  readStreamText?(streamId: string, fromVersion: number, limit: number): Promise<StoredEventText[]>;

  /** Current version of a stream (-1 when it does not exist). */
  streamVersion(streamId: string): Promise<number>;

  /** Events of all streams with position > `fromPosition`, in position order, at most `limit`. */
  readAll(fromPosition: number, limit: number): Promise<RecordedEvent[]>;

  /** Position of the last event in the log (0 when empty). */
  headPosition(): Promise<number>;

  /**
   * Catch-up subscription: delivers existing events after `fromPosition`, then
   * new ones as they are appended, in order, one batch at a time (the next batch
   * waits for the handler's promise). A handler that throws stops the subscription
   * and `onError` receives the error.
   */
  subscribe(options: SubscribeOptions, handler: (events: RecordedEvent[]) => Promise<void>): Subscription;

  close(): Promise<void>;
}

/** An event as a log that stores JSON text holds it (EventStore.readStreamText). */
export interface StoredEventText {
  position: number;
  streamId: string;
  streamVersion: number;
  type: string;
  json: EventJson;
}
