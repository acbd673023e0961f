import { describe, expect, it } from 'vitest';
import { assertRefundable, isOverdueRefund } from '../../shared/domain/refunds.ts';
import { chargeRecord } from '../helpers/charge-record.ts';

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

describe('a devolution needs the Pix it returns', () => {
  const paid = chargeRecord({ status: 'PAID' });
  const devolution = { strategy: 'devolution', passFeeToTenant: false, amount: 500 } as const;
  const now = Date.parse('2026-11-21T12:00:00.000Z');

  it('refuses a paid payment with no end-to-end id (payment_not_refundable, param strategy)', () => {
    expect(() => assertRefundable(paid, devolution, now)).toThrow(
      expect.objectContaining({ code: 'payment_not_refundable', param: 'strategy' }),
    );
  });

  it('returns part of one that has it', () => {
    expect(
      assertRefundable({ ...paid, endToEndId: 'E99999999202611241030abcdefghijk' }, devolution, now),
    ).toBe(500);
  });
});
