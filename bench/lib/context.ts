import type { Baseline } from './baseline';
import type { Check, Dataset } from './dataset';
import type { HttpClient } from './http';
import { repeatLoad, type LoadSpec, type Repeated } from './load';
import type { BenchOptions } from './options';
import type { RunningService } from './service';

/** What the scenarios share within one run. */
export interface BenchContext {
  options: BenchOptions;
  /** The service under test, loaded with `dataset`. */
  service: RunningService;
  /** Environment-scoped client (facts API, `/allowed`). */
  api: HttpClient;
  dataset: Dataset;
  checks: Check[];
  baseline: Baseline;
  log(message: string): void;
  /**
   * The bare-express baseline for answers of `bytes` bytes at `connections`, measured once per run and shape.
   * `requestBodies` (default a tiny JSON object) are the bodies it parses, for rows whose requests are large.
   */
  baselineFor(bytes: number, connections: number, requestBodies?: { label: string; next: () => string }): Promise<Repeated>;
  /** Load against the service with the run's duration, repeats and warm-up; a labelled load is recorded in `phases`. */
  measure(spec: Omit<LoadSpec, 'durationS'>): Promise<Repeated>;
  /** When each labelled load ran, in seconds since the server process started (to cut its CPU profile with bench/profile-summary.ts --phase). */
  phases: Phase[];
}

export interface Phase {
  label: string;
  fromS: number;
  toS: number;
}

export function baselineCache(options: BenchOptions, baseline: Baseline, log: (m: string) => void) {
  const cache = new Map<string, Promise<Repeated>>();
  return (bytes: number, connections: number, requestBodies?: { label: string; next: () => string }): Promise<Repeated> => {
    // Answers within a few bytes (or, above 256, a few hundred) of each other cost express the same; round so rows share a baseline.
    const rounded =
      bytes < 64 ? Math.max(16, Math.round(bytes / 8) * 8) : bytes < 256 ? Math.round(bytes / 32) * 32 : Math.round(bytes / 256) * 256;
    const key = `${rounded}@${connections}@${requestBodies?.label ?? ''}`;
    let measured = cache.get(key);
    if (!measured) {
      log(
        `baseline: bare express, ${requestBodies ? `parsing ${requestBodies.label}, ` : ''}${rounded}-byte JSON answers, ${connections} connections`,
      );
      const body = requestBodies?.next ?? '{"a":1}';
      measured = repeatLoad(
        { url: baseline.route(rounded), body, connections, durationS: options.durationS },
        options.repeat,
        options.warmupS,
      );
      cache.set(key, measured);
    }
    return measured;
  };
}
