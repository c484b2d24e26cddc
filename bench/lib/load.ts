// autocannon ships no types; this module is the only place that touches it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as (options: Record<string, unknown>) => Promise<AutocannonResult>;

interface Histogram {
  average: number;
  p50: number;
  p90: number;
  p97_5: number;
  p99: number;
  max: number;
  total?: number;
}
interface AutocannonResult {
  requests: Histogram & { total: number };
  latency: Histogram;
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
}

export interface LoadSpec {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  headers?: Record<string, string>;
  /** Request bodies: a fixed one, or a function called for every request (creates keep their own counter, across runs). */
  body?: string | (() => string);
  connections: number;
  durationS: number;
  /** Requests per second over all connections (autocannon's overallRate); unset: as fast as the server answers. */
  rate?: number;
  /** Names the load in the profile phases (`--profile`). */
  label?: string;
  /**
   * A load that got no 2xx answer is a figure (0 req/s), not an error: for a peer that may not answer
   * at all within the load's seconds at high concurrency. Otherwise such a load throws.
   */
  noAnswerIsFigure?: boolean;
}

export interface LoadRun {
  /** 2xx answers per second over the run. */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  ok: number;
  non2xx: number;
  errors: number;
}

/** Drives one HTTP load with autocannon (in this process; the server runs in another). */
export async function runLoad(spec: LoadSpec): Promise<LoadRun> {
  const body = spec.body;
  const result = await autocannon({
    url: spec.url,
    method: spec.method ?? 'POST',
    headers: { 'content-type': 'application/json', ...spec.headers },
    connections: spec.connections,
    duration: spec.durationS,
    ...(spec.rate ? { overallRate: spec.rate } : {}),
    // A slow answer is a figure, not an error: wait for it (autocannon's default gives up after 10 s).
    timeout: Math.max(60, spec.durationS * 3),
    ...(typeof body === 'function'
      ? { requests: [{ setupRequest: (request: Record<string, unknown>) => ({ ...request, body: body() }) }] }
      : { body }),
  });
  if (result['2xx'] === 0 && !spec.noAnswerIsFigure) {
    throw new Error(
      `no 2xx answer from ${spec.url} in ${spec.durationS} s (${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts)`,
    );
  }
  const answered = result['2xx'] > 0;
  return {
    rps: result['2xx'] / result.duration,
    // Without an answer there is no latency to report (autocannon's percentiles read 0 then).
    p50Ms: answered ? result.latency.p50 : NaN,
    p99Ms: answered ? result.latency.p99 : NaN,
    maxMs: answered ? result.latency.max : NaN,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

export interface Repeated {
  /** The run with the median throughput. */
  median: LoadRun;
  runs: LoadRun[];
}

/** Runs the same load `times` times (after `warmupS` seconds of unrecorded load) and keeps every run. */
export async function repeatLoad(spec: LoadSpec, times: number, warmupS = 0): Promise<Repeated> {
  if (warmupS > 0) await runLoad({ ...spec, durationS: warmupS });
  const runs: LoadRun[] = [];
  for (let i = 0; i < times; i++) runs.push(await runLoad(spec));
  return { median: medianBy(runs, (run) => run.rps), runs };
}

/** The item whose `value` is the median (of an even count, the lower of the two middle ones): a run, not an average of runs. */
export function medianBy<T>(items: T[], value: (item: T) => number): T {
  return [...items].sort((a, b) => value(a) - value(b))[Math.floor((items.length - 1) / 2)]!;
}

/** One request of a mixed load: what to send, and a label to account its answer under. */
export interface MixedRequest {
  kind: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface MixedLoadSpec {
  url: string;
  connections: number;
  durationS: number;
  /** Called for every request as a connection is about to send it (closed loop: after its previous answer). */
  next(): MixedRequest;
  /** Every answer: its request's kind, status, latency, and the body of a non-2xx answer. */
  onAnswer(kind: string, status: number, latencyMs: number, errorBody: string | null): void;
  /** A request that got no answer (socket error, timeout). */
  onError(error: Error): void;
}

/**
 * A closed-loop load whose requests differ (method, path, headers, body) and
 * whose answers are reported one by one, for figures autocannon's summary does
 * not give (per kind, per minute). autocannon calls a request's `onResponse`
 * right before it emits the connection's `response` event with the latency,
 * so the kind is handed from one to the other through `answered`.
 */
export async function runMixedLoad(spec: MixedLoadSpec): Promise<{ durationS: number }> {
  let answered: { kind: string; status: number; body: string | null } | null = null;
  const instance = autocannon({
    url: spec.url,
    connections: spec.connections,
    duration: spec.durationS,
    timeout: 30,
    requests: [
      {
        setupRequest: (request: Record<string, unknown>, context: Record<string, unknown>) => {
          const next = spec.next();
          context.kind = next.kind;
          return { ...request, method: next.method, path: next.path, headers: next.headers, body: next.body };
        },
        onResponse: (status: number, body: string, context: Record<string, unknown>) => {
          answered = { kind: String(context.kind), status, body: status >= 200 && status < 300 ? null : String(body).slice(0, 300) };
        },
      },
    ],
  }) as unknown as Promise<AutocannonResult> & {
    on(event: 'response', listener: (client: unknown, status: number, bytes: number, latencyMs: number) => void): void;
    on(event: 'reqError', listener: (error: Error) => void): void;
  };
  instance.on('response', (_client, status, _bytes, latencyMs) => {
    const a = answered;
    answered = null;
    spec.onAnswer(a?.kind ?? 'unknown', status, latencyMs, a?.body ?? null);
  });
  instance.on('reqError', (error) => spec.onError(error));
  const result = await instance;
  return { durationS: result.duration };
}
