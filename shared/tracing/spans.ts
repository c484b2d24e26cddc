import {
  context,
  createContextKey,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanContext,
  type SpanOptions,
} from '@opentelemetry/api';

/**
 * Our own spans, where no instrumentation reaches (the command pipeline, the
 * read-your-writes wait, projection batches, checks, the copy task), through
 * the OpenTelemetry API. Until start.ts registers the SDK (only when an OTLP
 * endpoint is set), `tracing.on` is false and every helper here calls its work
 * straight away: no span object, no context switch, no attribute computed.
 */
export const tracing = {
  on: false,
  /**
   * Whether a request that starts a new trace is sampled, decided before any span exists
   * (root-sampling.ts); when it is, the next root span started takes the decided trace.
   */
  sampledNewTrace: (): boolean => true,
};

/** Where the request's server span is kept in its context (server-span.ts), for the route to name it. */
export const SERVER_SPAN = createContextKey('rebac server span');

export { SpanKind, type Context, type Span, type SpanContext };

const tracer = () => trace.getTracer('rebac-service');

/** What a helper hands its work when tracing is off: a span whose methods do nothing. */
const NO_SPAN: Span = trace.wrapSpanContext({ traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: TraceFlags.NONE });

/** Attributes computed only when the span records (a decision's reason, a batch's size). */
export type LazyAttributes = () => Attributes;

/** Whether the work about to run is in a sampled trace (our spans would be recorded): for hot paths that skip even a closure otherwise. */
export function traced(): boolean {
  return tracing.on && sampled(context.active());
}

/**
 * Whether work in this context is traced: its span is sampled (a local one being recorded, or a
 * caller's or an event's that was). Our spans exist only inside a sampled trace: outside one,
 * every helper here runs its work bare, so an unsampled request pays a flag test per helper.
 */
function sampled(parent: Context): boolean {
  const spanContext = trace.getSpanContext(parent);
  return spanContext !== undefined && (spanContext.traceFlags & TraceFlags.SAMPLED) !== 0;
}

/**
 * Runs `work` in a span named `name` (a child of `parent`, by default the active context, and only
 * when that is sampled), active for everything it awaits; the span ends when the promise settles,
 * with an error status (and the exception) if it rejects.
 */
export function inSpan<T>(name: string, options: SpanOptions, work: (span: Span) => Promise<T>, parent?: Context): Promise<T> {
  if (!tracing.on || !sampled(parent ?? context.active())) return work(NO_SPAN);
  const run = (span: Span) => endedWhenSettled(span, work(span));
  return parent === undefined ? tracer().startActiveSpan(name, options, run) : tracer().startActiveSpan(name, options, parent, run);
}

