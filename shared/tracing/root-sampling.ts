import { ROOT_CONTEXT, SpanKind } from '@opentelemetry/api';
import {
  RandomIdGenerator,
  SamplingDecision,
  TraceIdRatioBasedSampler,
  type IdGenerator,
  type Sampler,
} from '@opentelemetry/sdk-trace-node';

/**
 * The sampling decision of a request that starts a trace (no `traceparent`), made before any span
 * exists. Starting a span only to learn that it is not sampled (ids, attributes, a non-recording
 * span, the SDK's sampler) costs a cached check a measurable share of its CPU (docs/tracing.md);
 * here an unsampled new trace costs one random 32-bit number and a comparison. The decision is the
 * one the SDK's root sampler (OTEL_TRACES_SAMPLER, settings.ts) would make for the trace id, and a
 * sampled trace keeps it: this is also the provider's id generator, and the root span started
 * right after the decision takes that id. Loaded with the SDK only (sdk.ts).
 *
 * How the number stands for the id: the SDK's ratio sampler decides on the XOR of a trace id's four
 * 32-bit words (its "accumulation"), sampling those below a bound. So a new trace draws its
 * accumulation first, and only when that is sampled makes an id: three random words and a fourth
 * that XORs them to it, which is a uniformly random id among those the SDK samples. The bound is
 * not copied from the SDK's code but found from its sampler at start (`samplingBound`): always_on
 * and always_off are the bounds 2^32 and 0.
 */
export class RootSampling implements IdGenerator {
  private readonly random = new RandomIdGenerator();
  /** New traces whose accumulation is below this are sampled. */
  private readonly bound: number;
  /** The id of a new trace decided as sampled, for the root span that starts next (synchronously). */
  private decided: string | undefined;

  constructor(env: NodeJS.ProcessEnv) {
    const sampler = (env.OTEL_TRACES_SAMPLER?.trim().toLowerCase() || 'parentbased_always_on').replace(/^parentbased_/, '');
    if (sampler === 'always_on') this.bound = WORDS;
    else if (sampler === 'always_off') this.bound = 0;
    else {
      // traceidratio; the SDK's default ratio is 1 (settings.ts has refused anything outside [0, 1]).
      const arg = env.OTEL_TRACES_SAMPLER_ARG?.trim();
      this.bound = samplingBound(new TraceIdRatioBasedSampler(arg ? Number(arg) : 1));
    }
  }

  /** Whether a new trace is sampled; when it is, the next root span started takes its id. */
  sampledNewTrace(): boolean {
    const accumulation = randomWord();
    if (accumulation >= this.bound) return false;
    this.decided = traceIdAccumulatingTo(accumulation);
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

/** How many values a 32-bit word takes. */
const WORDS = 2 ** 32;

const randomWord = (): number => (Math.random() * WORDS) >>> 0;

const hexWord = (word: number): string => word.toString(16).padStart(8, '0');

/** A random valid trace id whose four words XOR to `accumulation`. */
export function traceIdAccumulatingTo(accumulation: number): string {
  for (;;) {
    const [a, b, c] = [randomWord(), randomWord(), randomWord()];
    const d = (accumulation ^ a ^ b ^ c) >>> 0;
    if (a === 0 && b === 0 && c === 0 && d === 0) continue; // the one invalid id
    return hexWord(a) + hexWord(b) + hexWord(c) + hexWord(d);
  }
}

/**
 * The least accumulation the sampler does not sample (2^32 when it samples all), asked of the
 * sampler itself by bisection over ids of each accumulation: it samples exactly the ids below a
 * bound, so the answer is the decision it makes for any id.
 */
export function samplingBound(sampler: Sampler): number {
  const sampled = (accumulation: number) =>
    sampler.shouldSample(ROOT_CONTEXT, idOfAccumulation(accumulation), '', SpanKind.SERVER, {}, []).decision !==
    SamplingDecision.NOT_RECORD;
  let low = 0; // every accumulation below is sampled
  let high = WORDS; // this one and every one above is not (or it is the end)
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (sampled(middle)) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** A valid trace id (its second word is not zero) whose words XOR to `accumulation`. */
const idOfAccumulation = (accumulation: number): string => hexWord((accumulation ^ 1) >>> 0) + hexWord(1) + hexWord(0) + hexWord(0);
