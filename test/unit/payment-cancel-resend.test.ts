import { describe, expect, it } from 'vitest';
import type { ChargeRecord } from '../../shared/domain/charges.ts';
import { InvalidInput } from '../../shared/domain/errors.ts';
import { heldReturnJournal, isBalanced, reviewHoldJournal, walletDelta } from '../../shared/domain/ledger.ts';
import { planCancel } from '../../shared/domain/settlement.ts';
import { canApply, type TxStatus, txStatuses } from '../../shared/domain/transaction-status.ts';
import { eventNames } from '../../shared/domain/webhook-catalog.ts';
import { RESEND_EVENT, resendEvent } from '../../shared/domain/webhook-resend.ts';
import { chargeRecord } from '../helpers/charge-record.ts';

const now = new Date('2026-11-21T12:00:00.000Z');
const charge = (overrides: Partial<ChargeRecord> = {}): ChargeRecord =>
  chargeRecord({ metadata: { orderId: 'A-1' }, ...overrides });

/** The error `fn` throws (fails the test if it throws none). */
function thrown(fn: () => unknown): InvalidInput {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInput);
    return error as InvalidInput;
  }
  throw new Error('expected an error');
}

describe('planCancel', () => {
  it('cancels a payment awaiting payment, with its failure, and withdraws its cob first', () => {
    for (const status of ['WAITING_PAYMENT', 'PENDING'] as const) {
      const plan = planCancel(charge({ status }), now);
      expect(plan.next).toMatchObject({
        status: 'CANCELLED',
        updatedAt: now.toISOString(),
        metadata: { orderId: 'A-1' },
        failure: {
          reason: expect.any(String),
          providerErrorCode: 'canceled',
          ttlSeconds: 3600,
          at: now.toISOString(),
        },
      });
      expect(plan.withdrawTxid).toBe('a'.repeat(32));
      expect(plan.heldReturn).toBeUndefined();
    }
  });

  it('has no ttlSeconds nor cob to withdraw when there was no QR', () => {
    const plan = planCancel(charge({ brCode: undefined, txid: undefined }), now);
    expect(plan.next.failure).not.toHaveProperty('ttlSeconds');
    expect(plan.withdrawTxid).toBeUndefined();
  });

  it('returns a Pix held for review to its payer, and withdraws nothing (its cob was paid)', () => {
    const held = charge({ status: 'PROCESSING', endToEndId: 'E9999999920261121115900abcdefghijk' });
    const plan = planCancel(held, now);
    expect(plan.next.status).toBe('CANCELLED');
    expect(plan.withdrawTxid).toBeUndefined();
    expect(plan.heldReturn?.devolution).toEqual({
      endToEndId: 'E9999999920261121115900abcdefghijk',
      amount: 2000,
      reason: 'cancelled',
    });
    expect(plan.heldReturn).toBeDefined();
    const journal = plan.heldReturn!.journal;
    expect(journal).toEqual(heldReturnJournal(held.id, 'BRL', 2000));
    expect(isBalanced(journal)).toBe(true);
    expect(walletDelta(journal)).toEqual({ available: 0, pending: 0, retained: 0 });
    // Held then returned: nothing is left in review_hold nor at the acquirer.
    const entries = [...reviewHoldJournal(held.id, 'BRL', 2000).entries, ...journal.entries];
    for (const account of ['review_hold', 'psp_clearing'])
      expect(entries.filter((e) => e.account === account).reduce((t, e) => t + e.amount, 0)).toBe(0);
  });

  it('refuses a settled payment, pointing to a refund', () => {
    for (const status of ['PAID', 'APPROVED'] as const) {
      const error = thrown(() => planCancel(charge({ status }), now));
      expect(error.code).toBe('payment_not_cancellable');
      expect(error.message).toMatch(/refund/);
    }
  });

  it('refuses a disputed payment', () => {
    for (const status of ['DISPUTE', 'CHARGEBACK'] as const) {
      const error = thrown(() => planCancel(charge({ status }), now));
      expect(error.code).toBe('payment_not_cancellable');
      expect(error.message).toMatch(/disputed/);
    }
  });

  it('refuses every status the state machine does not cancel', () => {
    for (const status of txStatuses.filter((s) => !canApply('cancel', s))) {
      expect(thrown(() => planCancel(charge({ status }), now)).code).toBe('payment_not_cancellable');
    }
  });

  it('refuses a WAITING_PAYMENT payment past its expiry: it reads EXPIRED', () => {
    const late = charge({ expiresAt: now.toISOString() });
    const error = thrown(() => planCancel(late, now));
    expect(error.code).toBe('payment_not_cancellable');
    expect(error.message).toMatch(/EXPIRED/);
  });
});

describe('resendEvent', () => {
  let n = 0;
  const ctx = () => ({
    at: now.toISOString(),
    recordedAt: now.toISOString(),
    apiVersion: '2026-01-01',
    newEventId: () => `evt_${++n}`,
  });

  it('names, for every status, a legacy event of the catalog', () => {
    for (const status of txStatuses) {
      expect(eventNames.has(RESEND_EVENT[status])).toBe(true);
      expect(RESEND_EVENT[status]).toMatch(/^payment\./);
    }
    expect(RESEND_EVENT).toMatchObject({
      WAITING_PAYMENT: 'payment.created',
      PAID: 'payment.completed',
      APPROVED: 'payment.completed',
      EXPIRED: 'payment.expired',
      CANCELLED: 'payment.failed',
      REFUSED: 'payment.failed',
      REFUNDED: 'payment.refunded',
      DISPUTE: 'payment.failed',
      CHARGEBACK: 'payment.failed',
    });
  });

  it('re-emits the current status as a new legacy event, previousStatus the status itself', () => {
    for (const status of txStatuses.filter((s) => s !== 'PAID')) {
      const first = resendEvent(charge({ status }), ctx());
      const again = resendEvent(charge({ status }), ctx());
      expect(first.status).toBe(status);
      expect(first.event).toMatchObject({ family: 'legacy', type: RESEND_EVENT[status] });
      expect(first.event.payload).toEqual({
        event: RESEND_EVENT[status],
        data: {
          transactionId: charge().id,
          amount: 2000,
          status,
          previousStatus: status,
          occurredAt: now.toISOString(),
        },
      });
      expect(again.event.id).not.toBe(first.event.id);
    }
  });

  it('carries the settlement of a paid payment and the webhookUrl override', () => {
    const paid = charge({
      status: 'PAID',
      paidAt: now.toISOString(),
      fees: { providerFee: 16, platformFee: 24, netAmount: 1960 },
      webhookUrl: 'https://shop.example/hook',
      customerId: 'user-1',
    });
    const { status, event } = resendEvent(paid, ctx());
    expect(status).toBe('PAID');
    expect(event.type).toBe('payment.completed');
    expect(event.webhookUrl).toBe('https://shop.example/hook');
    expect(event.payload.data).toMatchObject({
      status: 'PAID',
      previousStatus: 'PAID',
      paidWith: 'PIX',
      providerFee: 16,
      platformFee: 24,
      netAmount: 1960,
      customerId: 'user-1',
    });
  });

  it('sends a WAITING_PAYMENT payment past its expiry as EXPIRED', () => {
    const { status, event } = resendEvent(charge({ expiresAt: now.toISOString() }), ctx());
    expect(status satisfies TxStatus).toBe('EXPIRED');
    expect(event.type).toBe('payment.expired');
    expect(event.payload.data).toMatchObject({ status: 'EXPIRED', previousStatus: 'EXPIRED' });
  });
});
