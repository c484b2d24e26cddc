import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { DecisionCounts, HttpMetrics } from '../../../shared/metrics/metrics';
import type { CheckRequest, ResourceRef } from '../../grant-queries/types';
import { allows, requiredAccessLevel } from '../../http/access-levels';
import { keyOf, logAnswered } from '../../http/access-log';
import type { ApiKeyAuthenticator, AuthContext } from '../../http/auth';
import { handToExpress, laneBodyLength, parsedOrUndefined, readBody, type FastLane } from '../../http/fast-lane';
import { isPlainUtf8Json } from '../../http/json-body';
import { JSON_CONTENT_TYPE } from '../../http/json-content-type';
import { POSITION_HEADER, type Freshness } from '../../http/services';
import type { DecisionRecorder } from '../../../shared/decision-log/recorder';
import type { CachedChecks } from './cached-checks';
import { recordChecks } from './decision-entries';
import { atOnePosition } from './positions';
import { inRouteSpanOf, spanIdsOf, type Context } from '../../../shared/tracing/spans';
import { requestTraceContext } from '../../../shared/tracing/server-span';

export interface AllowedFastLaneParts {
  keys: ApiKeyAuthenticator;
  decisions: CachedChecks;
  freshness: Freshness;
  decided: DecisionCounts;
  decisionLog: DecisionRecorder;
  /** Counted in place for `GET /metrics`. */
  outcomes: { answered: number; handedOver: number };
  http: HttpMetrics;
  logger: Logger;
  maxBodyBytes: number;
}

const ROUTE = '/allowed';
const REQUIRED_LEVEL = requiredAccessLevel('POST', ROUTE);
const ANSWERS = { true: Buffer.from('{"allow":true}'), false: Buffer.from('{"allow":false}') };

/**
 * `POST /allowed` as the SDKs send it most of the time, without express (fast-lane.ts says why
 * and how). It takes a request whose line is exactly `POST /allowed` (no query: `explain` and
 * `as_of` are express's) with a JSON body of known length, no content encoding and no
 * `X-Min-Event-Position`, and answers it when the body is a plain check (`simpleCheckOf`) asked
 * with an environment key that may check: the same decision cache as the route (so the same
 * decisions and the same hit counts), the same `X-Event-Position` receipt, request id, metrics
 * and access log line. Any other body, key or failure goes to the express route with the body read.
 * Not installed with a per-key rate limit (the limiter is express middleware).
 */
