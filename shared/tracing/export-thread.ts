import { parentPort } from 'node:worker_threads';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import type * as NodeHttp from '@opentelemetry/otlp-exporter-base/build/src/index-node-http';
import { ProtobufTraceSerializer, type IExporterMetricsHelper, type ISerializer } from '@opentelemetry/otlp-transformer';
import type { FromExportThread, ToExportThread } from './export-thread-messages';

/**
 * The export thread (thread-exporter.ts says why): the SDK's OTLP/HTTP export, as its protobuf
 * trace exporter builds it (the same delegate, configured from the same OTEL_EXPORTER_OTLP_*
 * variables: endpoint, headers, timeout, compression, certificates; a worker sees the process's
 * environment), sending requests the main thread has encoded already.
 */
// The package's `node-http` entry, which this project's module resolution (node10) does not read
// from its exports map: its types by their file, the module by its name, as Node resolves it.
const { convertLegacyHttpOptions, createOtlpHttpExportDelegate } =
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require('@opentelemetry/otlp-exporter-base/node-http') as typeof NodeHttp;
const spansIn = new WeakMap<Uint8Array, number>();
/** The request is encoded: serialising it is handing it over; answers are read as the SDK reads them. */
const encoded: ISerializer<Uint8Array, unknown> = {
  serializeRequest: (request) => request,
  deserializeResponse: (data) => ProtobufTraceSerializer.deserializeResponse(data),
};
const counted: IExporterMetricsHelper<Uint8Array> = { name: 'span', countItems: (request) => spansIn.get(request) ?? 0 };
const exporter = new OTLPExporterBase(
  createOtlpHttpExportDelegate(
    convertLegacyHttpOptions({}, 'TRACES', 'v1/traces', { 'Content-Type': 'application/x-protobuf' }),
    encoded,
    // The component type the SDK's OTLP/HTTP span exporter reports itself as.
    'otlp_http_span_exporter',
    counted,
    undefined,
  ),
);
const port = parentPort!;

port.on('message', (message: ToExportThread) => {
  const reply = (answer: Omit<FromExportThread, 'id'>) => port.postMessage({ id: message.id, ...answer } satisfies FromExportThread);
  const settled = (work: Promise<void>) =>
    work.then(
      () => reply({ code: ExportResultCode.SUCCESS }),
      (error: unknown) => reply({ code: ExportResultCode.FAILED, error: String(error) }),
    );
  switch (message.type) {
    case 'export':
      spansIn.set(message.request, message.spans);
      exporter.export(message.request, (result) => reply({ code: result.code, ...(result.error ? { error: result.error.message } : {}) }));
      return;
    case 'flush':
      return void settled(exporter.forceFlush());
    case 'shutdown':
      return void settled(exporter.shutdown());
  }
});
