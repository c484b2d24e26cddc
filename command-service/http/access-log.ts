import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { AuthContext } from './auth';

/**
 * One log line per finished request (`info`; `error` for 5xx, whose stack the
 * error middleware logs). Nothing is built per request when `info` is off: at
 * thousands of checks a second a per-request child logger and its listeners
 * cost more than the check itself. Headers are never logged (API keys): the
 * key that made the request is named by its id and name (`key`), absent when
 * the request had none the service knows (a 401).
 */
export function accessLog(logger: Logger): RequestHandler {
  const log = logger.child({ component: 'http' });
  return (req, res, next) => {
    if (!log.isLevelEnabled('info')) return next();
    const started = performance.now();
    res.once('finish', () => {
      logAnswered(log, {
        reqId: res.locals.requestId as string,
        method: req.method,
        url: req.originalUrl,
        status: res.statusCode,
        ms: performance.now() - started,
        key: keyOf(res.locals.auth as AuthContext | undefined),
      });
    });
    next();
  };
}

/** The access log's line for one answered request (`ms` is rounded to a tenth here). */
export function logAnswered(
  log: Logger,
  entry: { reqId: string; method: string; url: string; status: number; ms: number; key: LoggedKey | undefined },
  /** The trace's ids, from a lane that carries its trace explicitly (the logger's mixin sees only the active context). */
  span?: { trace_id: string; span_id: string },
): void {
  const { key, ...rest } = entry;
  const line = { ...rest, ms: Math.round(entry.ms * 10) / 10, ...(key ? { key } : {}), ...span };
  if (entry.status >= 500) log.error(line, 'request failed');
  else log.info(line, 'request completed');
}

/** The key as the access log names it. */
export interface LoggedKey {
  id: string;
  name: string;
}

export const keyOf = (auth: AuthContext | undefined): LoggedKey | undefined => (auth ? { id: auth.keyId, name: auth.keyName } : undefined);
