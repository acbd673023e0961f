import { describe, expect, it } from 'vitest';
import type { ChargeRecord } from '../../shared/domain/charges.ts';
import { assertRefundable, isOverdueRefund } from '../../shared/domain/refunds.ts';

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
  const paid: ChargeRecord = {
    id: '019a1b2c-3d4e-7f50-8a9b-0c1d2e3f4a5b',
    accountId: 'acct_x',
    mode: 'test',
    amount: 2000,
    currency: 'BRL',
    status: 'PAID',
    paymentMethod: 'pix',
    customer: {},
    metadata: {},
    idempotencyKey: 'key-12345',
    baseUrl: 'https://api.example.com',
    provider: 'sandbox',
    txid: 'a'.repeat(32),
    brCode: '000201',
    expiresAt: '2026-11-24T11:00:00.000Z',
    createdAt: '2026-11-24T10:00:00.000Z',
    updatedAt: '2026-11-24T10:00:00.000Z',
  };
  const devolution = { strategy: 'devolution', passFeeToTenant: false, amount: 500 } as const;
  const now = Date.parse('2026-11-24T10:30:00.000Z');

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
