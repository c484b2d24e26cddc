import pino, { type Logger } from 'pino';

/** The one root logger of a process; modules get children of it. API keys are never logged. */
export function createRootLogger(level: string, service: string): Logger {
  return pino({
    level,
    base: { service },
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'secret', '*.secret'], censor: '[redacted]' },
  });
}
