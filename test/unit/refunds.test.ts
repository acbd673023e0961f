import { describe, expect, it } from 'vitest';
import { isOverdueRefund } from '../../shared/domain/refunds.ts';

describe('an overdue refund', () => {
  const createdAt = '2026-11-24T10:00:00.000Z';
  const hour = 3_600_000;
  const at = (ms: number) => new Date(Date.parse(createdAt) + ms);

  it.each([
    ['PENDING', hour, true],
    ['IN_PROGRESS', hour + 1, true],
    ['IN_PROGRESS', hour - 1, false],
    ['REFUNDED', 2 * hour, false],
    ['FAILED', 2 * hour, false],
  ] as const)('%s, %i ms after it was made: %s', (status, age, overdue) => {
    expect(isOverdueRefund({ status, createdAt }, at(age), hour)).toBe(overdue);
  });
});
