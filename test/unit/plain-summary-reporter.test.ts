import { describe, expect, it } from 'vitest';
import { summaryLine } from '../helpers/plain-summary-reporter.ts';

const file = (state: string, tests: string[]) => ({
  state: () => state as never,
  children: { allTests: () => tests.map((s) => ({ result: () => ({ state: s }) })) },
});

describe('the plain summary line CI counts', () => {
  it('counts passed, failed and skipped tests', () => {
    expect(summaryLine([file('passed', ['passed', 'skipped']), file('failed', ['passed', 'failed'])])).toBe(
      '2 passed, 1 failed, 1 skipped',
    );
  });

  it('counts a file whose afterAll failed (the ledger invariant) as failed, though its tests passed', () => {
    expect(summaryLine([file('failed', ['passed', 'passed'])])).toBe('2 passed, 1 failed');
  });

  it('counts a file that failed to load, and each error outside any test', () => {
    expect(summaryLine([file('failed', []), file('passed', ['passed'])], 2)).toBe('1 passed, 3 failed');
  });
});
