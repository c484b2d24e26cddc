import type { RequestHandler } from 'express';
import { DomainError, NotFoundError } from '../../shared/errors';
import { NotServedError, notServedFeature } from './not-served';
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
 * operation has its path (another method), else 501 naming the feature when it
 * is a part of Permit's API not served here (not-served.ts), 404 otherwise.
 */
export function unmatchedRequest(api: ApiRegistry): RequestHandler {
  return (req) => {
    const methods = allowedAt(api, req.path);
    // A declared path comes first: a family not served here may still have operations that are (the PDP's decision logs under /v2/pdps).
    if (methods.length > 0) {
      // Should a template match a path express did not route with this very method, "not allowed" would contradict `Allow`.
      if (methods.includes(req.method)) throw new NotFoundError(`No route for ${req.method} ${req.path}`);
      throw new MethodNotAllowedError(`${req.method} is not allowed on ${req.path}; it takes ${methods.join(', ')}`, methods);
    }
    const feature = notServedFeature(req.path);
    if (feature !== undefined) {
      throw new NotServedError(`${feature} is not served by this service (${req.method} ${req.path}); see docs/permit-compat.md`, {
        feature,
      });
    }
    throw new NotFoundError(`No route for ${req.method} ${req.path}`);
  };
}

/** The methods for `Allow` at a path, sorted: the declared ones, and HEAD where GET is (express answers HEAD with the GET route). */
function allowedAt(api: ApiRegistry, path: string): string[] {
  const methods = api.methodsAt(path).map((m) => m.toUpperCase());
  if (methods.includes('GET')) methods.push('HEAD');
  return methods.sort();
}

/**
 * `OPTIONS` on a declared path: 204 with `Allow` from the declarations. Express's own answer
 * would list the methods of every route the path matches, so `/v2/api-key/scope` would also
 * advertise the DELETE of `/v2/api-key/{api_key_id}`, which it does not take.
 */
export function answerOptions(api: ApiRegistry): RequestHandler {
  return (req, res, next) => {
    if (req.method !== 'OPTIONS') return next();
    const allowed = allowedAt(api, req.path);
    if (allowed.length === 0) return next();
    res.setHeader('Allow', allowed.join(', '));
    res.status(204).end();
  };
}
