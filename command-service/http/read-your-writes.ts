import type { RequestHandler } from 'express';
import type { IncomingHttpHeaders } from 'node:http';
import { DomainError, InvalidRequestError, UnavailableError, ValidationError } from '../../shared/errors';
import { MIN_POSITION_HEADER, TIMEOUT_POLICY_HEADER, WAIT_TIMEOUT_HEADER } from './position-headers';
import { inSpan, traced } from '../../shared/tracing/spans';

/** What Permit's PDP does when a write is not synced within X-Wait-Timeout: answer anyway, or fail (424). */
export type TimeoutPolicy = 'ignore' | 'fail';

/** A request's wait-for-update headers (Permit's PDP), parsed. */
export interface SyncWait {
  /** X-Wait-Timeout in ms: null for no bound (an empty or negative value, as the PDP reads it), undefined when absent. */
  timeoutMs?: number | null;
  policy: TimeoutPolicy;
}

/** setTimeout's longest delay (about 24.8 days; a longer one fires at once): what "no bound" waits at most. */
export const LONGEST_WAIT_MS = 2 ** 31 - 1;

const SYNC_WAIT = 'syncWait';
const headerLoc = (name: string) => ['header', name.toLowerCase()];
const refuse = (name: string, msg: string, type: string): never => {
  throw new ValidationError([{ loc: headerLoc(name), msg, type }]);
};

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name.toLowerCase()];
  if (Array.isArray(value)) return refuse(name, 'must be sent once', 'value_error.repeated');
  return value;
};

// What Python's float() reads, less its oddities (underscores, nan): the PDP parses the header with it.
const SECONDS = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$|^[+-]?inf(inity)?$/i;

/**
 * The request's X-Wait-Timeout and X-Timeout-Policy, as Permit's PDP reads them: seconds (a decimal
 * number; empty or negative: no bound; 0: do not wait for the sync), and `ignore` (the default) or
 * `fail`, in any case. Undefined when neither is sent; a 422 naming the header when one is malformed.
 */
export function syncWaitOf(headers: IncomingHttpHeaders): SyncWait | undefined {
  const timeout = header(headers, WAIT_TIMEOUT_HEADER);
  const policy = header(headers, TIMEOUT_POLICY_HEADER);
  if (timeout === undefined && policy === undefined) return undefined;
  const wait: SyncWait = { policy: 'ignore' };
  if (timeout !== undefined) {
    const text = timeout.trim();
    if (text !== '' && !SECONDS.test(text))
      refuse(WAIT_TIMEOUT_HEADER, 'must be a number of seconds (empty or negative: no bound)', 'type_error.float');
    const seconds = text === '' ? -1 : /inf/i.test(text) ? (text.startsWith('-') ? -1 : Infinity) : Number(text);
    wait.timeoutMs = seconds < 0 ? null : Math.min(Math.ceil(seconds * 1000), LONGEST_WAIT_MS);
  }
  if (policy !== undefined) {
    const lower = policy.toLowerCase();
    if (lower !== 'ignore' && lower !== 'fail') refuse(TIMEOUT_POLICY_HEADER, "must be 'ignore' or 'fail'", 'type_error.enum');
    wait.policy = lower as TimeoutPolicy;
  }
  return wait;
}

/** The request's X-Min-Event-Position: a log position (0: none); a 422 naming the header when it is not one. */
export function minPositionOf(headers: IncomingHttpHeaders): number {
  const value = header(headers, MIN_POSITION_HEADER);
  if (value === undefined) return 0;
  const position = /^\d{1,16}$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(position))
    refuse(MIN_POSITION_HEADER, 'must be a log position (a whole number, 0 or more)', 'type_error.integer');
  return position;
}

/** The wait a request asked for (readYourWrites put it in `res.locals`), for the writes it makes. */
export const syncWaitOfResponse = (res: object): SyncWait | undefined =>
  (res as { locals?: Record<string, unknown> }).locals?.[SYNC_WAIT] as SyncWait | undefined;

