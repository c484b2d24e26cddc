import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { registerInstrumentations, type Instrumentation } from '@opentelemetry/instrumentation';
import { INSTRUMENTATIONS, type InstrumentationName } from './settings';
import { ContextWhileTraced } from './context-while-traced';
import { RootSampling } from './root-sampling';
import { tracing } from './spans';
import { ThreadExporter } from './thread-exporter';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { KafkaJsInstrumentation } from '@opentelemetry/instrumentation-kafkajs';
import { MongoDBInstrumentation } from '@opentelemetry/instrumentation-mongodb';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';

/**
 * The OpenTelemetry SDK for this process or thread, loaded by start.ts only
 * when tracing is on. The sampler (OTEL_TRACES_SAMPLER, _ARG) and the exporter's
 * endpoint, headers and timeouts (OTEL_EXPORTER_OTLP_*) are read by the SDK
 * from the environment; the resource takes OTEL_SERVICE_NAME and
 * OTEL_RESOURCE_ATTRIBUTES over our defaults. Returns the SDK's shutdown, which
 * exports the spans still buffered.
 */
export function startSdk(defaultServiceName: string, role: string): () => Promise<void> {
  const resource = resourceFromAttributes({ 'service.name': defaultServiceName, 'rebac.process': role }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  const contextManager = new ContextWhileTraced();
  const rootSampling = new RootSampling(process.env);
  const provider = new NodeTracerProvider({
    resource,
    idGenerator: rootSampling,
    // The OTLP exporter runs on a thread of its own (thread-exporter.ts says why).
    spanProcessors: [contextManager, new BatchSpanProcessor(new ThreadExporter())],
  });
  tracing.sampledNewTrace = () => rootSampling.sampledNewTrace();
  // The W3C trace-context (and baggage) propagator: the default.
  provider.register({ contextManager });
  const disable = registerInstrumentations({
    tracerProvider: provider,
    instrumentations: chosen({
      http: () =>
        new HttpInstrumentation({
          // The server span is ours (server-span.ts): this instrumentation's costs every request a
          // quarter of a cached check's throughput, sampled or not. It traces the outgoing requests
          // (a check worker forwarding to the main process), inside a sampled trace only.
          disableIncomingRequestInstrumentation: true,
          requireParentforOutgoingSpans: true,
        }),
      // Routers and handlers only: a span per middleware (a dozen per request, each some microseconds) hides the route.
      express: () => new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
      kafkajs: () => new KafkaJsInstrumentation(),
      // Statements without their values: a query may name a user or carry a sealed secret.
      mongodb: () => new MongoDBInstrumentation({ enhancedDatabaseReporting: false }),
      pg: () => new PgInstrumentation({ enhancedDatabaseReporting: false }),
    }),
  });
  return async () => {
    disable();
    await provider.shutdown();
  };
}

/**
 * The instrumentations OTEL_NODE_ENABLED_INSTRUMENTATIONS and OTEL_NODE_DISABLED_INSTRUMENTATIONS
 * leave (comma-separated names, as the OpenTelemetry Node auto-instrumentation reads them):
 * all by default. settings.ts has refused names that are not ours.
 */
function chosen(all: Record<InstrumentationName, () => Instrumentation>): Instrumentation[] {
  const list = (name: string) => {
    const names = (process.env[name] ?? '')
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean);
    return names.length > 0 ? names : undefined;
  };
  const enabled = list('OTEL_NODE_ENABLED_INSTRUMENTATIONS');
  const disabled = new Set(list('OTEL_NODE_DISABLED_INSTRUMENTATIONS'));
  return INSTRUMENTATIONS.filter((name) => (enabled ? enabled.includes(name) : true) && !disabled.has(name)).map((name) => all[name]());
}