/** inSpan for synchronous work (a decider's decide). */
export function inSpanSync<T>(name: string, options: SpanOptions, work: (span: Span) => T, parent: Context = context.active()): T {
  if (!tracing.on || !sampled(parent)) return work(NO_SPAN);
  return tracer().startActiveSpan(name, options, parent, (span) => {
    try {
      return work(span);
    } catch (error) {
      failed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * The active context when work in it is traced, else undefined: the parent the explicit helpers
 * (inChildSpan) take by default when the caller runs in the active context (an express route).
 */
export function tracedContext(): Context | undefined {
  if (!tracing.on) return undefined;
  const active = context.active();
  return sampled(active) ? active : undefined;
}

/**
 * Runs `work` in a span that is a child of `parent`, handing it the span and the context to pass
 * on, without making that context the active one: for the hot paths that carry their trace
 * explicitly (a check answered by its fast lane), because on Node 20 entering an AsyncLocalStorage
 * context turns on promise hooks that every concurrent request then pays for (docs/tracing.md).
 * What runs inside and reads the active context (an instrumentation's client spans, a log line's
 * ids) does not see this span. Without a sampled parent, `work` runs bare with no context.
 */
export function inChildSpan<T>(
  name: string,
  options: SpanOptions,
  parent: Context | undefined,
  work: (span: Span, context: Context | undefined) => Promise<T>,
): Promise<T> {
  if (parent === undefined || !tracing.on || !sampled(parent)) return work(NO_SPAN, undefined);
  const span = tracer().startSpan(name, options, parent);
  let running: Promise<T>;
  try {
    running = work(span, trace.setSpan(parent, span));
  } catch (error) {
    failed(span, error);
    span.end();
    throw error;
  }
  return endedWhenSettled(span, running);
}

/** `running`, ending `span` when it settles: with an error status (and the exception) if it rejects. */
function endedWhenSettled<T>(span: Span, running: Promise<T>): Promise<T> {
  return running.then(
    (value) => {
      span.end();
      return value;
    },
    (error: unknown) => {
      failed(span, error);
      span.end();
      throw error;
    },
  );
}

/** The ids of the span a context holds, for a log line written outside it (explicitly carried traces); undefined when none. */
export function spanIdsOf(parent: Context | undefined): { trace_id: string; span_id: string } | undefined {
  const spanContext = parent === undefined ? undefined : trace.getSpanContext(parent);
  return spanContext && trace.isSpanContextValid(spanContext) ? { trace_id: spanContext.traceId, span_id: spanContext.spanId } : undefined;
}

function failed(span: Span, error: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
  if (error instanceof Error) span.recordException(error);
}

/** The trace context an event's metadata carries: the W3C headers' values. */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

/**
 * The active span's context as the `traceparent`/`tracestate` an event's
 * metadata carries, so the processes that handle the event (projections, the
 * task relay and worker) continue or link to this trace. Undefined when tracing
 * is off or the active trace is not sampled (nothing of it is recorded to link to).
 */
export function activeTraceCarrier(): TraceCarrier | undefined {
  if (!tracing.on) return undefined;
  const active = trace.getSpanContext(context.active());
  if (!active || (active.traceFlags & TraceFlags.SAMPLED) === 0) return undefined;
  const carrier: TraceCarrier = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ? carrier : undefined;
}

/** The context a carrier names (a parent for the work it caused); the root context when it names none. */
export function contextOfCarrier(carrier: TraceCarrier | undefined): Context {
  if (!tracing.on || !carrier?.traceparent) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, carrier);
}

/** Links to the spans that caused these events (their metadata's trace context), each once, at most `max`. */
export function linksOfCarriers(carriers: Iterable<TraceCarrier | undefined>, max = 64): Link[] {
  if (!tracing.on) return [];
  const links: Link[] = [];
  const seen = new Set<string>();
  for (const carrier of carriers) {
    if (!carrier?.traceparent || seen.has(carrier.traceparent)) continue;
    seen.add(carrier.traceparent);
    const spanContext = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, carrier));
    if (spanContext) links.push({ context: spanContext });
    if (links.length >= max) break;
  }
  return links;
}

/** The active span's ids, for log lines (shared/logger.ts); undefined when no span is active. */
export function activeSpanIds(): { trace_id: string; span_id: string } | undefined {
  return spanIdsOf(context.active());
}

/** A span started now in the active context and ended by the caller (work that outlives one call: a queued command); undefined when off. */
export function startSpan(name: string, options: SpanOptions): Span | undefined {
  return tracing.on && sampled(context.active()) ? tracer().startSpan(name, options) : undefined;
}

/** Ends a span started by startSpan, with an error status when `error` is given. */
export function endSpan(span: Span | undefined, error?: unknown): void {
  if (!span) return;
  if (error !== undefined) failed(span, error);
  span.end();
}

/** A context whose active span is `span` (a parent for work done on its behalf elsewhere); the active context when there is none. */
export function contextWithSpan(span: Span | undefined): Context {
  return span ? trace.setSpan(context.active(), span) : context.active();
}

/** Links to these spans (the other commands of a batch), at most `max`. */
export function linksToSpans(spans: Iterable<Span | undefined>, max = 64): Link[] {
  const links: Link[] = [];
  for (const span of spans) {
    if (span && links.length < max) links.push({ context: span.spanContext() });
  }
  return links;
}

/** The active span's context, to remember for work done later on its behalf (startSpanFor); undefined when off or none. */
export function activeSpanContext(): SpanContext | undefined {
  if (!tracing.on) return undefined;
  const active = trace.getSpanContext(context.active());
  return active && (active.traceFlags & TraceFlags.SAMPLED) !== 0 ? active : undefined;
}

/**
 * A span for work done at once for several callers (a group commit): a child
 * of the first caller that was traced, linked to the others. Undefined when
 * none was (work no traced request waits for makes no trace of its own).
 */
export function startSpanFor(name: string, callers: Iterable<SpanContext | undefined>, attributes: Attributes): Span | undefined {
  if (!tracing.on) return undefined;
  let parent: SpanContext | undefined;
  const links: Link[] = [];
  for (const caller of callers) {
    if (!caller) continue;
    if (!parent) parent = caller;
    else if (links.length < 64) links.push({ context: caller });
  }
  return parent ? tracer().startSpan(name, { attributes, links }, trace.setSpanContext(ROOT_CONTEXT, parent)) : undefined;
}

/**
 * Runs a route's handler in a span named after its route (`route POST /v2/facts/…/resource_instances`),
 * and names the request's server span after it too (the fast lanes answer without express, whose
 * instrumentation does that for its routes). `lane`: `fast` for a lane that stands in for the route.
 */
export function inRouteSpan<T>(
  method: string,
  template: string,
  work: () => T,
  lane: 'express' | 'fast' = 'express',
): T | Promise<Awaited<T>> {
  if (!traced()) return work();
  nameServerSpan(context.active(), method, template);
  return inSpan(
    `route ${method} ${template}`,
    { attributes: { 'http.route': template, 'rebac.lane': lane } },
    async (): Promise<Awaited<T>> => await work(),
  );
}

/** Names the request's server span (server-span.ts), kept in `request`, after the route that serves it. */
function nameServerSpan(request: Context, method: string, template: string): void {
  const server = request.getValue(SERVER_SPAN) as Span | undefined;
  server?.updateName(`${method} ${template}`);
  server?.setAttribute('http.route', template);
}

/**
 * inRouteSpan for a lane that carries its trace explicitly (inChildSpan says why): the route's
 * span is a child of the request's server span (`parent`, server-span.ts's requestTraceContext),
 * handed to `work` as the context to pass on; undefined when the request is not traced.
 */
export function inRouteSpanOf<T>(
  parent: Context | undefined,
  method: string,
  template: string,
  work: (context: Context | undefined) => Promise<T>,
): Promise<T> {
  if (parent === undefined) return work(undefined);
  nameServerSpan(parent, method, template);
  return inChildSpan(
    `route ${method} ${template}`,
    { attributes: { 'http.route': template, 'rebac.lane': 'fast' } },
    parent,
    (_span, route) => work(route),
  );
}

/**
 * Runs work done for several traced events (a projection batch) in a span of
 * the first one's trace, a child of the span that wrote it, linked to the
 * spans that wrote the others. Without a traced event among them, no span.
 */
export function inSpanForCarriers<T>(
  name: string,
  carriers: readonly (TraceCarrier | undefined)[],
  attributes: LazyAttributes,
  work: () => Promise<T>,
): Promise<T> {
  if (!tracing.on) return work();
  const first = carriers.find((carrier) => carrier?.traceparent);
  if (!first) return work();
  const links = linksOfCarriers(carriers.filter((carrier) => carrier?.traceparent !== first.traceparent));
  return inSpan(name, { attributes: attributes(), links }, work, contextOfCarrier(first));
}

/**
 * Runs work asked for by a message that carries a trace context (a copy task
 * from the queue) in a span continuing that trace: under the span active now
 * when it belongs to that trace (the Kafka instrumentation's consumer span,
 * itself under the producer's), else directly under the carried context. A
 * message without a trace context (tracing was off, or the trace not sampled) gets no span.
 */
export function inSpanContinuing<T>(
  name: string,
  carrier: TraceCarrier | undefined,
  attributes: Attributes,
  work: () => Promise<T>,
): Promise<T> {
  if (!tracing.on || !carrier?.traceparent) return work();
  const carried = contextOfCarrier(carrier);
  const active = trace.getSpanContext(context.active());
  const parent = active && active.traceId === trace.getSpanContext(carried)?.traceId ? context.active() : carried;
  return inSpan(name, { attributes, kind: SpanKind.CONSUMER }, work, parent);
}
