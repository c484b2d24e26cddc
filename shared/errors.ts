/**
 * Errors named by what they mean, not by where they happen. The HTTP layer maps
 * each to a status and an `error_code` in one place (command-service/http/error-middleware.ts).
 * Foreign errors (driver, engine) are translated into these where they are caught.
 */
export abstract class DomainError extends Error {
  abstract readonly errorCode: string;
  abstract readonly title: string;
  constructor(
    message: string,
    readonly additionalInfo?: Record<string, unknown>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** A referenced object does not exist. The message names what is missing. */
export class NotFoundError extends DomainError {
  readonly errorCode = 'NOT_FOUND';
  readonly title = 'Not found';
}

/** An object with the same key (or identity) already exists. */
export class DuplicateEntityError extends DomainError {
  readonly errorCode = 'DUPLICATE_ENTITY';
  readonly title = 'Duplicate entity';
}

/**
 * The request is well-formed but breaks a domain rule. Codes are Permit's
 * (its SDKs parse `error_code` against their enum, and a code outside it loses
 * the typed error): INVALID_INPUT, or the narrower one a subclass names.
 */
export class InvalidRequestError extends DomainError {
  readonly errorCode: string = 'INVALID_INPUT';
  readonly title: string = 'Invalid request';
}

/** A tuple or assignment whose instances (or tenant) are in different tenants. */
export class TenantMismatchError extends InvalidRequestError {
  override readonly errorCode = 'MISMATCH_RESOURCE_INSTANCES_TENANTS';
  override readonly title = 'Instances in different tenants';
}

/** A tuple or derivation whose subject is not of the type its relation takes. */
export class RelationTypeMismatchError extends InvalidRequestError {
  override readonly errorCode = 'MISMATCH_RELATION_TYPE';
  override readonly title = 'Subject of the wrong type for the relation';
}

/** Missing, malformed or unknown API key. */
export class UnauthorizedError extends DomainError {
  readonly errorCode = 'UNAUTHORIZED';
  readonly title = 'Unauthorized';
}

/** A valid API key used outside the project/environment it is scoped to. */
export class ForbiddenError extends DomainError {
  readonly errorCode = 'FORBIDDEN_ACCESS';
  readonly title = 'Forbidden';
}

/** The request body is larger than the documented limit. */
export class PayloadTooLargeError extends DomainError {
  readonly errorCode = 'PAYLOAD_TOO_LARGE';
  readonly title = 'Payload too large';
}

/** Field-level validation problems, reported as Permit's 422 `{detail: [...]}`. */
export class ValidationError extends Error {
  constructor(readonly detail: Array<{ loc: Array<string | number>; msg: string; type: string }>) {
    super(detail.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; '));
    this.name = 'ValidationError';
  }
}

/**
 * An append found the stream at another version than expected. The command
 * pipeline retries on it a bounded number of times; it never reaches a client
 * unless retries run out (then it is a 409 the client may retry).
 */
export class StreamVersionConflictError extends DomainError {
  readonly errorCode = 'CONCURRENT_OPERATION_DISALLOWED';
  readonly title = 'Concurrent modification';
  constructor(
    readonly streamId: string,
    readonly expected: number,
    readonly actual: number,
  ) {
    super(`stream ${streamId} is at version ${actual}, expected ${expected}`);
  }
}

/** A run of saved assertions asked to fail on a mismatch had one (409; the run's report in additional_info). */
export class AssertionsFailedError extends DomainError {
  readonly errorCode = 'ASSERTIONS_FAILED';
  readonly title = 'Assertions failed';
}

/** The API key made more requests than its rate limit allows; the HTTP answer says when to retry (Retry-After). */
export class RateLimitedError extends DomainError {
  readonly errorCode = 'TOO_MANY_REQUESTS';
  readonly title = 'Too many requests';
}

/** A dependency (engine, projection) did not answer within its bound. */
export class UnavailableError extends DomainError {
  readonly errorCode = 'SERVICE_UNAVAILABLE';
  readonly title = 'Service unavailable';
}

/** The body's media type, charset or content encoding is not one the API reads (it reads JSON in UTF-8, optionally gzip/deflate/br). */
export class UnsupportedMediaTypeError extends DomainError {
  readonly errorCode = 'UNSUPPORTED_MEDIA_TYPE';
  readonly title = 'Unsupported media type';
}

/**
 * A stored secret (sealed with SECRETS_KEY, shared/secrets/secret-box.ts) that this service cannot
 * open: sealed with a key it does not have, altered, or not sealed at all. The service's fault, not
 * the request's (500, `UNEXPECTED_ERROR` with reason `SECRET_UNREADABLE`); the message names the cause.
 */
export class SecretUnreadableError extends DomainError {
  readonly errorCode = 'SECRET_UNREADABLE';
  readonly title = 'Secret unreadable';
}
