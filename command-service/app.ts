import express, { type ErrorRequestHandler, type Router } from 'express';
import { randomUUID } from 'node:crypto';
import { metricsHandler } from '../shared/metrics/endpoint';
import { accessLog } from './http/access-log';
import { apiKeyAuthenticator, authenticate, EnvironmentScopes, environmentScope } from './http/auth';
import { CONSOLE_PATH, consoleUi } from './http/console-ui';
import { errorMiddleware } from './http/error-middleware';
import { failWithHandedOverError, handedOver, setFastLanes, type FastLane } from './http/fast-lane';
import { jsonBody } from './http/json-body';
import { exactJsonContentType } from './http/json-content-type';
import { ApiRegistry } from './http/openapi';
import { FACTS_BASE, PDP_FACTS_BASE, pdpFacts } from './http/pdp-facts';
import { rateLimitPerKey } from './http/rate-limit';
import { requestMetrics } from './http/request-metrics';
import { changePosition } from './http/read-model-groups';
import { readYourWrites } from './http/read-your-writes';
import type { Services } from './http/services';
import { answerOptions, unmatchedRequest } from './http/unmatched-request';
import { assignmentRoutes } from './routes/assignments';
import { instanceRoutes } from './routes/instances';
import { orgRoutes } from './routes/org';
import { relationRoutes } from './routes/relations';
import { conditionSetRoutes } from './routes/condition-sets';
import { proxyConfigRoutes } from './routes/proxy-configs';
import { groupRoutes } from './routes/groups';
import { setRuleRoutes } from './routes/set-rules';
import { userInviteRoutes } from './routes/user-invites';
import { resourcePartRoutes } from './routes/resource-parts';
import { resourceRoutes } from './routes/resources';
import { roleRoutes } from './routes/roles';
import type { RouteContext } from './routes/route-context';
import { tenantAndUserRoutes } from './routes/tenants-users';
import { userRoutes } from './routes/users';
import { tupleRoutes } from './routes/tuples';

/** Route groups a feature module can add to (permission checks, background tasks). */
export interface RouteGroups {
  /** Authenticated routes at the root (`/v2/...`, `/allowed`). */
  root: RouteContext;
  /** `/v2/schema/{proj_id}/{env_id}`, environment resolved in `res.locals.env`. */
  schema: RouteContext;
  /** `/v2/facts/{proj_id}/{env_id}`, environment resolved in `res.locals.env`. */
  facts: RouteContext;
}

export type RouteModule = (groups: RouteGroups) => void;

export interface AppOptions {
  /** The web console's built files, served without authentication under `/ui` (the page signs in with a key itself). */
  consoleDir?: string;
  /**
   * The core routes (organisation, schema, facts). Off in a check worker (app/check-worker.ts),
   * which serves only the modules' read-only routes and forwards everything else.
   */
  coreRoutes?: boolean;
}

/** Builds the HTTP API over the given services. Feature modules plug in their routes. */
export function createApp(services: Services, modules: RouteModule[] = [], options: AppOptions = {}): express.Express {
  const app = express();
  const api = new ApiRegistry();
  // What the routes declare, for tests and tools that check answers against it.
  app.locals.api = api;
  app.disable('x-powered-by');
  // Answers depend on the read models' position, not on a resource version a client could revalidate: no ETag hashing per answer.
  app.set('etag', false);
  app.set('query parser', 'simple');

  app.use(exactJsonContentType);
  app.use(requestMetrics(services.metrics.http, api));
  app.use((req, res, next) => {
    // A write a fast lane executed and handed over keeps the request id its events carry.
    const requestId = handedOver(req)?.requestId ?? req.header('x-request-id') ?? randomUUID();
    res.locals.requestId = requestId;
    res.setHeader('x-request-id', requestId);
    next();
  });
  app.use(accessLog(services.logger));
  app.use(jsonBody(services.config.MAX_BODY_BYTES));
  app.use(failWithHandedOverError);

  // Each also under the path Permit's PDP answers it at (its OPAL client's), for probes written for the PDP.
  app.get(['/healthz', '/healthy'], (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get(['/readyz', '/healthchecks/opa/ready'], (_req, res) => {
    const ready = services.freshness.ready;
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'starting', position: services.freshness.position });
  });
  app.get('/openapi.json', (_req, res) => {
    res.json(api.document());
  });
  // Like /healthz, outside the API (and /openapi.json); METRICS_TOKEN, when set, guards it.
  app.get('/metrics', metricsHandler(services.metrics, services.config.METRICS_TOKEN));
  if (options.consoleDir !== undefined) {
    app.use(CONSOLE_PATH, consoleUi(options.consoleDir));
    // The service's address opened in a browser: the console, rather than the API's 401. Temporary (302): not remembered by a browser, so turning the console off takes effect.
    app.get('/', (_req, res) => res.redirect(302, `${CONSOLE_PATH}/`));
  }

  const cacheReads = services.config.READ_CACHE_ENTRIES > 0;
  const keys = apiKeyAuthenticator(services);
  // Keys and scopes are read from the organisation's read models only: kept while those do not change.
  const scopes = new EnvironmentScopes(services.readModels, changePosition(services.freshness, 'organisation'), cacheReads);
  app.use(authenticate(keys));
  const rateLimit = rateLimitPerKey(services.config);
  if (rateLimit) app.use(rateLimit);
  // "At least as fresh as": a client may send back the position a write returned, and the PDP's wait headers.
  app.use(readYourWrites({ ...services, headPosition: () => services.timeTravel.headPosition() }));
  app.use(pdpFacts());

  const root = express.Router();
  const schema = express.Router({ mergeParams: true });
  const facts = express.Router({ mergeParams: true });
  const fastLanes: FastLane[] = [];
  const errorHandlers: ErrorRequestHandler[] = [];
  const group = (router: Router, base: string): RouteContext => ({ router, services, api, base, fastLanes, errorHandlers, keys, scopes });
  const groups: RouteGroups = {
    root: group(root, ''),
    schema: group(schema, '/v2/schema/{proj_id}/{env_id}'),
    facts: group(facts, '/v2/facts/{proj_id}/{env_id}'),
  };

  if (options.coreRoutes !== false) {
    orgRoutes(groups.root);
    resourceRoutes(groups.schema);
    resourcePartRoutes(groups.schema);
    roleRoutes(groups.schema);
    relationRoutes(groups.schema);
    tenantAndUserRoutes(groups.facts);
    userRoutes(groups.facts);
    instanceRoutes(groups.facts);
    assignmentRoutes(groups.facts);
    tupleRoutes(groups.facts);
    conditionSetRoutes(groups.schema);
    setRuleRoutes(groups.facts);
    proxyConfigRoutes(groups.facts);
    groupRoutes(groups.schema);
    userInviteRoutes(groups.facts);
  }
  for (const module of modules) module(groups);
  api.alias(FACTS_BASE, PDP_FACTS_BASE, '(the PDP\u2019s path: in the API key\u2019s environment)');

  app.use(answerOptions(api));
  const scope = environmentScope(scopes);
  app.use('/v2/schema/:proj_id/:env_id', scope, schema);
  app.use('/v2/facts/:proj_id/:env_id', scope, facts);
  app.use(root);
  app.use(unmatchedRequest(api));
  for (const handler of errorHandlers) app.use(handler);
  app.use(errorMiddleware(services.logger));
  // The lanes answer without the middleware above; the per-key rate limit is one of them, so with it they stay off.
  if (!rateLimit) setFastLanes(app, fastLanes);
  return app;
}
