import { describe, expect, it } from 'vitest';
import {
  assertRefundable,
  automaticReturn,
  isOverdueRefund,
  refundCheckIntervalMs,
} from '../../shared/domain/refunds.ts';
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

  it('counts an automatic return of a Pix settled late from when it was recorded, not from the Pix', () => {
    const charge = { id: 'c1', accountId: 'a1', mode: 'live', currency: 'BRL' } as const;
    const devolution = { endToEndId: 'E1', amount: 100, reason: 'overpaid' };
    const settledAt = at(2 * hour).toISOString();
    const late = automaticReturn(charge, devolution, 're_1', createdAt, settledAt);
    expect(late).toMatchObject({ createdAt, recordedAt: settledAt });
    expect(isOverdueRefund(late, at(2 * hour + 1000), hour)).toBe(false);
    expect(isOverdueRefund(late, at(3 * hour), hour)).toBe(true);
    // Settled as it arrived: nothing to add.
    expect(automaticReturn(charge, devolution, 're_2', createdAt, createdAt)).not.toHaveProperty(
      'recordedAt',
    );
  });
});

describe('the next check of a refund in flight', () => {
  const createdAt = '2026-11-24T10:00:00.000Z';
  const at = (ms: number) => new Date(Date.parse(createdAt) + ms);

  it('is half its age since it was asked, from 2 s up to 10 min', () => {
    const requestedAt = at(60_000).toISOString();
    expect(refundCheckIntervalMs({ createdAt, requestedAt }, at(61_000))).toBe(2_000);
    expect(refundCheckIntervalMs({ createdAt, requestedAt }, at(60_000 + 120_000))).toBe(60_000);
    expect(refundCheckIntervalMs({ createdAt, requestedAt }, at(60_000 + 3_600_000))).toBe(600_000);
  });

  it('of an automatic return not asked yet, counts from its settlement, not from its Pix', () => {
    const recordedAt = at(3_600_000).toISOString();
    expect(refundCheckIntervalMs({ createdAt, recordedAt }, at(3_604_000))).toBe(2_000);
    expect(refundCheckIntervalMs({ createdAt }, at(3_604_000))).toBe(600_000);
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
