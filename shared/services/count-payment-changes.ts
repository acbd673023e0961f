/**
 * Counting payments from the table's stream: the payment part of the outbox's counting
 * (`count-stream-changes.ts` commits it with the delivery part, exactly once). The outbox
 * receives every creation and change of a charge item (old and new image); each one that moves
 * a count (a creation, a status change; `paymentCountDelta`) adds to the counters of its
 * creation time's minute, hour, day and month, summed per counter item over the batch. The
 * payment list's `total` reads these counters (`list-payments.ts`).
 *
 * The same records keep the per-day aggregates of the stats and metrics
 * (`shared/domain/payment-aggregates.ts`: creation, settlement and its volume, fees and time to
 * pay, expiry, cancellation, refusal, settled refunds, MED): their `ADD`s go in the same
 * transaction, under the same marker, so one record moves both or neither. Kept from the stream
 * rather than in each business step's transaction: off the money path (a settlement's transaction
 * keeps its items), summed per batch into one of the day's shards (a busy merchant's day takes
 * one write per batch, spread over its `walletShards` items, never the hot item a payment would
 * wait on) and idempotent by the marker.
 *
 * Off the charge's path: its own transactions are unchanged; the counters follow the stream
 * (within a poll interval locally, about a second on AWS).
 */

import {
  type ChargeImage,
  dayCellOf,
  dayFiguresDelta,
  itemIdsOfRecordChange,
  type PaymentRecordChange,
  sumDayChanges,
} from '../domain/payment-aggregates.ts';
import { paymentCountDelta, sumPaymentCountChanges } from '../domain/payment-counts.ts';
import type { MerchantScope } from '../domain/scope.ts';
import type { ItemKey, TransactItem } from '../store/client.ts';
import { paymentDayAddItem } from '../store/payment-aggregates.ts';
import { paymentCountAddItem } from '../store/payment-counts.ts';

/** One stream record of a charge item, as the outbox reads it. */
export interface PaymentChangeRecord {
  streamEventId: string;
  /** The charge item's key (its marker's name). */
  source: ItemKey;
  /** An INSERT: the charge's creation. */
  created: boolean;
  scope: MerchantScope;
  /** The old image (absent on creation). */
  before?: ChargeImage;
  after: ChargeImage;
}

/** What a record moves in the counters and day aggregates; `undefined` when nothing. */
export function paymentRecordChange(record: PaymentChangeRecord): PaymentRecordChange | undefined {
  const { scope, before, after } = record;
  const change: PaymentRecordChange = {
    counts: { scope, createdAt: after.createdAt, delta: paymentCountDelta(before?.status, after.status) },
    day: { cell: dayCellOf(scope, after), delta: dayFiguresDelta(before, after) },
  };
  return itemIdsOfRecordChange(change).length === 0 ? undefined : change;
}

/** The counter and day `ADD`s of some payment changes, summed per item. */
export const paymentCounterItems = (changes: readonly PaymentRecordChange[]): TransactItem[] => [
  ...sumPaymentCountChanges(changes.map((c) => c.counts)).map(({ cell, delta }) =>
    paymentCountAddItem(cell, delta),
  ),
  ...sumDayChanges(changes.map((c) => c.day)).map(({ cell, delta }) => paymentDayAddItem(cell, delta)),
];
