import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { z } from 'zod';
import type { EnvCommand } from '../../shared/domain/env/commands';
import { streams, type EnvEvent, type EventMetadata } from '../../shared/events';
import { allows, requiredAccessLevel } from './access-levels';
import { keyOf, logAnswered } from './access-log';
import type { ApiKeyAuthenticator, AuthContext, EnvironmentScopes } from './auth';
import { handToExpress, laneBodyLength, parsedOrUndefined, readBody, type FastLane, type HandedOver } from './fast-lane';
import { isPlainUtf8Json } from './json-body';
import { JSON_CONTENT_TYPE } from './json-content-type';
import { awaitReadModels, eventMetadata, type Services } from './services';
import { withoutNullOptionals } from './null-as-absent';
import { inRouteSpan } from '../../shared/tracing/spans';

/** What a create route does, once for its express route and its lane (routes/create-route.ts). */
export interface CreateOperation<Body> {
  /** The command that creates the object, and the id the object gets. */
  command(body: Body): { id: string; command: EnvCommand };
  /** The created object as the route answers it, read once the read models show it; `events`: what the command appended. */
  answer(id: string, events: readonly EnvEvent[]): Promise<unknown>;
}

/** What the lanes share with the middleware they stand in for: the same key and scope caches. */
export interface CreateLaneParts {
  services: Services;
  keys: ApiKeyAuthenticator;
  scopes: EnvironmentScopes;
}

export interface CreateLaneRoute<Body> {
  /** The route's OpenAPI template: `{proj_id}` and `{env_id}` are its only parameters. */
  template: string;
  /** The body schema the route parses with (closed: undeclared fields refused). */
  body: z.ZodType<Body>;
  operation: CreateOperation<Body>;
  /** True for a path a more literal template of another route takes (route.ts). */
  takenByMoreLiteral(path: string): boolean;
}

/**
 * `POST` of one object to a facts or schema collection (a resource instance, a role assignment, a
 * relationship tuple) without express: the writes an application sends one at a time, for which
 * express's router and middleware chain cost a large part of the main thread (docs/bench-history/design-choices.md).
 *
 * It takes what the `/allowed` lane takes (fast-lane.ts): a path exactly as the template reads, no
 * query, `Content-Type: application/json`, a plain body of known length, no `X-Min-Event-Position`
 * (nor the PDP's `X-Wait-Timeout`, `X-Timeout-Policy`: laneBodyLength).
 * Until it acts, anything else (a body the schema refuses, a refused key or path, a store that
 * fails) is handed to the express route with the body read, which decides the request from the
 * start. Once it has executed the command, whatever comes of it (refused, stored but not visible
 * in time) is handed over as an outcome, which express answers as the route would have, without
 * executing it again. Its own answers carry what the route's carry: the object, the request id,
 * `X-Event-Position`, and the same metrics and access log line (`test/api/create-fast-lane.int.test.ts`).
 */
export function createLane<Body>(parts: CreateLaneParts, route: CreateLaneRoute<Body>): FastLane {
  const { services, keys, scopes } = parts;
  const outcomes = services.metrics.createLanes;
  const http = services.metrics.http;
  const log = services.logger.child({ component: 'http' });
  const pathPattern = templatePattern(route.template);
  const required = requiredAccessLevel('POST', route.template);

  const handOver = (express: RequestListener, req: IncomingMessage, res: ServerResponse, body: Buffer, outcome?: HandedOver) => {
    outcomes.handedOver++;
    handToExpress(express, req, res, body, outcome);
  };

  async function answer(
    req: IncomingMessage,
    res: ServerResponse,
    express: RequestListener,
    body: Buffer,
    path: RegExpExecArray,
    started: number,
  ) {
    const parsed = isPlainUtf8Json(body) ? route.body.safeParse(withoutNullOptionals(route.body, parsedOrUndefined(body))) : undefined;
    if (parsed === undefined || !parsed.success) return handOver(express, req, res, body);
    let environmentId: string;
    let requestId: string;
    let metadata: EventMetadata;
    let auth: AuthContext;
    try {
      auth = await keys.authenticate(req.headers.authorization);
      if (!allows(auth.accessLevel, required)) return handOver(express, req, res, body);
      environmentId = (await scopes.resolve(auth, path[1]!, path[2]!)).id;
      requestId = (req.headers['x-request-id'] as string | undefined) ?? randomUUID();
      metadata = eventMetadata(req, requestId, auth.keyId);
    } catch {
      // A 401, 403 or 404 on the path, a refused X-Audit-Metadata, a store that failed: the route says which.
      return handOver(express, req, res, body);
    }
    let built: { id: string; command: EnvCommand };
    try {
      built = route.operation.command(parsed.data);
    } catch {
      // A body the schema takes but the command refuses (an end already past): the route says why.
      return handOver(express, req, res, body);
    }
    const { id, command } = built;
    let created: unknown;
    try {
      const outcome = await services.envCommands.execute(streams.environment(environmentId), command, metadata);
      await awaitReadModels(services, res, outcome.position);
      created = await route.operation.answer(id, outcome.events);
    } catch (error) {
      return handOver(express, req, res, body, { requestId, error });
    }
    outcomes.answered++;
    const answerBytes = Buffer.from(JSON.stringify(created) ?? '', 'utf8');
    res.setHeader('x-request-id', requestId);
    res.setHeader('Content-Type', JSON_CONTENT_TYPE);
    res.setHeader('Content-Length', answerBytes.length);
    res.end(answerBytes);
    const ms = performance.now() - started;
    http.record(route.template, 'POST', 200, ms / 1000);
    if (log.isLevelEnabled('info'))
      logAnswered(log, { reqId: requestId, method: 'POST', url: req.url!, status: 200, ms, key: keyOf(auth) });
  }

  return (req, res, express) => {
    if (req.method !== 'POST') return false;
    const path = pathPattern.exec(req.url!);
    if (path === null || route.takenByMoreLiteral(req.url!)) return false;
    const length = laneBodyLength(req.headers, services.config.MAX_BODY_BYTES);
    if (length === undefined) return false;
    const started = performance.now();
    readBody(req, length, (body) => void inRouteSpan('POST', route.template, () => answer(req, res, express, body, path, started), 'fast'));
    return true;
  };
}

/**
 * The paths a template names exactly as written: each parameter one segment without `%` (express
 * decodes escapes; such a path is left to it), literal segments in their case, no trailing slash
 * and no query (express routes the others the same way, and refuses undeclared query parameters).
 */
function templatePattern(template: string): RegExp {
  const [, ...parts] = template.split(/\{[^}]+\}/);
  const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${literal(template.split('{', 1)[0]!)}${parts.map((part) => `([^/?%]+)${literal(part)}`).join('')}$`);
}
