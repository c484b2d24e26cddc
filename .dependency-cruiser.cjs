/**
 * The layer rule (README, "Architecture"): shared/ → services → composition, no way back.
 *   shared/                  the ground floor: imports nothing above it
 *   command-service/, projection-service/, task-service/
 *                            import shared/ and themselves, never each other or app/
 *   app/ and the entry points (main.ts, <service>/main.ts): the composition roots, may import anything below
 *   console/                 the web console: a browser client of the public API, apart from the server both ways
 * Tests and benchmarks stand above everything and are not checked.
 */
const SERVICES = '(command-service|projection-service|task-service)';
const TESTS = '([.](unit|int|e2e)[.]test[.]ts$|^test/|^bench/)';
/** The one server module the console imports (Permit's condition vocabulary, for the condition builder): it must stay browser-safe. */
const BROWSER_SAFE = '^shared/domain/abac/conditions[.]ts$';

module.exports = {
  forbidden: [
    {
      name: 'shared-imports-nothing-above',
      comment: 'shared/ is the ground floor: every process imports it, so it may import nothing above it.',
      severity: 'error',
      from: { path: '^shared/', pathNot: TESTS },
      to: { path: `^(${SERVICES}|app)/|^main[.]ts$` },
    },
    {
      name: 'services-import-only-shared',
      comment: 'A service folder imports shared/ and itself; what two services share belongs in shared/.',
      severity: 'error',
      from: { path: `^${SERVICES}/`, pathNot: [TESTS, '/main[.]ts$'] },
      to: { path: `^(${SERVICES}|app)/|^main[.]ts$`, pathNot: '^$1/' },
    },
    {
      name: 'console-talks-only-to-the-public-api',
      comment:
        'The web console (console/) is a client of the public HTTP API: it imports none of the server (but the one browser-safe module), and the server none of it.',
      severity: 'error',
      from: { path: '^console/' },
      to: { path: '^(main[.]ts$|app/|command-service/|projection-service/|task-service/|shared/)', pathNot: BROWSER_SAFE },
    },
    {
      name: 'browser-safe-module-imports-nothing',
      comment:
        'The console bundles this module into the page: any import (Node built-ins included) could pull server code into the browser.',
      severity: 'error',
      from: { path: BROWSER_SAFE },
      to: {},
    },
    {
      name: 'server-does-not-import-the-console',
      severity: 'error',
      from: { path: '^(main[.]ts$|app/|command-service/|projection-service/|task-service/|shared/)' },
      to: { path: '^console/' },
    },
    {
      name: 'composition-is-imported-by-entry-points-only',
      comment: 'app/ holds the composition roots; only the entry points (main.ts files) start them.',
      severity: 'error',
      from: { pathNot: ['^app/', '(^|/)main[.]ts$', TESTS] },
      to: { path: '^app/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|data|coverage|[.]cache)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    moduleSystems: ['cjs', 'es6'],
  },
};