/** The read models did not reach a write within X-Wait-Timeout, and X-Timeout-Policy is `fail`: Permit's PDP answers 424. */
export class SyncTimeoutError extends DomainError {
  readonly errorCode = 'SYNC_TIMEOUT';
  readonly title = 'Not synced within X-Wait-Timeout';
}

/** A position no write has reached: waiting for it could only time out. */
export class PositionBeyondHeadError extends InvalidRequestError {
  override readonly title = 'Position beyond the log';
}

/** How the read models are awaited; the Freshness of services.ts. */
interface Awaitable {
  readonly position: number;
  waitForPosition(position: number, timeoutMs: number): Promise<boolean>;
}

/**
 * Waits until the read models reach `position`. Without the PDP's headers (or with
 * `X-Wait-Timeout: 0`, "do not wait for the sync"), for `defaultMs` (READ_YOUR_WRITES_TIMEOUT_MS),
 * then 503. The read models are at once this service's API store and its PDP's cache, so an answer
 * cannot be read before they reach the write: with `ignore`, the wait is the longer of the two
 * bounds, then 503; with `fail`, it is X-Wait-Timeout, then 424.
 */
export async function waitForReadModels(
  freshness: Awaitable,
  defaultMs: number,
  position: number,
  wait: SyncWait | undefined,
  unreached: (waitedMs: number) => string,
): Promise<void> {
  if (position <= freshness.position) return;
  if (traced()) {
    const from = freshness.position;
    return inSpan('wait for read models', { attributes: { 'rebac.position': position, 'rebac.read_models_position': from } }, () =>
      waitUntraced(freshness, defaultMs, position, wait, unreached),
    );
  }
  return waitUntraced(freshness, defaultMs, position, wait, unreached);
}

async function waitUntraced(
  freshness: Awaitable,
  defaultMs: number,
  position: number,
  wait: SyncWait | undefined,
  unreached: (waitedMs: number) => string,
): Promise<void> {
  const asked = wait?.timeoutMs === null ? LONGEST_WAIT_MS : wait?.timeoutMs;
  const fail = wait?.policy === 'fail' && asked !== undefined && asked > 0;
  const bound = asked === undefined || asked === 0 ? defaultMs : fail ? asked : Math.max(asked, defaultMs);
  if (await freshness.waitForPosition(position, bound)) return;
  if (fail) throw new SyncTimeoutError(`${unreached(bound)} (${TIMEOUT_POLICY_HEADER}: fail)`, { position, waited_ms: bound });
  throw new UnavailableError(unreached(bound));
}

/** Where the read models' position and the log's head come from, and the default bound. */
export interface ReadYourWritesDeps {
  freshness: Awaitable;
  /** The log's head: the last position a write has reached. */
  headPosition(): Promise<number>;
  config: { READ_YOUR_WRITES_TIMEOUT_MS: number };
}

/**
 * Middleware: reads the PDP's wait headers for the request's writes (awaitReadModels), and holds a
 * request with `X-Min-Event-Position` until the read models reach it. A position beyond the log's
 * head can never be reached (no write has been stored there): a 400 naming the head, at once.
 */
export function readYourWrites(deps: ReadYourWritesDeps): RequestHandler {
  return async (req, res, next) => {
    const wait = syncWaitOf(req.headers);
    if (wait !== undefined) res.locals[SYNC_WAIT] = wait;
    const wanted = minPositionOf(req.headers);
    if (wanted > deps.freshness.position) {
      const head = await deps.headPosition();
      if (wanted > head) {
        throw new PositionBeyondHeadError(
          `${MIN_POSITION_HEADER} ${wanted} is beyond the log's head (position ${head}); send a position a write answered with (X-Event-Position)`,
          { header: MIN_POSITION_HEADER, position: wanted, head },
        );
      }
      await waitForReadModels(deps.freshness, deps.config.READ_YOUR_WRITES_TIMEOUT_MS, wanted, wait, () => {
        return `The read models have not reached position ${wanted} yet; retry shortly`;
      });
    }
    next();
  };
}
