/**
 * Counting delivery changes from the table's stream: the delivery part of the outbox's counting
 * (`count-stream-changes.ts` commits it with the payment part, exactly once). The outbox receives
 * every creation and change of a delivery item (old and new image); each one whose counts move
 * (`countDelta`) is summed per counter item over the batch.
 *
 * Off the delivery's path: creating or changing a delivery is one single-item write, and the
 * counters follow the stream (within a poll interval locally, about a second on AWS).
 */

import type { MerchantScope } from '../domain/scope.ts';
import {
  countDelta,
  type DeliveryCountChange,
  type DeliveryStatus,
  isEmptyDelta,
  sumCountChanges,
} from '../domain/webhook-deliveries.ts';
import type { ItemKey, TransactItem } from '../store/client.ts';
import { counterAddItem } from '../store/webhook-deliveries.ts';

/** One stream record of a delivery item, as the outbox reads it. */
export interface DeliveryChangeRecord {
  /** The stream record's `eventID`: the same on every delivery of the record. */
  streamEventId: string;
  /** The delivery item's key (its marker's name). */
  source: ItemKey;
  /** An INSERT: the delivery's creation. */
  created: boolean;
  scope: MerchantScope;
  deliveryId: string;
  eventType: string;
  endpointId: string | null;
  /** The old image (absent on creation). */
  before?: DeliveryStatus;
  after: DeliveryStatus;
}

/** What a record moves in the counters; `undefined` when nothing (the enqueued mark). */
export function deliveryCountChange(record: DeliveryChangeRecord): DeliveryCountChange | undefined {
  const delta = countDelta(record.before, record.after);
  if (isEmptyDelta(delta)) return undefined;
  const { scope, deliveryId, eventType, endpointId } = record;
  return { scope, deliveryId, eventType, endpointId, delta };
}

/** The counter `ADD`s of some delivery changes, summed per counter item. */
export const deliveryCounterItems = (changes: readonly DeliveryCountChange[]): TransactItem[] =>
  sumCountChanges(changes).map(({ cell, delta }) => counterAddItem(cell, delta));
