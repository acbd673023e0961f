import { describe, expect, it } from 'vitest';
import type { ChargeRecord } from '../../shared/domain/charges.ts';
import { transitionEvents } from '../../shared/domain/events.ts';
import {
  awaitingPayment,
  canApply,
  eventTypesOf,
  nextStatus,
  PUBLIC_STATUS,
  TRANSITIONS,
  type Trigger,
  type TxStatus,
  txStatuses,
} from '../../shared/domain/transaction-status.ts';

// The whole machine as Part 2 states it (README, "API decisions", for the events beyond its table): trigger, from, to, events.
const TABLE: [Trigger, (TxStatus | null)[], TxStatus, string[]][] = [
  ['create', [null], 'WAITING_PAYMENT', ['charge.created', 'payment.created']],
  ['refuse', [null], 'REFUSED', ['charge.failed', 'payment.failed']],
  [
    'pay',
    ['WAITING_PAYMENT', 'PENDING'],
    'PAID',
    ['charge.paid', 'payment.completed', 'payment.status_changed'],
  ],
  ['holdForReview', ['WAITING_PAYMENT', 'PENDING'], 'PROCESSING', ['payment.status_changed']],
  [
    'returnToPayer',
    ['WAITING_PAYMENT', 'PENDING'],
    'REFUNDED',
    ['payment.refunded', 'payment.status_changed'],
  ],
  [
    'expire',
    ['WAITING_PAYMENT', 'PENDING'],
    'EXPIRED',
    ['charge.expired', 'payment.expired', 'payment.failed', 'payment.status_changed'],
  ],
  [
    'cancel',
    ['WAITING_PAYMENT', 'PENDING', 'PROCESSING'],
    'CANCELLED',
    ['charge.failed', 'payment.failed', 'payment.status_changed'],
  ],
  ['refundInFull', ['PAID', 'APPROVED'], 'REFUNDED', ['payment.refunded', 'payment.status_changed']],
  ['openDispute', ['PAID', 'APPROVED'], 'DISPUTE', ['payment.failed', 'payment.status_changed']],
  ['winDispute', ['DISPUTE'], 'PAID', ['payment.status_changed']],
  ['loseDispute', ['DISPUTE'], 'CHARGEBACK', ['payment.failed', 'payment.status_changed']],
];

describe('the transaction state machine', () => {
  it('has exactly the transitions of the table', () => {
    expect(Object.keys(TRANSITIONS).sort()).toEqual(TABLE.map(([trigger]) => trigger).sort());
  });

  it.each(TABLE)('%s: from %j to %s, emitting %j', (trigger, from, to, events) => {
    for (const status of from) {
      expect(nextStatus(trigger, status)).toBe(to);
      expect(eventTypesOf(trigger, status)).toEqual(
        status === null ? events.filter((e) => e !== 'payment.status_changed') : events,
      );
    }
    // Every other status is refused: the store's condition would fail there too.
    for (const status of [null, ...txStatuses].filter((s) => !from.includes(s))) {
      expect(canApply(trigger, status)).toBe(false);
      expect(() => nextStatus(trigger, status)).toThrow(/No transition/);
    }
  });

  it('never changes status without payment.status_changed, the catch-all legacy alias', () => {
    for (const [trigger, from, to] of TABLE)
      for (const status of from)
        if (status !== null && status !== to)
          expect(eventTypesOf(trigger, status)).toContain('payment.status_changed');
  });

  it('sends no charge.* event because of a MED', () => {
    for (const trigger of ['openDispute', 'winDispute', 'loseDispute'] as const)
      expect(eventTypesOf(trigger, TRANSITIONS[trigger].from[0]).some((t) => t.startsWith('charge.'))).toBe(
        false,
      );
  });

  it('awaits payment exactly where a Pix may settle it', () => {
    expect(txStatuses.filter(awaitingPayment)).toEqual(['PENDING', 'WAITING_PAYMENT']);
  });

  it('maps every status to the public vocabulary of Part 2', () => {
    expect(PUBLIC_STATUS).toEqual({
      PENDING: 'pending',
      WAITING_PAYMENT: 'pending',
      PROCESSING: 'processing',
      PAID: 'paid',
      APPROVED: 'paid',
      REFUSED: 'failed',
      CANCELLED: 'cancelled',
      EXPIRED: 'expired',
      REFUNDED: 'refunded',
      CHARGEBACK: 'disputed',
      DISPUTE: 'disputed',
    });
  });

  it('builds the events of a transition with their previous status, ids and api version handed in', () => {
    let n = 0;
    const charge = {
      id: 'c1',
      status: 'EXPIRED',
      amount: 100,
      customer: {},
      metadata: {},
      baseUrl: 'https://pix.example',
      expiresAt: '2026-11-21T10:00:00.000Z',
    } as unknown as ChargeRecord;
    const events = transitionEvents('expire', charge, 'WAITING_PAYMENT', {
      at: '2026-11-21T10:00:00.000Z',
      recordedAt: '2026-11-21T10:00:00.000Z',
      apiVersion: '2099-01-01',
      newEventId: () => `evt_${++n}`,
    });
    expect(events.map((e) => [e.id, e.type, e.family])).toEqual([
      ['evt_1', 'charge.expired', 'canonical'],
      ['evt_2', 'payment.expired', 'legacy'],
      ['evt_3', 'payment.failed', 'legacy'],
      ['evt_4', 'payment.status_changed', 'legacy'],
    ]);
    expect(events[0]?.payload).toMatchObject({ api_version: '2099-01-01', type: 'charge.expired' });
    expect(events[3]?.payload).toMatchObject({
      event: 'payment.status_changed',
      data: { status: 'EXPIRED', previousStatus: 'WAITING_PAYMENT' },
    });
  });
});
