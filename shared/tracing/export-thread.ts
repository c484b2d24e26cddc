import { parentPort } from 'node:worker_threads';
import { createTraceState } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-node';
import type { ClonedSpanContext, FromExportThread, SpanData, ToExportThread } from './export-thread-messages';

/**
 * The export thread (thread-exporter.ts says why): the SDK's own OTLP exporter, configured from the
 * same OTEL_EXPORTER_OTLP_* variables as it would be in the process's main thread (a worker sees
 * the process's environment), exporting the spans the main thread sends.
 */
const exporter = new OTLPTraceExporter();
const port = parentPort!;

port.on('message', (message: ToExportThread) => {
  const reply = (answer: Omit<FromExportThread, 'id'>) => port.postMessage({ id: message.id, ...answer } satisfies FromExportThread);
  const settled = (work: Promise<void>) =>
    work.then(
      () => reply({ code: ExportResultCode.SUCCESS }),
      (error: unknown) => reply({ code: ExportResultCode.FAILED, error: String(error) }),
    );
  switch (message.type) {
    case 'export': {
      const resource = resourceFromAttributes(message.resource);
      exporter.export(
        message.spans.map((span) => readable(span, resource)),
        (result) => reply({ code: result.code, ...(result.error ? { error: result.error.message } : {}) }),
      );
      return;
    }
    case 'flush':
      return void settled(exporter.forceFlush());
    case 'shutdown':
      return void settled(exporter.shutdown());
  }
});

function readable(span: SpanData, resource: ReadableSpan['resource']): ReadableSpan {
  const spanContext = restored(span.spanContext);
  return {
    ...span,
    spanContext: () => spanContext,
    parentSpanContext: span.parentSpanContext && restored(span.parentSpanContext),
    links: span.links.map((link) => ({ ...link, context: restored(link.context) })),
    resource,
  };
}

function restored({ traceState, ...context }: ClonedSpanContext): ReturnType<ReadableSpan['spanContext']> {
  return traceState === undefined ? context : { ...context, traceState: createTraceState(traceState) };
}
