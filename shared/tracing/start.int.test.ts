import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * startTracing in a fresh Node process (each test its own: the SDK registers process-wide globals),
 * reporting whether the SDK was loaded and tracing turned on.
 */
const ROOT = resolve(__dirname, '../..');
const PROBE = `
  require('./shared/tracing/start').startTracing('probe', 'test');
  const loaded = Object.keys(require.cache).filter((path) => /@opentelemetry[\\\\/](sdk-trace|exporter|instrumentation)/.test(path));
  console.log(JSON.stringify({ on: require('./shared/tracing/spans').tracing.on, sdkModules: loaded.length }));
  return require('./shared/tracing/start').stopTracing();
`;

function probe(env: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
  const withoutOtel = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_')));
  const run = spawnSync(process.execPath, ['-r', '@swc-node/register', '-e', `(async () => {${PROBE}})()`], {
    cwd: ROOT,
    env: { ...withoutOtel, ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { status: run.status, stdout: run.stdout.trim(), stderr: run.stderr.trim() };
}

describe('startTracing', () => {
  it('loads no SDK and leaves tracing off without an endpoint', () => {
    const run = probe({ OTEL_TRACES_SAMPLER: 'always_on', OTEL_SERVICE_NAME: 'x' });
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ on: false, sdkModules: 0 });
  });

  it('loads no SDK with OTEL_SDK_DISABLED=true, endpoint or not', () => {
    const run = probe({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_SDK_DISABLED: 'true' });
    expect(JSON.parse(run.stdout)).toEqual({ on: false, sdkModules: 0 });
  });

  it('starts the SDK and its instrumentations with an endpoint', () => {
    const run = probe({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
    expect(run.status).toBe(0);
    const state = JSON.parse(run.stdout) as { on: boolean; sdkModules: number };
    expect(state.on).toBe(true);
    expect(state.sdkModules).toBeGreaterThan(0);
  });

  it('stops the process with the reason when a setting cannot be right', () => {
    const run = probe({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_TRACES_SAMPLER: 'sometimes' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('OTEL_TRACES_SAMPLER=sometimes is not one of');
    expect(run.stdout).toBe('');
  });
});
