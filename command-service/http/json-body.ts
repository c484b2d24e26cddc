import express, { type RequestHandler } from 'express';
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { UnsupportedMediaTypeError, ValidationError } from '../../shared/errors';
import { PRE_READ_BODY, plainBodyLength, readBody, type PreReadRequest } from './fast-lane';

/**
 * How the API reads request bodies:
 * - JSON only. A body whose Content-Type names another media type (a form, text/plain) is
 *   refused with 415 naming it; `application/json` and `application/*+json` are read, and a
 *   body sent without a Content-Type is read as JSON (as Permit's API does).
 * - UTF-8 only: another charset is a 415 (body-parser's), bytes that are not UTF-8 a 422
 *   (body-parser would otherwise decode them to U+FFFD and the service would store that).
 * - Strings never hold NUL or a lone UTF-16 surrogate (`"\u0000"`, `"\ud800"`): neither
 *   survives storage and lookups faithfully, so they are refused with 422 naming the field.
 * - An empty body is no body: body-parser would read zero bytes (`Content-Length: 0`, what most
 *   clients send for a request without data) as `{}`, so `POST /v2/api-key` without a body
 *   would mean "all defaults". A route that takes a body refuses a missing one with 422.
 * Content encodings (gzip, deflate, br) are decoded by body-parser; one it does not know is a
 * 415 and a body that does not decode a 400, both mapped by the error middleware.
 */
export function jsonBody(limitBytes: number): RequestHandler[] {
  return [
    refuseOtherMediaTypes,
    readPlainBody(limitBytes),
    takePreReadBody,
    express.json({ limit: limitBytes, type: () => true, verify: checkEncoding }),
    emptyIsNoBody,
    refuseUnfaithfulStrings,
  ];
}

/** Set by `checkEncoding` when the raw body holds a `\u0000` or `\uD800`–`\uDFFF` escape. */
const SUSPECT_ESCAPES = Symbol('suspect-escapes');
/** Set by `checkEncoding` when the (decoded) body has no bytes. */
const EMPTY = Symbol('empty-body');
type CheckedRequest = IncomingMessage & { [SUSPECT_ESCAPES]?: boolean; [EMPTY]?: boolean };

const refuseOtherMediaTypes: RequestHandler = (req, _res, next) => {
  const contentType = req.headers['content-type'];
  if (contentType === undefined || !hasBody(req)) return next();
  const mediaType = contentType.split(';', 1)[0]!.trim().toLowerCase();
  if (mediaType === 'application/json' || (mediaType.startsWith('application/') && mediaType.endsWith('+json'))) return next();
  next(new UnsupportedMediaTypeError(`The body must be JSON (Content-Type: application/json), not '${contentType}'`));
};

function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/** Runs on the raw (decoded) bytes before JSON.parse. */
function checkEncoding(req: IncomingMessage, _res: unknown, body: Buffer, encoding: string): void {
  (req as CheckedRequest)[EMPTY] = body.length === 0;
  if (namesUtf8(encoding) && !isUtf8(body)) {
    throw new ValidationError([{ loc: ['body'], msg: 'The body is not valid UTF-8', type: 'value_error.unicode' }]);
  }
  // Raw NUL and unpaired surrogates cannot appear in valid JSON text in UTF-8: only as escapes. Scanning
  // the bytes for the escapes is cheap; the parsed body is walked only when one is there.
  (req as CheckedRequest)[SUSPECT_ESCAPES] = ESCAPE_PATTERN.test(body.toString('latin1'));
}
const ESCAPE_PATTERN = /\\u(0000|d[89a-f])/i;
/** `utf-8`, `UTF8`, ...: the charset names body-parser reads as UTF-8. */
const namesUtf8 = (charset: string): boolean => charset.toLowerCase().replace('-', '') === 'utf8';

/**
 * A body `jsonBody` would take as it is: UTF-8, and no escape that needs the walk for NUL and
 * lone surrogates. A fast lane answers only such bodies and hands every other to express.
 */
export const isPlainUtf8Json = (body: Buffer): boolean => isUtf8(body) && !ESCAPE_PATTERN.test(body.toString('latin1'));

/**
 * Reads the common body itself: a Content-Length within the limit, no content or transfer
 * encoding, and no charset or UTF-8. It then takes the path of a body a fast lane read
 * (`takePreReadBody`: the same checks and errors as `express.json`), without body-parser's
 * stream machinery, which cost a write about as much as its JSON parse (raw-body, iconv-lite, an
 * async resource per request). Every other body (too large, encoded, chunked, another charset)
 * is left to `express.json`, whose answers (413, 415, 400) it keeps.
 */
function readPlainBody(limitBytes: number): RequestHandler {
  return (req, _res, next) => {
    if ((req as PreReadRequest)[PRE_READ_BODY] !== undefined) return next();
    const length = plainBodyLength(req.headers, limitBytes);
    if (length === undefined) return next();
    const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(req.headers['content-type'] ?? '')?.[1];
    if (charset !== undefined && !namesUtf8(charset)) return next();
    readBody(req, length, (body) => {
      (req as PreReadRequest)[PRE_READ_BODY] = body;
      next();
    });
  };
}

/**
 * A body a fast lane (or `readPlainBody`) read before handing the request over (fast-lane.ts), parsed as
 * `express.json` parses one: the same checks, the same errors. `express.json` then leaves the
 * request alone (its stream has ended). A lane takes only UTF-8 JSON without a content encoding.
 */
const takePreReadBody: RequestHandler = (req, res, next) => {
  const body = (req as PreReadRequest)[PRE_READ_BODY];
  if (body === undefined) return next();
  try {
    checkEncoding(req, res, body, 'utf-8');
    req.body = parseLikeBodyParser(body.toString('utf8'));
  } catch (error) {
    return next(error);
  }
  next();
};

/** body-parser's strict JSON parse: `{}` for no bytes, an object or array only, its error type. */
function parseLikeBodyParser(text: string): unknown {
  if (text.length === 0) return {};
  const first = /\S/.exec(text)?.[0];
  try {
    if (first !== '{' && first !== '[') throw new SyntaxError(`Unexpected token ${first ?? 'end'}: not an object or array`);
    return JSON.parse(text);
  } catch (error) {
    throw Object.assign(error as Error, { status: 400, type: 'entity.parse.failed' });
  }
}

const emptyIsNoBody: RequestHandler = (req, _res, next) => {
  if ((req as CheckedRequest)[EMPTY]) req.body = undefined;
  next();
};

const refuseUnfaithfulStrings: RequestHandler = (req, _res, next) => {
  if (!(req as CheckedRequest)[SUSPECT_ESCAPES]) return next();
  const problems: ValidationError['detail'] = [];
  findUnfaithfulStrings(req.body, ['body'], problems);
  next(problems.length > 0 ? new ValidationError(problems) : undefined);
};

/** Iterative, so a deeply nested body cannot overflow the stack here. */
export function findUnfaithfulStrings(body: unknown, root: Array<string | number>, problems: ValidationError['detail']): void {
  const pending: Array<[unknown, Array<string | number>]> = [[body, root]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, loc] = next;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) problems.push({ loc, msg: 'must not contain NUL (\\u0000)', type: 'value_error.nul' });
      else if (!value.isWellFormed())
        problems.push({ loc, msg: 'must not contain a lone UTF-16 surrogate', type: 'value_error.surrogate' });
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) pending.push([value[i], [...loc, i]]);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value).reverse()) pending.push([item, [...loc, key]], [key, [...loc, key]]);
    }
  }
}
