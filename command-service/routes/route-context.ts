import type { ErrorRequestHandler, Router } from 'express';
import type { ApiKeyAuthenticator, EnvironmentScopes } from '../http/auth';
import type { FastLane } from '../http/fast-lane';
import type { ApiRegistry } from '../http/openapi';
import type { Services } from '../http/services';

/** What a route module gets: the router of its group, the services, and the OpenAPI registry with its group's base path. */
export interface RouteContext {
  router: Router;
  services: Services;
  api: ApiRegistry;
  /** OpenAPI form of the group's base path, e.g. `/v2/schema/{proj_id}/{env_id}`. */
  base: string;
  /** Where a route may add a lane that answers its hottest request shape without express (http/fast-lane.ts). */
  fastLanes: FastLane[];
  /**
   * Where a route module may answer errors on its own paths, in a shape a standard it serves
   * prescribes (AuthZEN's 400s): run before the API's error middleware, each for every error
   * (those raised before any route ran, e.g. by the body parser, included); what one passes on
   * is answered as everywhere else.
   */
  errorHandlers: ErrorRequestHandler[];
  /** The API keys and path scopes the middleware resolves, for the lanes that stand in for it (one cache each). */
  keys: ApiKeyAuthenticator;
  scopes: EnvironmentScopes;
}
