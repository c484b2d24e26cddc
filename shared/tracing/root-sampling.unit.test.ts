import { ROOT_CONTEXT } from '@opentelemetry/api';
import { SamplingDecision, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace-node';
import { RootSampling, samplingBound, traceIdAccumulatingTo } from './root-sampling';

describe('RootSampling: a new trace decided before its span', () => {
  it('samples every new trace with the default sampler and with always_on, none with always_off', () => {
    for (const env of [{}, { OTEL_TRACES_SAMPLER: 'always_on' }, { OTEL_TRACES_SAMPLER: 'parentbased_always_on' }]) {
      const sampling = new RootSampling(env);
      expect(Array.from({ length: 50 }, () => sampling.sampledNewTrace()).every(Boolean)).toBe(true);
    }
    for (const env of [{ OTEL_TRACES_SAMPLER: 'always_off' }, { OTEL_TRACES_SAMPLER: 'parentbased_always_off' }]) {
      const sampling = new RootSampling(env);
      expect(Array.from({ length: 50 }, () => sampling.sampledNewTrace()).some(Boolean)).toBe(false);
    }
  });

  it("decides a ratio as the SDK's sampler does for the trace id the root span then takes", () => {
    const sampling = new RootSampling({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' });
    const sdk = new TraceIdRatioBasedSampler(0.25);
    let sampled = 0;
    for (let i = 0; i < 2000; i++) {
      if (!sampling.sampledNewTrace()) continue;
      sampled++;
      const traceId = sampling.generateTraceId();
      expect(sdk.shouldSample(ROOT_CONTEXT, traceId).decision).toBe(SamplingDecision.RECORD_AND_SAMPLED);
      // The decided id is taken once: the next root span (not decided here) gets a new one.
      expect(sampling.generateTraceId()).not.toBe(traceId);
    }
    expect(sampled).toBeGreaterThan(350);
    expect(sampled).toBeLessThan(650);
  });

  it("finds the SDK ratio sampler's bound: an id just below it is sampled, one at it is not, whatever its other words", () => {
    for (const ratio of [0, 0.001, 0.01, 0.25, 0.5, 0.999, 1]) {
      const sdk = new TraceIdRatioBasedSampler(ratio);
      const decides = (traceId: string) => sdk.shouldSample(ROOT_CONTEXT, traceId).decision;
      const bound = samplingBound(sdk);
      expect(bound).toBeGreaterThanOrEqual(0);
      expect(bound).toBeLessThanOrEqual(2 ** 32);
      for (let i = 0; i < 20; i++) {
        if (bound > 0) expect(decides(traceIdAccumulatingTo(bound - 1))).toBe(SamplingDecision.RECORD_AND_SAMPLED);
        if (bound > 0) expect(decides(traceIdAccumulatingTo(Math.floor(Math.random() * bound)))).toBe(SamplingDecision.RECORD_AND_SAMPLED);
        if (bound < 2 ** 32) expect(decides(traceIdAccumulatingTo(bound))).toBe(SamplingDecision.NOT_RECORD);
      }
    }
    expect(samplingBound(new TraceIdRatioBasedSampler(0))).toBe(0);
    expect(samplingBound(new TraceIdRatioBasedSampler(1))).toBe(2 ** 32);
  });

  it('makes valid, different ids of the accumulation it is given', () => {
    const ids = new Set<string>();
    for (const accumulation of [0, 1, 0xffffffff, 123456789]) {
      for (let i = 0; i < 50; i++) {
        const id = traceIdAccumulatingTo(accumulation);
        expect(id).toMatch(/^[0-9a-f]{32}$/);
        expect(id).not.toBe('0'.repeat(32));
        const words = [0, 8, 16, 24].map((at) => parseInt(id.slice(at, at + 8), 16));
        expect(words.reduce((xor, word) => (xor ^ word) >>> 0, 0)).toBe(accumulation);
        ids.add(id);
      }
    }
    expect(ids.size).toBe(200);
  });

  it('takes the ratio as 1 when none is given, and 0 as none', () => {
    const all = new RootSampling({ OTEL_TRACES_SAMPLER: 'traceidratio' });
    const none = new RootSampling({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' });
    expect(Array.from({ length: 50 }, () => all.sampledNewTrace()).every(Boolean)).toBe(true);
    expect(Array.from({ length: 50 }, () => none.sampledNewTrace()).some(Boolean)).toBe(false);
  });

  it('generates valid ids otherwise', () => {
    const sampling = new RootSampling({});
    expect(sampling.generateTraceId()).toMatch(/^[0-9a-f]{32}$/);
    expect(sampling.generateSpanId()).toMatch(/^[0-9a-f]{16}$/);
  });
});
