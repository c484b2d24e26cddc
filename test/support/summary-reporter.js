// Prints one plain closing line, `tests: N passed, N failed[, N skipped]`, that CI
// log readers understand whatever the runner (jest's own summary is not one of them).
// With CI_TALLY_FILE set (.ci/run), the counts are also appended to that file, which
// .ci/run sums into the closing line of the whole run (scripts/junit-tally.py does the same).
// eslint-disable-next-line @typescript-eslint/no-require-imports -- jest loads reporters as CommonJS
const fs = require('node:fs');

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    process.stdout.write(`\ntests: ${results.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
    if (process.env.CI_TALLY_FILE) {
      fs.appendFileSync(process.env.CI_TALLY_FILE, `${results.numPassedTests} ${failed} ${skipped}\n`);
    }
  }
}
module.exports = SummaryReporter;
