import type { Request, Response } from 'express';
import type { z } from 'zod';
import type { Operation } from '../http/openapi';
import { expressPath } from '../http/path-template';
import { labelRoute } from '../http/request-metrics';
import { parse, refusingUndeclaredFields, undeclaredQueryRefusal } from '../http/validation';
import type { RouteContext } from './route-context';
import { inRouteSpan } from '../../shared/tracing/spans';

type Schema = z.ZodType | undefined;

/** The `{name}` parameters of a path template, as a type: `'/roles/{role_id}'` gives `'role_id'`. */
type PathParameters<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}` ? Name | PathParameters<Rest> : never;

/**
 * What a route answers on success: a body schema for its status (200 unless
 * said otherwise), or 204 and nothing. Every route that answers a body
 * declares it, so `/openapi.json` can describe it.
 */
type SuccessAnswer = { status: 204; response?: undefined } | { status?: 200 | 202; response: z.ZodType };

/** A route as it is declared once: express serves it, `/openapi.json` documents it. */
export type RouteDeclaration<Path extends string, Body extends Schema, Query extends Schema> = Omit<
  Operation,
  'path' | 'body' | 'query' | 'status' | 'response'
> &
  SuccessAnswer & {
    /** OpenAPI path template under the group's base, e.g. `/tenants/{tenant_id}`. */
    path: Path;
    body?: Body;
    query?: Query;
  };

/**
 * The request parts the route declared schemas for, parsed with exactly those
 * schemas (422 `{detail: [{loc: ['body' | 'query', …]}]}` when invalid). Each
 * is parsed when the handler first asks for it, not before the handler runs,
 * so every handler keeps its order of checks: a role list reports a missing
 * resource before a bad `page`, a copy refuses an environment key before
 * reading the body.
 */
export type RouteInput<Body extends Schema, Query extends Schema> = (Body extends z.ZodType ? { body(): z.infer<Body> } : unknown) &
  (Query extends z.ZodType ? { query(): z.infer<Query> } : unknown);

export type RouteHandler<Path extends string, Body extends Schema, Query extends Schema> = (
  req: Request<Record<PathParameters<Path>, string>>,
  res: Response,
  input: RouteInput<Body, Query>,
) => void | Promise<void>;

/**
 * Declares a route of a group: registers the handler with the group's express
 * router (at the express form of the path) and the operation with the OpenAPI
 * registry (at the group's base plus the path), from the same declaration.
 */
export function route<Path extends string, Body extends Schema = undefined, Query extends Schema = undefined>(
  { router, api, base }: Pick<RouteContext, 'router' | 'api' | 'base'>,
  declaration: RouteDeclaration<Path, Body, Query>,
  handler: RouteHandler<Path, Body, Query>,
): void {
  const template = `${base}${declaration.path}`;
  const body = refusingUndeclaredFields(declaration.body);
  const query = refusingUndeclaredFields(declaration.query);
  const refuseUndeclaredQuery = undeclaredQueryRefusal(query);
  api.add({ ...declaration, body, query, path: template });
  // A parameter may also match a literal segment of another template (`/resource_instances/{instance_id}`
  // and `/resource_instances/detailed`). That path is the literal template's: the request goes on to its
  // route, or to the 405 its `Allow` promises. Known at the first request, once every route is declared.
  const takenByMoreLiteral = moreLiteralPaths(api, template);
  router[declaration.method](expressPath(declaration.path), (req, res, next) => {
    if (takenByMoreLiteral(req.baseUrl + req.path)) return next();
    labelRoute(res, template);
    // Never accept and drop: a query parameter the route does not declare is refused before it runs.
    refuseUndeclaredQuery(req.query);
    return inRouteSpan(declaration.method.toUpperCase(), template, () =>
      handler(req as Request<Record<PathParameters<Path>, string>>, res, requestInput(req, { body, query })),
    );
  });
}

/**
 * True for a request path that a more literal template of another route takes (`api.moreLiteralThan`),
 * worked out at the first request, once every route is declared.
 */
export function moreLiteralPaths(api: Pick<RouteContext['api'], 'moreLiteralThan'>, template: string): (path: string) => boolean {
  let taken: ((path: string) => boolean) | undefined;
  return (path) => (taken ??= api.moreLiteralThan(template))(path);
}

function requestInput<Body extends Schema, Query extends Schema>(
  req: Request,
  { body, query }: { body?: Body; query?: Query },
): RouteInput<Body, Query> {
  // Keys added to an empty object, not spread into it: once per request (shared/objects.ts).
  const input: { body?: () => unknown; query?: () => unknown } = {};
  if (body) input.body = once(() => parse(body, req.body, 'body'));
  if (query) input.query = once(() => parse(query, req.query, 'query'));
  return input as RouteInput<Body, Query>;
}

/** A handler may ask twice; the schema runs (and its transforms and defaults apply) once. */
function once<T>(read: () => T): () => T {
  let parsed: { value: T } | undefined;
  return () => (parsed ??= { value: read() }).value;
}
