// Test tiers by file suffix (DESIGN §5): unit = pure, int = embedded adapters and
// HTTP through supertest, e2e = real servers (Kafka, FerretDB) started by .ci/run, browser = the
// built service driven through Debian's chromium (npm run test:browser; .ci/run installs chromium).
const transform = { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] };
const project = (name, pattern) => ({
  displayName: name,
  testEnvironment: 'node',
  transform,
  testMatch: [`<rootDir>/**/*.${pattern}.test.ts`],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
});
module.exports = {
  projects: [project('unit', 'unit'), project('int', 'int'), project('e2e', 'e2e'), project('browser', 'browser')],
  testTimeout: 30000,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
