import type { Router } from 'express';
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
  /** The API keys and path scopes the middleware resolves, for the lanes that stand in for it (one cache each). */
  keys: ApiKeyAuthenticator;
  scopes: EnvironmentScopes;
}
