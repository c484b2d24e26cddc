import { ROOT_CONTEXT } from '@opentelemetry/api';
import { RandomIdGenerator, SamplingDecision, TraceIdRatioBasedSampler, type IdGenerator } from '@opentelemetry/sdk-trace-node';

/**
 * The sampling decision of a request that starts a trace (no `traceparent`), made before any span
 * exists. Starting a span only to learn that it is not sampled (ids, attributes, a non-recording
 * span, the SDK's sampler) costs a cached check a measurable share of its CPU (docs/tracing.md); here an
 * unsampled new trace costs one trace id and the ratio test on it. The decision is the one the
 * SDK's root sampler (OTEL_TRACES_SAMPLER, settings.ts) would make for that trace id, and a sampled
 * trace keeps it: this is also the provider's id generator, and the root span started right after
 * the decision takes that id. Loaded with the SDK only (sdk.ts).
 */
export class RootSampling implements IdGenerator {
  private readonly random = new RandomIdGenerator();
  private readonly decide: (traceId: string) => boolean;
  /** The id of a new trace decided as sampled, for the root span that starts next (synchronously). */
  private decided: string | undefined;

  constructor(env: NodeJS.ProcessEnv) {
    const sampler = (env.OTEL_TRACES_SAMPLER?.trim().toLowerCase() || 'parentbased_always_on').replace(/^parentbased_/, '');
    if (sampler === 'always_on') this.decide = () => true;
    else if (sampler === 'always_off') this.decide = () => false;
    else {
      // traceidratio; the SDK's default ratio is 1 (settings.ts has refused anything outside [0, 1]).
      const arg = env.OTEL_TRACES_SAMPLER_ARG?.trim();
      const ratio = new TraceIdRatioBasedSampler(arg ? Number(arg) : 1);
      this.decide = (traceId) => ratio.shouldSample(ROOT_CONTEXT, traceId).decision !== SamplingDecision.NOT_RECORD;
    }
  }

  /** Whether a new trace is sampled; when it is, the next root span started takes its id. */
  sampledNewTrace(): boolean {
    const traceId = this.random.generateTraceId();
    if (!this.decide(traceId)) return false;
    this.decided = traceId;
    return true;
  }

  generateTraceId(): string {
    const decided = this.decided;
    if (decided === undefined) return this.random.generateTraceId();
    this.decided = undefined;
    return decided;
  }

  generateSpanId(): string {
    return this.random.generateSpanId();
  }
}
