import type { RequestHandler } from 'express';
import type { Logger } from 'pino';

/**
 * One log line per finished request (`info`; `error` for 5xx, whose stack the
 * error middleware logs). Nothing is built per request when `info` is off: at
 * thousands of checks a second a per-request child logger and its listeners
 * cost more than the check itself. Headers are never logged (API keys).
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
      });
    });
    next();
  };
}

/** The access log's line for one answered request (`ms` is rounded to a tenth here). */
export function logAnswered(log: Logger, entry: { reqId: string; method: string; url: string; status: number; ms: number }): void {
  const line = { ...entry, ms: Math.round(entry.ms * 10) / 10 };
  if (entry.status >= 500) log.error(line, 'request failed');
  else log.info(line, 'request completed');
}
