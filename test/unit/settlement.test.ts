import { describe, expect, it } from 'vitest';
import { computeFees } from '../../shared/domain/account-settings.ts';
import type { ChargeRecord } from '../../shared/domain/charges.ts';
import { effectiveStatus, serializeCharge } from '../../shared/domain/charges.ts';
import {
  isBalanced,
  releaseJournal,
  returnJournal,
  reviewHoldJournal,
  settlementJournal,
  walletDelta,
} from '../../shared/domain/ledger.ts';
import { decideSettlement } from '../../shared/domain/settlement.ts';
import { assertWithinVelocity } from '../../shared/domain/velocity.ts';
import { chargeRecord } from '../helpers/charge-record.ts';

const now = Date.parse('2026-11-21T12:00:00.000Z');
const charge = (overrides: Partial<ChargeRecord> = {}): ChargeRecord =>
  chargeRecord({
    id: '01a1fca963fca9d1a6a8b094',
    amount: 1000,
    customer: { name: 'M', document: '52998224725', email: 'm@example.com', phone: '+5511999990000' },
    expiresAt: new Date(now + 60_000).toISOString(),
    createdAt: new Date(now - 60_000).toISOString(),
    updatedAt: new Date(now - 60_000).toISOString(),
    ...overrides,
  });
const pix = (overrides = {}) => ({
  endToEndId: 'E',
  amount: 1000,
  receivedAt: new Date(now).toISOString(),
  ...overrides,
});

describe('decideSettlement', () => {
  it('credits an unlocked charge paid in full', () => {
    expect(decideSettlement(charge(), pix())).toEqual({ kind: 'credit' });
  });
  it('returns underpayments, overpayments, late and repeated payments', () => {
    expect(decideSettlement(charge(), pix({ amount: 999 }))).toEqual({ kind: 'return', reason: 'underpaid' });
    expect(decideSettlement(charge(), pix({ amount: 1001 }))).toEqual({ kind: 'return', reason: 'overpaid' });
    expect(decideSettlement(charge({ expiresAt: new Date(now).toISOString() }), pix())).toEqual({
      kind: 'return',
      reason: 'expired',
    });
    expect(decideSettlement(charge({ status: 'PAID' }), pix())).toEqual({
      kind: 'return',
      reason: 'not_payable',
    });
  });
  it('applies the payer lock: match credits, mismatch refunds, unknown payer holds', () => {
    const locked = charge({ expectedPayerTaxId: '52998224725' });
    expect(decideSettlement(locked, pix({ payerDocument: '52998224725' }))).toEqual({ kind: 'credit' });
    expect(decideSettlement(locked, pix({ payerDocument: '11144477735' }))).toEqual({
      kind: 'refund',
      reason: 'payer_mismatch',
    });
    expect(decideSettlement(locked, pix())).toEqual({ kind: 'hold' });
  });
  it('refunds when the acquirer says, without naming the payer, that the expected payer did not pay', () => {
    const locked = charge({ expectedPayerTaxId: '52998224725' });
    expect(decideSettlement(locked, pix({ expectedPayerPaid: false }))).toEqual({
      kind: 'refund',
      reason: 'payer_mismatch',
    });
    expect(decideSettlement(charge(), pix({ expectedPayerPaid: false }))).toEqual({ kind: 'credit' });
  });
});

describe('fees and the ledger', () => {
  it('splits an amount into fees and net with integer centavos that add up', () => {
    const fees = computeFees(12_345, { providerFeeBps: 80, providerFeeFixed: 10, platformFeeBps: 120 });
    expect(fees).toEqual({ providerFee: 109, platformFee: 148, netAmount: 12_088 });
    expect(computeFees(1, { providerFeeBps: 80, providerFeeFixed: 10, platformFeeBps: 120 })).toEqual({
      providerFee: 1,
      platformFee: 0,
      netAmount: 0,
    });
  });
  it('builds balanced journals that move the wallet as intended', () => {
    const fees = computeFees(10_000, { providerFeeBps: 80, providerFeeFixed: 0, platformFeeBps: 120 });
    const settled = settlementJournal('c', 'BRL', 10_000, fees, false);
    const held = settlementJournal('c', 'BRL', 10_000, fees, true);
    for (const journal of [
      settled,
      held,
      returnJournal('c', 'BRL', 500),
      reviewHoldJournal('c', 'BRL', 500),
      releaseJournal('c', 'BRL', 700),
    ]) {
      expect(isBalanced(journal)).toBe(true);
    }
    expect(walletDelta(settled)).toEqual({ available: fees.netAmount, pending: 0, retained: 0 });
    expect(walletDelta(held)).toEqual({ available: 0, pending: fees.netAmount, retained: 0 });
    expect(walletDelta(returnJournal('c', 'BRL', 500))).toEqual({ available: 0, pending: 0, retained: 0 });
    expect(walletDelta(releaseJournal('c', 'BRL', 700))).toEqual({
      available: 700,
      pending: -700,
      retained: 0,
    });
  });
});

describe('charge serializer and events', () => {
  it('never exposes e-mail, phone, payer, fees or provider fields', () => {
    const body = JSON.stringify(
      serializeCharge(
        charge({
          payer: { document: '11144477735' },
          fees: { providerFee: 8, platformFee: 12, netAmount: 980 },
        }),
        now,
      ),
    );
    for (const secret of [
      'm@example.com',
      '5511999990000',
      '11144477735',
      'sandbox',
      'netAmount',
      'acct_x',
      'key-12345',
    ])
      expect(body).not.toContain(secret);
  });
  it('reads a pending charge past its expiry as expired', () => {
    expect(effectiveStatus(charge({ expiresAt: new Date(now).toISOString() }), now)).toBe('EXPIRED');
    expect(effectiveStatus(charge(), now)).toBe('WAITING_PAYMENT');
  });
});

describe('velocity guard', () => {
  const limits = { customerMaxCharges: 2, customerWindowSeconds: 600, accountMaxPending: 3 };
  const at = new Date(now);
  const minutesAgo = (m: number) => new Date(now - m * 60_000).toISOString();
  it('counts only the customer’s live charges inside the window', () => {
    expect(() =>
      assertWithinVelocity(limits, [minutesAgo(1), minutesAgo(20), minutesAgo(30)], 0, at),
    ).not.toThrow();
    expect(() => assertWithinVelocity(limits, [minutesAgo(1), minutesAgo(9)], 0, at)).toThrow(
      expect.objectContaining({ name: 'VelocityExceeded', code: 'fraud.customer_velocity_exceeded' }),
    );
  });
  it('stops at the account’s live-charge limit', () => {
    expect(() => assertWithinVelocity(limits, [], 2, at)).not.toThrow();
    expect(() => assertWithinVelocity(limits, [], 3, at)).toThrow(
      expect.objectContaining({ code: 'fraud.account_velocity_exceeded' }),
    );
  });
});
