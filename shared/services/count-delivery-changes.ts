/**
 * Counting delivery changes from the table's stream, exactly once. The outbox receives every
 * creation and change of a delivery item (old and new image); each one whose counts move
 * (`countDelta`) is summed per counter item over the batch, and the sums are written in one
 * `TransactWriteItems` with one marker per counted record (`COUNTED#<eventID>`, put only if
 * new; `stream-counting.ts`). A batch delivered again (Lambda retries from the earliest failed
 * record) finds its markers: those records are dropped, the rest summed again, and the
 * transaction sent again, so no change is counted twice and none is lost.
 *
 * Off the delivery's path: creating or changing a delivery is one single-item write, and the
 * counters follow the stream (within a poll interval locally, about a second on AWS).
 */

import type { MerchantScope } from '../domain/scope.ts';
import {
  chunkCountChanges,
  countDelta,
  type DeliveryCountChange,
  type DeliveryStatus,
  isEmptyDelta,
  sumCountChanges,
} from '../domain/webhook-deliveries.ts';
import { countedMarkerItem, counterAddItem } from '../store/webhook-deliveries.ts';
import { type Counted, type CountResult, commitCounted, MAX_TRANSACTION_ITEMS } from './stream-counting.ts';

export type { CountResult } from './stream-counting.ts';

/** One stream record of a delivery item, as the outbox reads it. */
export interface DeliveryChangeRecord {
  /** The stream record's `eventID`: the same on every delivery of the record. */
  streamEventId: string;
  scope: MerchantScope;
  deliveryId: string;
  eventType: string;
  endpointId: string | null;
  /** The old image (absent on creation). */
  before?: DeliveryStatus;
  after: DeliveryStatus;
}

/**
 * Counts the delivery changes of one stream batch (in stream order; `undefined` for records
 * that are not delivery changes). On a failure the earliest record not known to be counted is
 * reported (the chunks before it are committed): the stream retries from there, and its markers
 * make the records already counted add nothing.
 */
export async function countDeliveryChanges(
  records: readonly (DeliveryChangeRecord | undefined)[],
  clock: () => Date = () => new Date(),
): Promise<CountResult> {
  const counted: Counted<DeliveryCountChange>[] = [];
  records.forEach((record, index) => {
    if (!record) return;
    const delta = countDelta(record.before, record.after);
    if (isEmptyDelta(delta)) return;
    const { streamEventId, scope, deliveryId, eventType, endpointId } = record;
    counted.push({ index, streamEventId, change: { scope, deliveryId, eventType, endpointId, delta } });
  });
  return commitCounted(
    chunkCountChanges(counted, MAX_TRANSACTION_ITEMS),
    {
      counters: (changes) => sumCountChanges(changes).map(({ cell, delta }) => counterAddItem(cell, delta)),
      marker: countedMarkerItem,
    },
    clock(),
  );
}
