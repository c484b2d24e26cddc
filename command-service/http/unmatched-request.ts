import type { RequestHandler } from 'express';
import { DomainError, NotFoundError } from '../../shared/errors';
import type { ApiRegistry } from './openapi';

/** A path the API has, asked with a method it does not take there. HTTP's own: the answer carries `Allow`. */
export class MethodNotAllowedError extends DomainError {
  readonly errorCode = 'METHOD_NOT_ALLOWED';
  readonly title = 'Method not allowed';
  constructor(
    message: string,
    /** The methods the path takes, as for the `Allow` header. */
    readonly allowed: string[],
  ) {
    super(message);
  }
}

/**
 * The answer to a request no route took: 405 with `Allow` when a declared
 * operation has its path (another method), 404 otherwise.
 */
export function unmatchedRequest(api: ApiRegistry): RequestHandler {
  return (req) => {
    const methods = api.methodsAt(req.path).map((m) => m.toUpperCase());
    // Express answers HEAD with the GET route, so a path with GET takes HEAD too.
    if (methods.includes('GET')) methods.push('HEAD');
    // Should a template match a path express did not route with this very method, "not allowed" would contradict `Allow`.
    if (methods.length === 0 || methods.includes(req.method)) throw new NotFoundError(`No route for ${req.method} ${req.path}`);
    const allowed = methods.sort();
    throw new MethodNotAllowedError(`${req.method} is not allowed on ${req.path}; it takes ${allowed.join(', ')}`, allowed);
  };
}
