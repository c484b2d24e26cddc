import { join } from 'node:path';
import { ROOT } from './child';

/**
 * What one call of each tracing function costs while tracing is off, in nanoseconds, measured in
 * this process on the built modules (dist/shared/tracing, as the service runs them; nothing here
 * turns tracing on). Each call is made as the service's call sites make it: the options object and
 * the work closure allocated per call, the work run. The cost is the call's time less the time of
 * running that work directly, as a build without tracing would: the loop with the call and the
 * loop without it alternate, and each function's figure is the smallest difference of its rounds
 * (the least disturbed by the rest of the machine).
 */
export function tracePointCostsNs(names: Iterable<string>): Map<string, number | null> {
  const calls = callShapes();
  const costs = new Map<string, number | null>();
  for (const name of names) {
    const shape = calls[name];
    costs.set(name, shape ? costOf(shape) : null);
  }
  return costs;
}

/** A trace point's call and the same work without it. */
interface CallShape {
  traced: (i: number) => unknown;
  bare: (i: number) => unknown;
}

const ITERATIONS = 1_000_000;
const ROUNDS = 7;

function costOf(shape: CallShape): number {
  let best = Infinity;
  let sink = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const traced = timeLoop(shape.traced);
    const bare = timeLoop(shape.bare);
    sink += traced.sink + bare.sink;
    best = Math.min(best, (traced.ns - bare.ns) / ITERATIONS);
  }
  if (sink === -1) console.error('unreachable'); // keeps the results alive
  return Math.max(0, best);
}

function timeLoop(call: (i: number) => unknown): { ns: number; sink: number } {
  let sink = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < ITERATIONS; i++) if (call(i) === undefined) sink++;
  return { ns: Number(process.hrtime.bigint() - started), sink };
}

type Spans = typeof import('../../shared/tracing/spans');
type ServerSpan = typeof import('../../shared/tracing/server-span');
type TraceContext = typeof import('../../shared/tracing/trace-context');

/** Every exported tracing function the service calls on a request's path, as `<module>.<function>` (bench/lib/trace-point-counter.cjs names them so). */
function callShapes(): Record<string, CallShape> {
  // The built modules, as the service loads them (not the sources through this process's loader).
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a built file, by path, at run time
  const load = (name: string): unknown => require(join(ROOT, 'dist', 'shared', 'tracing', `${name}.js`));
  const spans = load('spans') as Spans;
  const server = load('server-span') as ServerSpan;
  const context = load('trace-context') as TraceContext;
  const done = Promise.resolve(0);
  const work = (_i: number) => done;
  const syncWork = (i: number) => i + 1;
  const options = (i: number) => ({ attributes: { 'rebac.n': i } });
  // A batch as the group commit, the command pipeline and the projection runner hand theirs over:
  // what they build for tracing from it (a list of callers, spans or carriers) is part of the cost.
  const batch = Array.from({ length: 4 }, () => ({ caller: undefined, span: undefined, metadata: {} }));
  // What the service's listener gets of a request to a traced path, with no `traceparent`.
  const request = { method: 'POST', url: '/allowed', headers: {} } as Parameters<ServerSpan['inRequestContext']>[0];
  const response = {} as Parameters<ServerSpan['inRequestContext']>[1];
  const listener = (_request: unknown, _response: unknown) => undefined;
  const tracedListener = server.tracedRequests(listener);
  return {
    'spans.traced': { traced: () => spans.traced(), bare: () => false },
    'spans.tracedContext': { traced: () => spans.tracedContext(), bare: () => undefined },
    'spans.inSpan': { traced: (i) => spans.inSpan('n', options(i), () => work(i)), bare: work },
    'spans.inSpanSync': { traced: (i) => spans.inSpanSync('n', options(i), () => syncWork(i)), bare: syncWork },
    'spans.inChildSpan': { traced: (i) => spans.inChildSpan('n', options(i), undefined, () => work(i)), bare: work },
    'spans.inRouteSpan': { traced: (i) => spans.inRouteSpan('POST', '/t', () => syncWork(i), 'fast'), bare: syncWork },
    'spans.inRouteSpanOf': { traced: (i) => spans.inRouteSpanOf(undefined, 'POST', '/t', () => work(i)), bare: work },
    'spans.inSpanForCarriers': {
      traced: (i) =>
        spans.inSpanForCarriers(
          'n',
          batch.map((event) => event.metadata),
          () => options(i).attributes,
          () => work(i),
        ),
      bare: work,
    },
    'spans.inSpanContinuing': { traced: (i) => spans.inSpanContinuing('n', undefined, options(i).attributes, () => work(i)), bare: work },
    'spans.spanIdsOf': { traced: () => spans.spanIdsOf(undefined), bare: () => undefined },
    'spans.activeSpanIds': { traced: () => spans.activeSpanIds(), bare: () => undefined },
    'spans.activeTraceCarrier': { traced: (i) => ({ n: i, ...spans.activeTraceCarrier() }), bare: (i) => ({ n: i }) },
    'spans.contextOfCarrier': { traced: () => spans.contextOfCarrier(undefined), bare: () => undefined },
    'spans.linksOfCarriers': { traced: () => spans.linksOfCarriers([undefined]), bare: () => undefined },
    'spans.startSpan': { traced: (i) => spans.startSpan('n', options(i)), bare: () => undefined },
    'spans.endSpan': { traced: () => spans.endSpan(undefined), bare: () => undefined },
    'spans.contextWithSpan': { traced: () => spans.contextWithSpan(batch.find((item) => item.span)?.span), bare: () => undefined },
    'spans.linksToSpans': {
      traced: () => spans.linksToSpans(batch.map((item) => item.span).filter((span) => span !== undefined)),
      bare: () => undefined,
    },
    'spans.activeSpanContext': { traced: () => spans.activeSpanContext(), bare: () => undefined },
    'spans.startSpanFor': {
      traced: (i) =>
        spans.startSpanFor(
          'n',
          batch.map((item) => item.caller),
          options(i).attributes,
        ),
      bare: () => undefined,
    },
    'server-span.request': { traced: () => tracedListener(request, response), bare: () => listener(request, response) },
    'server-span.requestTraceContext': { traced: () => server.requestTraceContext(request), bare: () => undefined },
    'server-span.inRequestContext': { traced: (i) => server.inRequestContext(request, response, () => syncWork(i)), bare: syncWork },
    'trace-context.traceIdOf': { traced: () => context.traceIdOf(undefined), bare: () => null },
  };
}
