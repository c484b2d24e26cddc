/**
 * Whether this process traces, from the standard OpenTelemetry variables
 * (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/).
 * Tracing is off unless an OTLP endpoint is set; `OTEL_SDK_DISABLED=true` or
 * `OTEL_TRACES_EXPORTER=none` turn it off even then. A sampler the SDK does not
 * know, or a ratio outside [0, 1], stops the service at start (the SDK itself
 * would log and fall back to sampling everything).
 */
export type TracingSettings = { on: false; why: string } | { on: true; endpoint: string };

const SAMPLERS = new Set([
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
]);
const RATIO_SAMPLERS = new Set(['traceidratio', 'parentbased_traceidratio']);

/** The instrumentations the SDK loads (sdk.ts), by the names OTEL_NODE_(EN|DIS)ABLED_INSTRUMENTATIONS take. */
export const INSTRUMENTATIONS = ['http', 'express', 'kafkajs', 'mongodb', 'pg'] as const;
export type InstrumentationName = (typeof INSTRUMENTATIONS)[number];

export class TracingSettingsError extends Error {
  override readonly name = 'TracingSettingsError';
}

export function tracingSettings(env: NodeJS.ProcessEnv): TracingSettings {
  const value = (name: string) => env[name]?.trim() || undefined;
  if (value('OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return { on: false, why: 'OTEL_SDK_DISABLED=true' };
  if (value('OTEL_TRACES_EXPORTER')?.toLowerCase() === 'none') return { on: false, why: 'OTEL_TRACES_EXPORTER=none' };
  const exporter = value('OTEL_TRACES_EXPORTER')?.toLowerCase();
  if (exporter !== undefined && exporter !== 'otlp')
    throw new TracingSettingsError(`OTEL_TRACES_EXPORTER=${exporter} is not supported: 'otlp' (the default) or 'none'`);
  const protocol = value('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? value('OTEL_EXPORTER_OTLP_PROTOCOL');
  if (protocol !== undefined && protocol !== 'http/protobuf')
    throw new TracingSettingsError(`OTLP protocol ${protocol} is not supported: traces are sent as http/protobuf`);
  const sampler = value('OTEL_TRACES_SAMPLER')?.toLowerCase();
  if (sampler !== undefined && !SAMPLERS.has(sampler))
    throw new TracingSettingsError(`OTEL_TRACES_SAMPLER=${sampler} is not one of ${[...SAMPLERS].join(', ')}`);
  const ratio = value('OTEL_TRACES_SAMPLER_ARG');
  if (ratio !== undefined && sampler !== undefined && RATIO_SAMPLERS.has(sampler)) {
    const n = Number(ratio);
    if (!Number.isFinite(n) || n < 0 || n > 1)
      throw new TracingSettingsError(`OTEL_TRACES_SAMPLER_ARG=${ratio} must be a ratio between 0 and 1 (${sampler})`);
  }
  for (const name of ['OTEL_NODE_ENABLED_INSTRUMENTATIONS', 'OTEL_NODE_DISABLED_INSTRUMENTATIONS']) {
    const unknown = (value(name) ?? '')
      .split(',')
      .map((n) => n.trim())
      .filter((n) => n && !(INSTRUMENTATIONS as readonly string[]).includes(n));
    if (unknown.length > 0)
      throw new TracingSettingsError(`${name} names ${unknown.join(', ')}: the instrumentations are ${INSTRUMENTATIONS.join(', ')}`);
  }
  const endpoint = value('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? value('OTEL_EXPORTER_OTLP_ENDPOINT');
  if (endpoint === undefined) return { on: false, why: 'no OTEL_EXPORTER_OTLP_ENDPOINT' };
  if (!/^https?:\/\//.test(endpoint)) throw new TracingSettingsError(`the OTLP endpoint ${endpoint} must be an http:// or https:// URL`);
  return { on: true, endpoint };
}
