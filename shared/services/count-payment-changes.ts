/**
 * Counting payments from the table's stream, exactly once: the outbox receives every creation
 * and change of a charge item (old and new image); each one that moves a count (a creation, a
 * status change; `paymentCountDelta`) adds to the counters of its creation time's minute, hour,
 * day and month, summed per counter item over the batch and written with one marker per counted
 * record in one transaction per chunk (`stream-counting.ts`), so a batch delivered again counts
 * nothing twice. The payment list's `total` reads these counters (`list-payments.ts`).
 *
 * Off the charge's path: its own transactions are unchanged; the counters follow the stream
 * (within a poll interval locally, about a second on AWS).
 */

import {
  chunkPaymentCountChanges,
  isEmptyPaymentDelta,
  type PaymentCountChange,
  paymentCountDelta,
  sumPaymentCountChanges,
} from '../domain/payment-counts.ts';
import type { MerchantScope } from '../domain/scope.ts';
import type { TxStatus } from '../domain/transaction-status.ts';
import { paymentCountAddItem, paymentCountMarkerItem } from '../store/payment-counts.ts';
import { type Counted, type CountResult, commitCounted, MAX_TRANSACTION_ITEMS } from './stream-counting.ts';

/** One stream record of a charge item, as the outbox reads it. */
export interface PaymentChangeRecord {
  streamEventId: string;
  scope: MerchantScope;
  createdAt: string;
  /** The old image's status (absent on creation). */
  before?: TxStatus;
  after: TxStatus;
}

/**
 * Counts the payment changes of one stream batch (in stream order; `undefined` for records that
 * are not charge changes). On a failure the earliest record not known to be counted is reported.
 */
export async function countPaymentChanges(
  records: readonly (PaymentChangeRecord | undefined)[],
  clock: () => Date = () => new Date(),
): Promise<CountResult> {
  const counted: Counted<PaymentCountChange>[] = [];
  records.forEach((record, index) => {
    if (!record) return;
    const delta = paymentCountDelta(record.before, record.after);
    if (isEmptyPaymentDelta(delta)) return;
    const { streamEventId, scope, createdAt } = record;
    counted.push({ index, streamEventId, change: { scope, createdAt, delta } });
  });
  return commitCounted(
    chunkPaymentCountChanges(counted, MAX_TRANSACTION_ITEMS),
    {
      counters: (changes) =>
        sumPaymentCountChanges(changes).map(({ cell, delta }) => paymentCountAddItem(cell, delta)),
      marker: paymentCountMarkerItem,
    },
    clock(),
  );
}
