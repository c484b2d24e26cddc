import type { Request, RequestHandler, Response } from 'express';
import type { HttpMetrics } from '../../shared/metrics/metrics';
import type { ApiRegistry } from './openapi';

const ROUTE = 'routeTemplate';
const STARTED = 'metricsStartedAt';

/** The route label of a request that matched no route (bounded: never the raw path). */
export const UNMATCHED_ROUTE = 'unmatched';

/** The service's own endpoints outside the API, labelled by their path. */
const SYSTEM_PATHS = new Set(['/healthz', '/healthy', '/readyz', '/healthchecks/opa/ready', '/openapi.json', '/metrics']);

/**
 * Names the route of this request in the metrics: its path template.
 * `route()` does it for every declared route; an endpoint served otherwise
 * may call it with a fixed label (anything but the raw path).
 */
export function labelRoute(res: Response, template: string): void {
  const alias = res.locals[ALIAS] as [from: string, to: string] | undefined;
  res.locals[ROUTE] = alias !== undefined && template.startsWith(alias[0]) ? `${alias[1]}${template.slice(alias[0].length)}` : template;
}

const ALIAS = 'routeAlias';

/**
 * For a request routed through another path's handlers (the PDP's `/facts/…`, pdp-facts.ts): the
 * route `labelRoute` is given under `from` is labelled under `to`, the template the client called.
 */
export function labelRoutesUnder(res: Response, from: string, to: string): void {
  res.locals[ALIAS] = [from, to];
}

/**
 * Counts every answered request by route, method and status, and observes its
 * latency. Per request it takes the time, adds one shared listener and, at
 * the end, increments a counter kept for that route, method and status: no
 * closure, no label object, no string built for a request that a route took.
 * A request refused before a route took it (401, 404 on an unknown
 * environment, 429…) is named by the declared template its path matches, and
 * `unmatched` when there is none.
 */
export function requestMetrics(http: HttpMetrics, api: ApiRegistry): RequestHandler {
  function finished(this: Response): void {
    const seconds = (performance.now() - (this.locals[STARTED] as number)) / 1000;
    const route = (this.locals[ROUTE] as string | undefined) ?? routeOf(this.req, api);
    http.record(route, this.req.method, this.statusCode, seconds);
  }
  return (_req, res, next) => {
    res.locals[STARTED] = performance.now();
    res.on('finish', finished);
    next();
  };
}

function routeOf(req: Request, api: ApiRegistry): string {
  const url = req.originalUrl;
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  const system = path.length > 1 && path.endsWith('/') ? path.slice(0, -1).toLowerCase() : path.toLowerCase();
  if (SYSTEM_PATHS.has(system)) return system;
  return api.templateAt(path, req.method) ?? UNMATCHED_ROUTE;
}
