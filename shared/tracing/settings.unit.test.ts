import { tracingSettings } from './settings';

describe('tracingSettings (the OTEL_* variables)', () => {
  it('is off without an OTLP endpoint, whatever else is set', () => {
    expect(tracingSettings({})).toEqual({ on: false, why: 'no OTEL_EXPORTER_OTLP_ENDPOINT' });
    expect(tracingSettings({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on', OTEL_EXPORTER_OTLP_ENDPOINT: ' ' }).on).toBe(false);
  });

  it('is on with the general or the traces endpoint (the traces one wins)', () => {
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toEqual({
      on: true,
      endpoint: 'http://127.0.0.1:4318',
    });
    expect(
      tracingSettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://b:4318/v1/traces',
      }),
    ).toEqual({ on: true, endpoint: 'https://b:4318/v1/traces' });
  });

  it('is off when the SDK is disabled or the traces exporter is none, endpoint or not', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    expect(tracingSettings({ ...endpoint, OTEL_SDK_DISABLED: 'TRUE' })).toEqual({ on: false, why: 'OTEL_SDK_DISABLED=true' });
    expect(tracingSettings({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toEqual({ on: false, why: 'OTEL_TRACES_EXPORTER=none' });
    expect(tracingSettings({ ...endpoint, OTEL_SDK_DISABLED: 'false' }).on).toBe(true);
  });

  it('refuses what it would otherwise ignore: unknown samplers, ratios out of range, other exporters and protocols, endpoints that are no URL', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    expect(() => tracingSettings({ ...endpoint, OTEL_TRACES_SAMPLER: 'jaeger_remote' })).toThrow(/OTEL_TRACES_SAMPLER=jaeger_remote/);
    expect(() => tracingSettings({ ...endpoint, OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1.5' })).toThrow(
      /between 0 and 1/,
    );
    expect(() =>
      tracingSettings({ ...endpoint, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: 'half' }),
    ).toThrow(/OTEL_TRACES_SAMPLER_ARG=half/);
    expect(() => tracingSettings({ ...endpoint, OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(/not supported/);
    expect(() => tracingSettings({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/http\/protobuf/);
    expect(() => tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: '127.0.0.1:4318' })).toThrow(/http:\/\/ or https:\/\//);
    expect(tracingSettings({ ...endpoint, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.01' }).on).toBe(
      true,
    );
  });
});
