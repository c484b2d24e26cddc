import type { ExportResultCode } from '@opentelemetry/core';

/**
 * What crosses to the export thread (thread-exporter.ts): a batch of spans already encoded as an
 * OTLP protobuf request, and how many spans it holds (for the exporter's own span counts).
 */
export type ToExportThread =
  { type: 'export'; id: number; request: Uint8Array; spans: number } | { type: 'flush'; id: number } | { type: 'shutdown'; id: number };

/** The answer to a message of the same id: its outcome, and why it failed. */
export type FromExportThread = { id: number; code: ExportResultCode; error?: string };
