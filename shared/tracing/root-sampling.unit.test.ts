import { ROOT_CONTEXT } from '@opentelemetry/api';
import { SamplingDecision, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace-node';
import { RootSampling } from './root-sampling';

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
