import type { ErrorRequestHandler, Request } from 'express';
import { z } from 'zod';
import { DomainError, InvalidRequestError, UnsupportedMediaTypeError, ValidationError } from '../../../shared/errors';
import { templateMatcher } from '../../http/path-template';

/**
 * AuthZEN's "Bad Request" (Authorization API 1.0, "Error Responses" of the HTTPS binding): a missing or ill-typed
 * member, a body that is not a JSON object (malformed, empty, another media type) is a 400 whose
 * body is an error message string, where the rest of the API answers Permit's 422 (or 415). The
 * message says what is wrong and where (`subject.id: …; action.name: …`), as the 422's `detail` would.
 */
export const authzenBadRequestSchema = z
  .string()
  .meta({ id: 'AuthZenBadRequest', description: 'What is wrong with the request, and where (`subject.id: …`)' });

/** How each AuthZEN operation declares its errors: the 400 above instead of the 415 and 422 it never answers. */
export const authzenErrors = {
  responses: {
    400: {
      description:
        'Bad Request (AuthZEN): a missing or ill-typed member, a body that is not a JSON object (malformed, empty), a Content-Type other than application/json, or a paging token this service did not issue; the body is the error message',
      schema: authzenBadRequestSchema,
    },
  },
  notAnswered: [415, 422],
};

/**
 * Answers the client errors of a request on one of `paths` (POST, OpenAPI templates) as AuthZEN's
 * 400 with the message; every other error, and every error elsewhere, is passed on. It is an
 * application error handler (not the route's), so it also answers what the body parser refused
 * before the route ran.
 */
export function authzenBadRequests(paths: string[]): ErrorRequestHandler {
  const matchers = paths.map(templateMatcher);
  return (error: unknown, req, res, next) => {
    if (res.headersSent || req.method !== 'POST' || !matchers.some((matches) => matches(req.path))) return next(error);
    const message = badRequestMessage(error);
    if (message === undefined) return next(error);
    res.status(400).json(message);
  };
}

/** The message of an error AuthZEN answers with 400, or undefined for any other. */
function badRequestMessage(error: unknown): string | undefined {
  if (error instanceof ValidationError) {
    return error.detail.map(({ loc, msg }) => `${where(loc)}: ${msg}`).join('; ');
  }
  if (error instanceof InvalidRequestError || error instanceof UnsupportedMediaTypeError) return error.message;
  if (error instanceof DomainError || typeof error !== 'object' || error === null) return undefined;
  // body-parser's (http-errors): a body that is not JSON, or does not decode, or in a charset it does not read.
  const { status, statusCode, type, message } = error as Record<string, unknown>;
  const httpStatus = typeof status === 'number' ? status : statusCode;
  if (type === 'entity.parse.failed') return 'The body is not valid JSON (it must be a JSON object)';
  if (httpStatus !== 400 && httpStatus !== 415) return undefined;
  return typeof message === 'string' ? message : 'The body could not be read';
}

/** `['body', 'evaluations', 0, 'subject']` → `evaluations[0].subject`; the body itself is `body`. */
function where(loc: Array<string | number>): string {
  const path = loc[0] === 'body' && loc.length > 1 ? loc.slice(1) : loc;
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? part : `.${part}`)).join('');
}

/**
 * AuthZEN requests MUST say `Content-Type: application/json` (the HTTPS binding): any other media type, or
 * none, is a 400 (the rest of the API reads a body without one as JSON, as Permit does).
 */
export function requireJsonContentType(req: Request): void {
  const contentType = req.headers['content-type'];
  const mediaType = contentType?.split(';', 1)[0]!.trim().toLowerCase();
  if (mediaType !== 'application/json') {
    throw new InvalidRequestError(
      contentType === undefined
        ? 'The request must say Content-Type: application/json'
        : `The body must be JSON (Content-Type: application/json), not '${contentType}'`,
    );
  }
}
