import type { Worker } from 'node:worker_threads';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-node';
import { startWorkerModule } from '../threads/start-worker-module';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { FromExportThread, ToExportThread } from './export-thread-messages';

/**
 * Exports spans from a thread of their own (export-thread.ts), through the SDK's OTLP exporter there.
 *
 * Why not in this thread: the exporter's HTTP client runs the same Node stream and socket code as
 * the service's answers (Writable.write, OutgoingMessage's end…), with objects of other shapes. At
 * 1% sampling an export every few seconds made V8 throw away its optimised code for those
 * functions, and the requests in between ran them unoptimised until they were optimised again: a
 * cost on every request that an occasional export should not have (docs/tracing.md). On a thread of
 * its own the exporter's client runs in another isolate. The spans are encoded here, as the SDK's
 * protobuf exporter would (their objects cannot cross threads; copying their data across cost more
 * than encoding it), and the request's bytes go to the thread.
 */
export class ThreadExporter implements SpanExporter {
  private worker: Worker | null = null;
  private nextId = 0;
  private readonly waiting = new Map<number, (answer: FromExportThread) => void>();

  /** `env`: the variables the exporter is configured from (OTEL_EXPORTER_OTLP_*), the process's by default. */
  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    const request = ProtobufTraceSerializer.serializeRequest(spans);
    if (!request) return done({ code: ExportResultCode.FAILED, error: new Error('the spans could not be encoded') });
    this.send({ type: 'export', id: this.nextId++, request, spans: spans.length }, ({ code, error }) =>
      done(code === ExportResultCode.SUCCESS ? { code } : { code, error: new Error(error ?? 'the export failed') }),
    );
  }

  forceFlush(): Promise<void> {
    return this.ask('flush');
  }

  async shutdown(): Promise<void> {
    if (!this.worker) return;
    await this.ask('shutdown');
    await this.worker.terminate();
    this.worker = null;
  }

  private ask(type: 'flush' | 'shutdown'): Promise<void> {
    if (!this.worker) return Promise.resolve();
    return new Promise((resolve, reject) =>
      this.send({ type, id: this.nextId++ }, ({ code, error }) =>
        code === ExportResultCode.SUCCESS ? resolve() : reject(new Error(error)),
      ),
    );
  }

  private send(message: ToExportThread, answered: (answer: FromExportThread) => void): void {
    this.waiting.set(message.id, answered);
    const worker = this.thread();
    worker.ref(); // an export under way keeps the process alive until it is answered
    worker.postMessage(message);
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = startWorkerModule(__dirname, 'export-thread', { env: this.env });
    worker.unref();
    worker.on('message', (answer: FromExportThread) => {
      const answered = this.waiting.get(answer.id);
      this.waiting.delete(answer.id);
      if (this.waiting.size === 0) worker.unref();
      answered?.(answer);
    });
    // A thread that dies fails what it had; the next export starts another.
    const failed = (error: unknown) => {
      if (this.worker !== worker) return;
      this.worker = null;
      const message = `the export thread stopped: ${error instanceof Error ? error.message : String(error)}`;
      for (const [id, answered] of this.waiting) answered({ id, code: ExportResultCode.FAILED, error: message });
      this.waiting.clear();
    };
    worker.on('error', failed);
    worker.on('exit', (code) => failed(new Error(`exit code ${code}`)));
    this.worker = worker;
    return worker;
  }
}
