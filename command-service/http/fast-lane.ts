import type { Express, RequestHandler } from 'express';
import type { IncomingHttpHeaders, IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { JSON_CONTENT_TYPE } from './json-content-type';
import { MIN_POSITION_HEADER, TIMEOUT_POLICY_HEADER, WAIT_TIMEOUT_HEADER } from './position-headers';
import { inRequestContext, requestTraceContext, tracedRequests } from '../../shared/tracing/server-span';

/**
 * A fast lane answers one hot request shape without express: no router, no middleware chain,
 * no body-parser, no zod. It exists for permission checks, where express's request path cost
 * more than the decision itself (a cached `POST /allowed` answered well below a bare express
 * route; docs/bench-history/design-choices.md).
 *
 * A lane looks at the request line and headers first and returns `false` for anything it does
 * not take: express then serves the request as if the lane did not exist. Once it has taken a
 * request it answers it itself, or hands it to express with the body it has read
 * (`handToExpress`): every request that is not exactly the common case (a body of another
 * shape, an error of any kind) is answered by the express route, so answers, error shapes and
 * metrics are the route's own. A lane must therefore decide only what the route would decide,
 * the same way; `test/checks/allowed-fast-lane.int.test.ts` compares the two.
 *
 * A lane runs in the request's trace context (inRequestContext) unless it carries the trace
 * itself (`carriesTrace`: the check lane, whose traced requests would otherwise turn on the
 * promise hooks every concurrent check pays for; server-span.ts).
 */
export type FastLane = ((req: IncomingMessage, res: ServerResponse, express: RequestListener) => boolean) & { carriesTrace?: true };

/** Where `createApp` keeps the lanes its route modules declared. */
const FAST_LANES = 'fastLanes';

export function setFastLanes(app: Express, lanes: FastLane[]): void {
  app.locals[FAST_LANES] = lanes;
}

/** The server's request listener: the app's fast lanes first, then express. */
export function requestListener(app: Express): RequestListener {
  const declared = (app.locals[FAST_LANES] as FastLane[] | undefined) ?? [];
  // Lanes take disjoint requests, so their order is free: those that carry their trace go first,
  // and a traced request they take never enters the trace context to ask the others.
  const lanes = [...declared.filter((lane) => lane.carriesTrace), ...declared.filter((lane) => !lane.carriesTrace)];
  const inExpress: RequestListener = (req, res) => inRequestContext(req, res, () => void app(req, res));
  if (lanes.length === 0) return tracedRequests(inExpress);
  return tracedRequests((req, res) => {
    const traced = requestTraceContext(req) !== undefined;
    for (const lane of lanes) {
      const took = traced && !lane.carriesTrace ? inRequestContext(req, res, () => lane(req, res, app)) : lane(req, res, app);
      if (took) return;
    }
    inExpress(req, res);
  });
}

/** A body read by a fast lane, for `jsonBody` (json-body.ts) to parse as it parses any other. */
export const PRE_READ_BODY = Symbol('pre-read-body');
/** What a lane that already acted (a write it executed) hands over with the request: see `handToExpress`. */
const HANDED_OVER = Symbol('handed-over');
export type PreReadRequest = IncomingMessage & { [PRE_READ_BODY]?: Buffer; [HANDED_OVER]?: HandedOver };

/**
 * A request a lane handed over after it acted: the request id it wrote into the log (the answer
 * says the same one), and the error its action ended with, which express answers as the route's
 * own (error shape, metrics, log) without running the route again.
 */
export interface HandedOver {
  requestId: string;
  error: unknown;
}

/**
 * Serves a request a lane took but does not answer, with the body the lane read. Before it acts
 * a lane hands over the request alone, and the route decides it again from the start; once it
 * has acted (a write executed or refused), it hands over what came of it (`outcome`).
 */
export function handToExpress(
  express: RequestListener,
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  outcome?: HandedOver,
): void {
  const handed = req as PreReadRequest;
  handed[PRE_READ_BODY] = body;
  if (outcome !== undefined) handed[HANDED_OVER] = outcome;
  // From a lane that carries its trace itself, the route goes on in the request's trace.
  inRequestContext(req, res, () => express(req, res));
}

/** The outcome a lane handed over with this request, if any. */
export const handedOver = (req: IncomingMessage): HandedOver | undefined => (req as PreReadRequest)[HANDED_OVER];

/** Express middleware: a request handed over with an error goes straight to the error middleware. */
export const failWithHandedOverError: RequestHandler = (req, _res, next) => {
  const outcome = handedOver(req);
  next(outcome === undefined ? undefined : outcome.error);
};

/**
 * The Content-Length of a body that can be read as it arrives (no content or transfer encoding),
 * at most `limitBytes`; undefined for any other request, which express.json then reads or refuses.
 */
export function plainBodyLength(headers: IncomingHttpHeaders, limitBytes: number): number | undefined {
  if (headers['content-encoding'] !== undefined || headers['transfer-encoding'] !== undefined) return undefined;
  const length = Number(headers['content-length']);
  return Number.isInteger(length) && length > 0 && length <= limitBytes ? length : undefined;
}

const MIN_POSITION = MIN_POSITION_HEADER.toLowerCase();
const WAIT_TIMEOUT = WAIT_TIMEOUT_HEADER.toLowerCase();
const TIMEOUT_POLICY = TIMEOUT_POLICY_HEADER.toLowerCase();

/**
 * The body length of a request a lane may take: `Content-Type: application/json` exactly, none of
 * `X-Min-Event-Position`, `X-Wait-Timeout`, `X-Timeout-Policy` (express middleware reads and awaits
 * them: read-your-writes.ts), and a plain body within `limitBytes` (plainBodyLength); undefined for
 * any other request, which the lane leaves to express.
 */
export function laneBodyLength(headers: IncomingHttpHeaders, limitBytes: number): number | undefined {
  if (headers['content-type']?.toLowerCase() !== JSON_CONTENT_TYPE) return undefined;
  if (headers[MIN_POSITION] !== undefined || headers[WAIT_TIMEOUT] !== undefined || headers[TIMEOUT_POLICY] !== undefined) return undefined;
  return plainBodyLength(headers, limitBytes);
}

/** A body a lane read, parsed; undefined when it is not JSON (express then refuses it in its own words). */
export function parsedOrUndefined(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Reads a body whose Content-Length the lane has checked (at most its limit), then calls
 * `done`. A client that goes away mid-body gets nothing, as express would give it.
 */
export function readBody(req: IncomingMessage, length: number, done: (body: Buffer) => void): void {
  const body = Buffer.allocUnsafe(length);
  let filled = 0;
  let overflow = false;
  req.on('data', (chunk: Buffer) => {
    if (filled + chunk.length > length) overflow = true;
    else chunk.copy(body, filled);
    filled += chunk.length;
  });
  req.once('end', () => {
    // Node ends a request at its Content-Length: a shorter or longer body cannot arrive here, but
    // the lane never answers one it did not read exactly.
    if (!overflow && filled === length) done(body);
    else req.socket.destroy();
  });
}
