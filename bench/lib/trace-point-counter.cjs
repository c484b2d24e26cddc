/**
 * Preloaded into a service under the tracing bench (`NODE_OPTIONS=-r …/trace-point-counter.cjs`,
 * bench/scenarios/tracing.ts) to learn what tracing costs a request while it is off: every function
 * the built tracing modules export is wrapped with a counter, before the service loads them, and
 * so is the request listener `tracedRequests` returns (`server-span.request`), and
 * each thread (Node runs a preload in worker threads too) writes its counts to
 * `$TRACE_POINT_COUNTS_DIR/<pid>-<thread>.json` a few times a second. The bench reads the counts
 * before and after a load: the trace points a request passes, by function. The wrapper costs time
 * itself, so a counted service is used for counting only, never timed.
 *
 * Plain CommonJS: the service runs the compiled tree (dist/), without a TypeScript loader.
 */
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS, loaded by node -r */
const { renameSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { threadId } = require('node:worker_threads');

/** The tracing modules whose exports the service calls on its request paths (dist/shared/tracing). */
const MODULES = ['spans', 'server-span', 'trace-context'];

const dir = process.env.TRACE_POINT_COUNTS_DIR;
if (dir) {
  const root = join(__dirname, '..', '..', 'dist', 'shared', 'tracing');
  /** Calls by `<module>.<function>`. */
  const counts = {};
  for (const name of MODULES) {
    const exported = require(join(root, `${name}.js`));
    for (const [key, value] of Object.entries(exported)) {
      if (typeof value !== 'function' || /^[A-Z]/.test(key)) continue; // classes and enums are not trace points
      const counted = `${name}.${key}`;
      counts[counted] = 0;
      // tsc's CommonJS output assigns each export once (`exports.f = f`), and the modules that
      // import it call it through this object (`spans_1.inSpan(…)`): replacing the property here,
      // before any of them loads, is what every later call goes through.
      exported[key] = function (...args) {
        counts[counted]++;
        return value.apply(this, args);
      };
      // The request listener it returns is a trace point of every request (server-span.request).
      if (counted === 'server-span.tracedRequests') {
        counts['server-span.request'] = 0;
        exported[key] = function (...args) {
          counts[counted]++;
          const listener = value.apply(this, args);
          return function (...request) {
            counts['server-span.request']++;
            return listener.apply(this, request);
          };
        };
      }
    }
  }
  const file = join(dir, `${process.pid}-${threadId}.json`);
  // Written aside and renamed over the last counts, so that a reader never sees a file half written.
  const flush = () => {
    writeFileSync(`${file}.part`, JSON.stringify(counts));
    renameSync(`${file}.part`, file);
  };
  flush();
  setInterval(flush, 100).unref();
}
