import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SpanKind, SpanStatusCode, TraceFlags, createTraceState } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { ThreadExporter } from './thread-exporter';

/** An OTLP/HTTP receiver that keeps what it is sent. */
async function receiver(): Promise<{ url: string; received: Array<{ path: string; type: string; body: Buffer }>; close(): Promise<void> }> {
  const received: Array<{ path: string; type: string; body: Buffer }> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', type: req.headers['content-type'] ?? '', body: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': 'application/x-protobuf', 'content-length': 0 }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const span = (name: string): ReadableSpan => ({
  name,
  kind: SpanKind.SERVER,
  spanContext: () => ({
    traceId: TRACE_ID,
    spanId: '00f067aa0ba902b7',
    traceFlags: TraceFlags.SAMPLED,
    traceState: createTraceState('vendor=one'),
  }),
  parentSpanContext: { traceId: TRACE_ID, spanId: '1111111111111111', traceFlags: TraceFlags.SAMPLED },
  startTime: [1_700_000_000, 0],
  endTime: [1_700_000_000, 5_000_000],
  duration: [0, 5_000_000],
  status: { code: SpanStatusCode.OK },
  attributes: { 'http.route': '/allowed', 'rebac.n': 3 },
  links: [{ context: { traceId: TRACE_ID, spanId: '2222222222222222', traceFlags: TraceFlags.SAMPLED } }],
  events: [{ name: 'decided', time: [1_700_000_000, 1_000_000], attributes: { allow: true } }],
  ended: true,
  resource: resourceFromAttributes({ 'service.name': 'thread-exporter-test' }),
  instrumentationScope: { name: 'rebac-service' },
  droppedAttributesCount: 0,
  droppedEventsCount: 0,
  droppedLinksCount: 0,
});

const exported = (exporter: ThreadExporter, spans: ReadableSpan[]) =>
  new Promise<{ code: number; error?: Error }>((resolve) => exporter.export(spans, resolve));

describe('ThreadExporter: spans exported by the OTLP exporter on a thread of its own', () => {
  it('sends them as OTLP protobuf to the endpoint the environment names, and reports success', async () => {
    const otlp = await receiver();
    const exporter = new ThreadExporter({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url });
    try {
      const result = await exported(exporter, [span('POST /allowed'), span('check')]);
      expect(result.error?.message).toBeUndefined();
      expect(result.code).toBe(0);
      expect(otlp.received).toHaveLength(1);
      const [request] = otlp.received;
      expect(request!.path).toBe('/v1/traces');
      expect(request!.type).toBe('application/x-protobuf');
      // The names, the resource and the trace state as strings; the trace id as its 16 bytes.
      for (const text of ['POST /allowed', 'check', 'thread-exporter-test', 'vendor=one', '/allowed', 'decided']) {
        expect(request!.body.includes(Buffer.from(text))).toBe(true);
      }
      expect(request!.body.includes(Buffer.from(TRACE_ID, 'hex'))).toBe(true);
      expect(request!.body.includes(Buffer.from('2222222222222222', 'hex'))).toBe(true);
    } finally {
      await exporter.shutdown();
      await otlp.close();
    }
  });

  it('reports a failure when nothing listens at the endpoint', async () => {
    const otlp = await receiver();
    const closed = otlp.url;
    await otlp.close();
    const failing = new ThreadExporter({ OTEL_EXPORTER_OTLP_ENDPOINT: closed, OTEL_EXPORTER_OTLP_TIMEOUT: '2000' });
    try {
      const result = await exported(failing, [span('lost')]);
      expect(result.code).toBe(1);
      expect(result.error).toBeInstanceOf(Error);
    } finally {
      await failing.shutdown();
    }
  }, 30_000);
});
