import type { ErrorRequestHandler } from 'express';
import type { Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import { DomainError, PayloadTooLargeError, StreamVersionConflictError, UnavailableError, ValidationError } from '../../shared/errors';

export const SUPPORT_LINK = 'https://github.com/rebac-service/rebac-service/issues';

const statusByCode: Record<string, number> = {
  NOT_FOUND: 404,
  DUPLICATE_ENTITY: 409,
  CONFLICT: 409,
  UNEXPECTED_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN_ACCESS: 403,
  PAYLOAD_TOO_LARGE: 413,
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

/** The seed's error object, used in HTTP error bodies and in failed tasks. */
export function errorBody(error: DomainError, id: string = randomUUID()) {
  return {
    id,
    error_code: error.errorCode,
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
    if (error instanceof DomainError) {
      const status = statusByCode[error.errorCode] ?? 400;
      if (error instanceof StreamVersionConflictError) logger.warn({ err: error }, 'command retries exhausted');
      res.status(status).json(errorBody(error));
      return;
    }
    const name = (error as { name?: unknown } | null)?.name;
    if (typeof name === 'string' && UNREACHABLE_ENGINE_ERRORS.has(name)) {
      logger.warn({ err: error }, 'a storage engine is unreachable');
      res.status(503).json(errorBody(new UnavailableError(`The read-model store cannot be reached (${name}); retry later.`)));
      return;
    }
    const id = randomUUID();
    (req as { log?: Logger }).log?.error({ err: error, errorId: id }, 'unexpected error') ??
      logger.error({ err: error, errorId: id }, 'unexpected error');
    res.status(500).json({
      id,
      error_code: 'UNEXPECTED_ERROR',
      title: 'Internal error',
      message: `An unexpected error occurred (error id ${id})`,
      support_link: SUPPORT_LINK,
    });
  };
}
