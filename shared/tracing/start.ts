import { tracing } from './spans';
import { tracingSettings, TracingSettingsError } from './settings';

let shutdown: (() => Promise<void>) | null = null;

/**
 * Starts tracing in this process (or worker thread) when the OTEL_* variables
 * ask for it (settings.ts), before anything instrumented is loaded: each entry
 * point imports its module of app/tracing/ first. Off, the SDK is never loaded
 * and @opentelemetry/api stays a no-op. Settings that cannot be right stop the
 * process with a message, as the service's own configuration does. Once per
 * process: a later call (a module that is an entry point elsewhere) does nothing.
 */
export function startTracing(defaultServiceName: string, role: string, env: NodeJS.ProcessEnv = process.env): void {
  if (tracing.on || shutdown) return;
  let settings;
  try {
    settings = tracingSettings(env);
  } catch (error) {
    if (!(error instanceof TracingSettingsError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
  if (!settings.on) return;
  // Loaded here and synchronously: the instrumentations must hook `require` before express, kafkajs… are loaded.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const sdk = require('./sdk') as typeof import('./sdk');
  shutdown = sdk.startSdk(defaultServiceName, role);
  tracing.on = true;
}

/** Exports the spans still buffered and stops the SDK (on shutdown); nothing when tracing is off. */
export async function stopTracing(): Promise<void> {
  const stop = shutdown;
  if (!stop) return;
  tracing.on = false;
  await stop().catch((error: unknown) => console.error('could not export the last spans:', error));
}
