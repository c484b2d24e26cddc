// Runs a worker module from the TypeScript sources (start-worker-module.ts starts it with the
// module's path as its argument): each `.ts` module is compiled as jest compiles the tests
// (@swc/jest: the same compiler and target, CommonJS), without the type check, which is tsc's
// (npm run typecheck).
/* eslint-disable @typescript-eslint/no-require-imports -- node runs it as CommonJS, before any TypeScript */
const { readFileSync } = require('node:fs');
const { transformSync } = require('@swc/core');

require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(readFileSync(filename, 'utf8'), {
    filename,
    jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};

require(process.argv[2]);
