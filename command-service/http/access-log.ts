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
      const entry = {
        reqId: res.locals.requestId as string,
        method: req.method,
        url: req.originalUrl,
        status: res.statusCode,
        ms: Math.round((performance.now() - started) * 10) / 10,
      };
      if (res.statusCode >= 500) log.error(entry, 'request failed');
      else log.info(entry, 'request completed');
    });
    next();
  };
}
