import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { KafkaJsInstrumentation } from '@opentelemetry/instrumentation-kafkajs';
import { MongoDBInstrumentation } from '@opentelemetry/instrumentation-mongodb';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';

/** Probes and scrapes: a trace each would drown the ones that matter. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

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
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
  // The W3C trace-context propagator and an AsyncLocalStorage context manager: the defaults.
  provider.register();
  const disable = registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? '').split('?')[0]!),
        // The service makes no outgoing HTTP calls of its own but forwards (check workers) and the exporter's.
        requireParentforOutgoingSpans: true,
      }),
      // Routers and handlers only: a span per middleware (a dozen per request, each some microseconds) hides the route.
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
      new KafkaJsInstrumentation(),
      // Statements without their values: a query may name a user or carry a sealed secret.
      new MongoDBInstrumentation({ enhancedDatabaseReporting: false }),
      new PgInstrumentation({ enhancedDatabaseReporting: false }),
    ],
  });
  return async () => {
    disable();
    await provider.shutdown();
  };
}
