import type { NextFunction, Request, Response } from 'express';

/** What every JSON answer says it is, exactly: Permit's SDKs compare the header with this string. */
export const JSON_CONTENT_TYPE = 'application/json';

/**
 * Makes `res.json` answer `Content-Type: application/json` without the
 * `; charset=utf-8` express appends to every string body. JSON is UTF-8 by
 * definition (RFC 8259), and clients written against Permit's API compare the
 * header exactly. One middleware ahead of every route, so each answer
 * (errors included) goes through it. The body is handed to `res.send` as bytes,
 * which express sends with the Content-Type already set and nothing appended
 * (a string body would get the charset appended).
 */
export function exactJsonContentType(_req: Request, res: Response, next: NextFunction): void {
  res.json = function json(this: Response, body: unknown) {
    const app = this.app;
    const text = JSON.stringify(body, app.get('json replacer') as Parameters<typeof JSON.stringify>[1], app.get('json spaces') as number);
    // setHeader, not res.set: res.set looks the type up and appends the charset too.
    if (!this.get('Content-Type')) this.setHeader('Content-Type', JSON_CONTENT_TYPE);
    // JSON.stringify(undefined) is undefined: express sends an empty body then, and so does this.
    return this.send(text === undefined ? '' : Buffer.from(text, 'utf8'));
  };
  next();
}
