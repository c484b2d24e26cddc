import type { ErrorRequestHandler } from 'express';
import type { Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import {
  DomainError,
  ForbiddenError,
  InvalidRequestError,
  NotFoundError,
  PayloadTooLargeError,
  StreamVersionConflictError,
  UnavailableError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../../shared/errors';
import { MethodNotAllowedError } from './unmatched-request';
import { errorCodes } from './error-codes';

export const SUPPORT_LINK = 'https://github.com/rebac-service/rebac-service/issues';

const statusByCode: Record<string, number> = {
  NOT_FOUND: 404,
  DUPLICATE_ENTITY: 409,
  CONCURRENT_OPERATION_DISALLOWED: 409,
  ASSERTIONS_FAILED: 409,
  INVALID_INPUT: 400,
  MISMATCH_RESOURCE_INSTANCES_TENANTS: 400,
  MISMATCH_RELATION_TYPE: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN_ACCESS: 403,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  SYNC_TIMEOUT: 424,
  TOO_MANY_REQUESTS: 429,
  NOT_IMPLEMENTED: 501,
  SECRET_UNREADABLE: 500,
  SERVICE_UNAVAILABLE: 503,
};

/**
 * Errors of the MongoDB driver that mean "the server cannot be reached right
 * now" (it is down, restarting, or the connection dropped): answered as
 * UnavailableError is (503: nothing was written, retry later), not as a bug.
 * Matched by name, so this module does not load the driver.
 */
const UNREACHABLE_ENGINE_ERRORS = new Set([
  'MongoServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoPoolClearedError',
  'PoolClearedOnNetworkError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoServerClosedError',
]);

/**
 * Seconds a client is told to wait after a 503 (Retry-After): what is unavailable (the event log,
 * the read-model store) is usually back within seconds, and clients that honour the header spread out.
 */
const RETRY_AFTER_UNAVAILABLE_SECONDS = '1';

/** The seed's error object, used in HTTP error bodies and in failed tasks. */
export function errorBody(error: DomainError, id: string = randomUUID()) {
  return {
    id,
    ...errorCodes(error.errorCode),
    title: error.title,
    message: error.message,
    support_link: SUPPORT_LINK,
    ...(error.additionalInfo ? { additional_info: error.additionalInfo } : {}),
  };
}

/**
 * Maps every error to its HTTP answer in one place. Only unexpected errors
 * (5xx) are logged with their stack; the client never sees a stack.
 */
export function errorMiddleware(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    if (error instanceof ValidationError) {
      res.status(422).json({ detail: error.detail });
      return;
    }
    const bodyParserType = (error as { type?: string }).type;
    if (bodyParserType === 'entity.parse.failed') {
      res.status(422).json({ detail: [{ loc: ['body'], msg: 'The body is not valid JSON', type: 'value_error.jsondecode' }] });
      return;
    }
    if (bodyParserType === 'entity.too.large') {
      res
        .status(413)
        .json(errorBody(new PayloadTooLargeError(`The body is larger than the limit of ${(error as { limit?: number }).limit} bytes`)));
      return;
    }
    const clientError = asClientError(error);
    if (clientError) {
      res.status(clientError.status).json(errorBody(clientError.error));
      return;
    }
    if (error instanceof DomainError) {
      const status = statusByCode[error.errorCode] ?? 400;
      if (error instanceof StreamVersionConflictError) logger.warn({ err: error }, 'command retries exhausted');
      if (error instanceof MethodNotAllowedError) res.setHeader('Allow', error.allowed.join(', '));
      if (status === 500) ((req as { log?: Logger }).log ?? logger).error({ err: error }, 'the service could not answer');
      if (status === 503) res.setHeader('Retry-After', RETRY_AFTER_UNAVAILABLE_SECONDS);
      res.status(status).json(errorBody(error));
      return;
    }
    const name = (error as { name?: unknown } | null)?.name;
    if (typeof name === 'string' && UNREACHABLE_ENGINE_ERRORS.has(name)) {
      logger.warn({ err: error }, 'a storage engine is unreachable');
      res.setHeader('Retry-After', RETRY_AFTER_UNAVAILABLE_SECONDS);
      res.status(503).json(errorBody(new UnavailableError(`The read-model store cannot be reached (${name}); retry later.`)));
      return;
    }
    const id = randomUUID();
    ((req as { log?: Logger }).log ?? logger).error({ err: error, errorId: id }, 'unexpected error');
    res.status(500).json({
      id,
      error_code: 'UNEXPECTED_ERROR',
      title: 'Internal error',
      message: `An unexpected error occurred (error id ${id})`,
      support_link: SUPPORT_LINK,
    });
  };
}

/**
 * Errors raised by express, its router and body-parser before a route runs carry their HTTP
 * status (`http-errors`: a bad percent-escape in the path, a body that does not decode, an
 * unknown content encoding or charset). A 4xx among them is the client's: answered with that
 * status in the error shape, with the message they carry (they are written to be shown).
 */
function asClientError(error: unknown): { status: number; error: DomainError } | null {
  if (error instanceof DomainError || typeof error !== 'object' || error === null) return null;
  const { status, statusCode, code, message, charset } = error as Record<string, unknown>;
  const httpStatus = typeof status === 'number' ? status : typeof statusCode === 'number' ? statusCode : NaN;
  if (!(httpStatus >= 400 && httpStatus < 500)) return null;
  const text = typeof message === 'string' ? message : 'The request could not be read';
  // zlib's own words ("incorrect header check") do not say what was being decoded.
  const said =
    typeof code === 'string' && code.startsWith('Z_')
      ? `The body could not be decoded with its Content-Encoding: ${text}`
      : typeof charset === 'string'
        ? `The body must be JSON in UTF-8, not in charset '${charset}'`
        : text;
  const typed =
    httpStatus === 415
      ? new UnsupportedMediaTypeError(said)
      : httpStatus === 413
        ? new PayloadTooLargeError(said)
        : httpStatus === 404
          ? new NotFoundError(said)
          : httpStatus === 403
            ? new ForbiddenError(said)
            : new InvalidRequestError(said);
  return { status: httpStatus, error: typed };
}
