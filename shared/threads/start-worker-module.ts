import { extname, join } from 'node:path';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** Built, the modules are JavaScript; run from the sources (tests, the bench), TypeScript. */
const EXTENSION = extname(__filename);

/**
 * Starts the worker module `name` of the folder `dir` (the caller's `__dirname`) on a thread: its
 * built `.js`, or its `.ts` through run-typescript-worker.js. The thread's code is then a module
 * like any other (typed, linted, in the import graph), not a string of JavaScript.
 *
 * From the sources it does not load @swc-node/register on the thread (as the projection thread
 * does): that reads tsconfig.json through the TypeScript compiler, several tenths of a second per
 * thread, and the SQLite stores start one or two threads each, the tests many stores.
 */
export function startWorkerModule(dir: string, name: string, options: WorkerOptions = {}): Worker {
  const file = join(dir, `${name}${EXTENSION}`);
  if (EXTENSION !== '.ts') return new Worker(file, options);
  return new Worker(join(__dirname, 'run-typescript-worker.js'), { ...options, argv: [file] });
}

/**
 * A native library is unloaded when the last thread that loaded it exits, and the compiler's
 * (@swc/core) crashes the process when a thread loads it again: this thread keeps it loaded (under
 * jest and the bench it already is). Loaded with this module, not when a thread starts: a store
 * opened late (a test's service closing) may start one after jest has torn its module registry down.
 */
if (EXTENSION === '.ts') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- only run from the sources, where the compiler is installed
  require('@swc/core');
}
