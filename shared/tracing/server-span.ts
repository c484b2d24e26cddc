import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Context } from '@opentelemetry/api';
import { SERVER_SPAN, tracing } from './spans';

/** Probes and scrapes: a trace each would drown the ones that matter. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * The server span of each HTTP request, continuing the caller's `traceparent`/`tracestate`, with
 * the HTTP semantic conventions' attributes; the route names it once known (inRouteSpan, and the
 * express instrumentation). Ours rather than the HTTP instrumentation's, which prepares every
 * request (its attributes, a context, its emitters bound) before the sampler has spoken: here an
 * unsampled request costs a header read and the sampler's decision, and runs in no context at
 * all, so nothing inside it (our spans, express's, the database clients') makes a span either.
 * A sampled request's context is kept with the request, not entered: the listener enters it
 * (inRequestContext) for the code that finds its parent in the active context (express and its
 * routes, the create lanes, the clients' instrumentations), and a check lane carries it
 * explicitly instead (requestTraceContext), so that a traced check turns on no promise hooks.
 * Without tracing, the listener itself.
 */
export function tracedRequests(listener: RequestListener): RequestListener {
  if (!tracing.on) return listener;
  const tracer = trace.getTracer('rebac-service');
  return (req, res) => {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    if (UNTRACED_PATHS.has(path)) return listener(req, res);
    // A request that starts a trace is decided before its span exists (root-sampling.ts).
    if (req.headers.traceparent === undefined && !tracing.sampledNewTrace()) return listener(req, res);
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const method = req.method ?? 'HTTP';
    const span = tracer.startSpan(
      method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': method, 'url.path': path } },
      parent,
    );
    if (!span.isRecording()) return listener(req, res);
    span.setAttributes({
      'url.scheme': 'http',
      'network.protocol.version': req.httpVersion,
      'client.address': req.socket.remoteAddress ?? '',
      'user_agent.original': req.headers['user-agent'] ?? '',
    });
    (req as TracedRequest)[REQUEST_CONTEXT] = trace.setSpan(parent, span).setValue(SERVER_SPAN, span);
    let ended = false;
    const end = (aborted: boolean) => {
      if (ended) return;
      ended = true;
      span.setAttribute('http.response.status_code', res.statusCode);
      if (aborted) span.setStatus({ code: SpanStatusCode.ERROR, message: 'the connection closed before the answer was sent' });
      else if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
    res.once('finish', () => end(false));
    res.once('close', () => end(!res.writableFinished));
    listener(req, res);
  };
}

const REQUEST_CONTEXT = Symbol('request trace context');
const BOUND = Symbol('request emitters bound to its trace context');
type TracedRequest = IncomingMessage & { [REQUEST_CONTEXT]?: Context; [BOUND]?: true };

/** The context of the request's sampled server span, for code that carries it explicitly; undefined when the request is not traced. */
export function requestTraceContext(req: IncomingMessage): Context | undefined {
  return (req as TracedRequest)[REQUEST_CONTEXT];
}

/**
 * Runs `work` with the request's trace context active, for code that finds its parent span there
 * (express and its instrumentation, our spans under a route, the database clients'). The body's
 * events come from the connection's parser, outside this context: the request and response are
 * bound to it, so a handler reading the body (body-parser, a create lane) goes on in the trace.
 * An untraced request runs `work` as it is.
 */
export function inRequestContext<T>(req: IncomingMessage, res: ServerResponse, work: () => T): T {
  const traced = req as TracedRequest;
  const active = traced[REQUEST_CONTEXT];
  if (active === undefined) return work();
  if (traced[BOUND] === undefined) {
    traced[BOUND] = true;
    context.bind(active, req);
    context.bind(active, res);
  }
  return context.with(active, work);
}
