import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import pretty from 'pino-pretty';
import { activeSpanIds, tracing } from './tracing/spans';

export interface RootLoggerOptions {
  /**
   * `json`: one JSON object per line (for log collectors); `pretty`: readable
   * lines (pino-pretty). Default: pretty when stdout is a terminal, else json.
   */
  format?: 'json' | 'pretty';
  /** Where the lines go; default stdout. */
  destination?: DestinationStream;
}

/**
 * The one root logger of a process; modules get children of it. API keys are never logged.
 *
 * A child adds its bindings to every line as they are, after its parent's
 * (pino does not merge them): a child must not bind a key its parent bound
 * (e.g. a second `component`), nor log a key one of them bound, or the line
 * carries the key twice. Children of the root bind `component`; a child of a
 * component logger binds something else (`lease`, ...).
 */
export function createRootLogger(level: string, service: string, options: RootLoggerOptions = {}): Logger {
  const settings: LoggerOptions = {
    level,
    base: { service },
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'secret', '*.secret'], censor: '[redacted]' },
  };
  // A line written inside a span says which (`trace_id`, `span_id`); without tracing, no mixin runs at all.
  if (tracing.on) settings.mixin = () => activeSpanIds() ?? {};
  const format = options.format ?? (process.stdout.isTTY ? 'pretty' : 'json');
  if (format === 'pretty') return pino(settings, prettyStream(options.destination));
  return options.destination ? pino(settings, options.destination) : pino(settings);
}

/**
 * Readable lines, formatted in this thread and written synchronously (a
 * terminal is not a hot path, and nothing is lost when the process exits):
 * time, level, `component: message`, then the line's other fields as compact JSON.
 */
function prettyStream(destination: DestinationStream | undefined): DestinationStream {
  return pretty({
    destination: destination ?? 1,
    sync: true,
    colorize: destination === undefined && process.stdout.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,service,component',
    messageFormat: '{if component}{component}: {end}{msg}',
    singleLine: true,
  });
}
