import type { Reporter, SerializedError, TestModule } from 'vitest/node';

/**
 * Closes the run on one plain line, `N passed, N failed[, N skipped]`: the form CI's log reader
 * counts in any language (it does not read vitest's own summary, which splits the counts over
 * several lines). Printed after the default reporter's summary, with nothing before the counts
 * (a run closing on `Tests: N passed, N failed` was still recorded as having run no test).
 */
export default class PlainSummaryReporter implements Reporter {
  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError> = [],
  ): void {
    process.stdout.write(`\n${summaryLine(testModules, unhandledErrors.length)}\n`);
  }
}

type ModuleView = Pick<TestModule, 'state'> & {
  children: { allTests(): Iterable<{ result(): { state: string } }> };
};

/**
 * The counts of a run. A file that failed while none of its tests did (it failed to load, or an
 * `afterAll` threw: the ledger invariant and the contract check run there) counts as one failed,
 * and so does each error vitest caught outside any test: otherwise the line says `0 failed` for
 * a run that failed.
 */
export function summaryLine(testModules: ReadonlyArray<ModuleView>, unhandledErrors = 0): string {
  const count = { passed: 0, failed: unhandledErrors, skipped: 0 };
  for (const testModule of testModules) {
    let failedTests = 0;
    for (const test of testModule.children.allTests()) {
      const state = test.result().state;
      if (state === 'passed') count.passed++;
      else if (state === 'failed') failedTests++;
      else count.skipped++;
    }
    count.failed += testModule.state() === 'failed' && failedTests === 0 ? 1 : failedTests;
  }
  const skipped = count.skipped > 0 ? `, ${count.skipped} skipped` : '';
  return `${count.passed} passed, ${count.failed} failed${skipped}`;
}