export function allowedFastLane(parts: AllowedFastLaneParts): FastLane {
  const { keys, decisions, freshness, decided, decisionLog, outcomes, http, maxBodyBytes } = parts;
  const handOver = (express: RequestListener, req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    outcomes.handedOver++;
    handToExpress(express, req, res, body);
  };
  const log = parts.logger.child({ component: 'http' });

  async function answer(
    req: IncomingMessage,
    res: ServerResponse,
    express: RequestListener,
    body: Buffer,
    started: number,
    trace: Context | undefined,
  ) {
    const check = isPlainUtf8Json(body) ? simpleCheckOf(parsedOrUndefined(body)) : undefined;
    if (check === undefined) return handOver(express, req, res, body);
    let allow: boolean;
    let auth: AuthContext;
    try {
      auth = await keys.authenticate(req.headers.authorization);
      const environment = auth.environment;
      // A key that may not check, or whose environment is gone: the route says which (403, 404).
      if (!allows(auth.accessLevel, REQUIRED_LEVEL) || environment === undefined || environment === null) {
        return handOver(express, req, res, body);
      }
      const fromStore = /\bno-cache\b/i.test(req.headers['cache-control'] ?? '');
      allow = await atOnePosition({ freshness }, res, () => decisions.allowed(environment.id, check, fromStore, trace));
      const position = Number(res.getHeader(POSITION_HEADER));
      recordChecks(decisionLog, { endpoint: ROUTE, keyId: auth.keyId, environment, position }, [{ question: check, allow }]);
    } catch {
      // A 401, or a store that failed: the route answers it in the API's error shape.
      return handOver(express, req, res, body);
    }
    outcomes.answered++;
    if (allow) decided.allow++;
    else decided.deny++;
    const requestId = (req.headers['x-request-id'] as string | undefined) ?? randomUUID();
    const answerBytes = ANSWERS[`${allow}`];
    res.setHeader('x-request-id', requestId);
    res.setHeader('Content-Type', JSON_CONTENT_TYPE);
    res.setHeader('Content-Length', answerBytes.length);
    res.end(answerBytes);
    const ms = performance.now() - started;
    http.record(ROUTE, 'POST', 200, ms / 1000);
    if (log.isLevelEnabled('info')) {
      logAnswered(log, { reqId: requestId, method: 'POST', url: ROUTE, status: 200, ms, key: keyOf(auth) }, spanIdsOf(trace));
    }
  }

  const lane: FastLane = (req, res, express) => {
    if (req.method !== 'POST' || req.url !== ROUTE) return false;
    const length = laneBodyLength(req.headers, maxBodyBytes);
    if (length === undefined) return false;
    const started = performance.now();
    readBody(
      req,
      length,
      (body) => void inRouteSpanOf(requestTraceContext(req), 'POST', ROUTE, (trace) => answer(req, res, express, body, started, trace)),
    );
    return true;
  };
  lane.carriesTrace = true;
  return lane;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isKey = (value: unknown): value is string => typeof value === 'string' && value.length > 0;
/** No value, or `{}`: what `abacInputsOf` leaves out of a question (routes/checks/abac-inputs.ts). */
const isNoInput = (value: unknown): boolean =>
  value === undefined || value === null || (isObject(value) && Object.keys(value).length === 0);
const onlyKeys = (value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean => {
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
};

const CHECK_FIELDS = new Set(['user', 'action', 'resource', 'context']);
const USER_FIELDS = new Set(['key', 'attributes']);
const RESOURCE_FIELDS = new Set(['type', 'key', 'tenant', 'attributes', 'context']);

/**
 * The question of a check body that the route's schema (`checkSchema`, schemas.ts) accepts and
 * reads as exactly this, with no attributes or context for set rules; undefined for every other
 * body, which the route then validates and answers. It never accepts what the schema refuses:
 * only declared fields, non-empty strings where the schema wants them, `{}` or nothing for the
 * free-form parts (a `null` for an optional member is absent, as the route's parser takes it).
 */
export function simpleCheckOf(body: unknown): CheckRequest | undefined {
  if (!isObject(body) || !onlyKeys(body, CHECK_FIELDS)) return undefined;
  const { user, action, resource, context } = body;
  if (!isKey(action) || !isNoInput(context)) return undefined;
  let userKey: string;
  if (isKey(user)) userKey = user;
  else if (isObject(user) && onlyKeys(user, USER_FIELDS) && isKey(user.key) && isNoInput(user.attributes)) userKey = user.key;
  else return undefined;
  const ref = resourceOf(resource);
  return ref === undefined ? undefined : { user: userKey, action, resource: ref };
}

function resourceOf(resource: unknown): ResourceRef | undefined {
  if (isKey(resource)) {
    const colon = resource.indexOf(':');
    if (colon < 0) return { type: resource, key: null, tenant: null };
    return { type: resource.slice(0, colon), key: resource.slice(colon + 1) || null, tenant: null };
  }
  if (!isObject(resource) || !onlyKeys(resource, RESOURCE_FIELDS) || !isKey(resource.type)) return undefined;
  const { key, tenant } = resource;
  if (!(key === undefined || key === null || isKey(key)) || !(tenant === undefined || tenant === null || isKey(tenant))) return undefined;
  if (!isNoInput(resource.attributes) || !isNoInput(resource.context)) return undefined;
  return { type: resource.type, key: key ?? null, tenant: tenant ?? null };
}
