import type { Attributes, HrTime, Link, SpanContext, SpanKind, SpanStatus } from '@opentelemetry/api';
import type { ExportResultCode } from '@opentelemetry/core';
import type { TimedEvent } from '@opentelemetry/sdk-trace-node';

/**
 * A finished span as it crosses to the export thread (thread-exporter.ts): the ReadableSpan's data,
 * in what a structured clone carries. Its trace states travel as their header value, since a
 * TraceState's methods do not cross; its resource is the exporter's, sent once.
 */
export interface SpanData {
  name: string;
  kind: SpanKind;
  spanContext: ClonedSpanContext;
  parentSpanContext?: ClonedSpanContext;
  startTime: HrTime;
  endTime: HrTime;
  duration: HrTime;
  status: SpanStatus;
  attributes: Attributes;
  links: Array<Omit<Link, 'context'> & { context: ClonedSpanContext }>;
  events: TimedEvent[];
  ended: boolean;
  instrumentationScope: { name: string; version?: string; schemaUrl?: string };
  droppedAttributesCount: number;
  droppedEventsCount: number;
  droppedLinksCount: number;
}

export type ClonedSpanContext = Omit<SpanContext, 'traceState'> & { traceState?: string };

export type ToExportThread =
  | { type: 'export'; id: number; resource: Attributes; spans: SpanData[] }
  | { type: 'flush'; id: number }
  | { type: 'shutdown'; id: number };

/** The answer to a message of the same id: its outcome, and why it failed. */
export type FromExportThread = { id: number; code: ExportResultCode; error?: string };
