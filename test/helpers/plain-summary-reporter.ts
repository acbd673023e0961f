import type { Reporter, TestModule } from 'vitest/node';

/**
 * Closes the run on one plain line, `N passed, N failed[, N skipped]`: the form CI's log reader
 * counts in any language (it does not read vitest's own summary, which splits the counts over
 * several lines). Printed after the default reporter's summary, with nothing before the counts
 * (a run closing on `Tests: N passed, N failed` was still recorded as having run no test).
 */
export default class PlainSummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const count = { passed: 0, failed: 0, skipped: 0 };
    for (const testModule of testModules) {
      // A file that failed to load has no test cases, yet it failed the run: count it as one.
      if (testModule.state() === 'failed' && [...testModule.children.allTests()].length === 0) count.failed++;
      for (const test of testModule.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') count.passed++;
        else if (state === 'failed') count.failed++;
        else count.skipped++;
      }
    }
    const skipped = count.skipped > 0 ? `, ${count.skipped} skipped` : '';
    process.stdout.write(`\n${count.passed} passed, ${count.failed} failed${skipped}\n`);
  }
}
