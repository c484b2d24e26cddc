import { z } from 'zod';

/** Bumped when an event's data changes shape; upcasters key on it. */
export const CURRENT_SCHEMA_VERSION = 1;

export const eventMetadataSchema = z.object({
  /** API key id that caused the event; null for the system (bootstrap, tasks). */
  actor: z.string().nullable(),
  requestId: z.string().optional(),
  correlationId: z.string().optional(),
  causationId: z.string().optional(),
  /** ISO 8601 time the command was accepted; read models take created_at from it. */
  timestamp: z.string(),
  schemaVersion: z.number().int(),
  /**
   * What the writer said about the change (`X-Audit-Metadata`: a ticket, a
   * reason), a small JSON object; absent when none was given, and on every
   * event written before it existed.
   */
  auditMetadata: z.record(z.string(), z.unknown()).optional(),
  /**
   * The W3C trace context of the span that wrote the event (the request's, or
   * the caller's it continued), when tracing was on and the trace sampled: the
   * projections link their batch to it, the task service continues it, the
   * audit log shows its trace id (docs/tracing.md).
   */
  traceparent: z.string().optional(),
  tracestate: z.string().optional(),
});
export type EventMetadata = z.infer<typeof eventMetadataSchema>;

/** What a decider returns: the event without its metadata. */
export interface EventData<T extends string = string, D = unknown> {
  type: T;
  data: D;
}

/** An event ready to append. */
export interface NewEvent<E extends EventData = EventData> {
  type: E['type'];
  data: E['data'];
  metadata: EventMetadata;
}

/** An event as the log holds it. `position` is its place in the global log (1, 2, …). */
export interface RecordedEvent<E extends EventData = EventData> extends NewEvent<E> {
  streamId: string;
  /** 0-based index of the event inside its stream. */
  streamVersion: number;
  position: number;
}

/** Stream naming (DESIGN §3): one stream per environment, one per organisation, one per task. */
export const streams = {
  organization: (orgId: string) => `org-${orgId}`,
  environment: (envId: string) => `env-${envId}`,
  task: (taskId: string) => `task-${taskId}`,
} as const;

export function streamCategory(streamId: string): { category: string; id: string } {
  const dash = streamId.indexOf('-');
  return dash < 0 ? { category: streamId, id: '' } : { category: streamId.slice(0, dash), id: streamId.slice(dash + 1) };
}

/**
 * A union of events as recorded, one member per event type, so that a
 * `switch` or a handler map on `type` narrows `data` (RecordedEvent<Union>
 * would pair any type with any data).
 */
export type RecordedOf<E extends EventData> = E extends EventData ? RecordedEvent<E> : never;
