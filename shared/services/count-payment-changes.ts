/**
 * Counting payments from the table's stream, exactly once: the outbox receives every creation
 * and change of a charge item (old and new image); each one that moves a count (a creation, a
 * status change; `paymentCountDelta`) adds to the counters of its creation time's minute, hour,
 * day and month, summed per counter item over the batch and written with one marker per counted
 * record in one transaction per chunk (`stream-counting.ts`), so a batch delivered again counts
 * nothing twice. The payment list's `total` reads these counters (`list-payments.ts`).
 *
 * The same records keep the per-day aggregates of the stats and metrics
 * (`shared/domain/payment-aggregates.ts`: creation, settlement and its volume, fees and time to
 * pay, expiry, cancellation, refusal, settled refunds, MED): their `ADD`s go in the same
 * transaction, under the same marker, so one record moves both or neither. Kept from the stream
 * rather than in each business step's transaction: off the money path (a settlement's transaction
 * keeps its items), summed per batch (a busy merchant's day item takes one write per batch, not one
 * per settlement, so it never becomes the hot item a payment would wait on) and idempotent by the
 * marker.
 *
 * Off the charge's path: its own transactions are unchanged; the counters follow the stream
 * (within a poll interval locally, about a second on AWS).
 */

import {
  type ChargeImage,
  chunkPaymentRecordChanges,
  dayCellOf,
  dayFiguresDelta,
  itemIdsOfRecordChange,
  type PaymentRecordChange,
  sumDayChanges,
} from '../domain/payment-aggregates.ts';
import { paymentCountDelta, sumPaymentCountChanges } from '../domain/payment-counts.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { paymentDayAddItem } from '../store/payment-aggregates.ts';
import { paymentCountAddItem, paymentCountMarkerItem } from '../store/payment-counts.ts';
import { type Counted, type CountResult, commitCounted, MAX_TRANSACTION_ITEMS } from './stream-counting.ts';

/** One stream record of a charge item, as the outbox reads it. */
export interface PaymentChangeRecord {
  streamEventId: string;
  scope: MerchantScope;
  /** The old image (absent on creation). */
  before?: ChargeImage;
  after: ChargeImage;
}

/**
 * Counts the payment changes of one stream batch (in stream order; `undefined` for records that
 * are not charge changes). On a failure the earliest record not known to be counted is reported.
 */
export async function countPaymentChanges(
  records: readonly (PaymentChangeRecord | undefined)[],
  clock: () => Date = () => new Date(),
): Promise<CountResult> {
  const counted: Counted<PaymentRecordChange>[] = [];
  records.forEach((record, index) => {
    if (!record) return;
    const { streamEventId, scope, before, after } = record;
    const change: PaymentRecordChange = {
      counts: { scope, createdAt: after.createdAt, delta: paymentCountDelta(before?.status, after.status) },
      day: { cell: dayCellOf(scope, after), delta: dayFiguresDelta(before, after) },
    };
    if (itemIdsOfRecordChange(change).length === 0) return;
    counted.push({ index, streamEventId, change });
  });
  return commitCounted(
    chunkPaymentRecordChanges(counted, MAX_TRANSACTION_ITEMS),
    {
      counters: (changes) => [
        ...sumPaymentCountChanges(changes.map((c) => c.counts)).map(({ cell, delta }) =>
          paymentCountAddItem(cell, delta),
        ),
        ...sumDayChanges(changes.map((c) => c.day)).map(({ cell, delta }) => paymentDayAddItem(cell, delta)),
      ],
      marker: paymentCountMarkerItem,
    },
    clock(),
  );
}
