import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { RequestListener } from 'node:http';
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
    const active = trace.setSpan(parent, span).setValue(SERVER_SPAN, span);
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
    // The body's events come from the connection's parser, outside this context: bound to it, so a
    // handler reading the body (the fast lanes, body-parser) goes on in the request's trace.
    context.bind(active, req);
    context.bind(active, res);
    context.with(active, () => listener(req, res));
  };
}
