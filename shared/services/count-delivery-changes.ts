/**
 * Counting delivery changes from the table's stream, exactly once. The outbox receives every
 * creation and change of a delivery item (old and new image); each one whose counts move
 * (`countDelta`) is summed per counter item over the batch, and the sums are written in one
 * `TransactWriteItems` with one marker per counted record (`COUNTED#<eventID>`, put only if
 * new). A batch delivered again (Lambda retries from the earliest failed record) finds its
 * markers: those records are dropped, the rest summed again, and the transaction sent again, so
 * no change is counted twice and none is lost.
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
import { isTransactionConflict, transact } from '../store/client.ts';
import { countedMarkerItem, counterAddItem } from '../store/webhook-deliveries.ts';

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

export type CountResult = { ok: true } | { ok: false; failedAt: number; error: unknown };

/** At most 100 items per transaction (DynamoDB's limit); marker and counter items are tiny, far from the 4 MB. */
export const MAX_TRANSACTION_ITEMS = 100;
/** Markers outlive the stream's 24 h retention: a record can come again only within it. */
export const MARKER_TTL_SECONDS = 48 * 3600;
const CONFLICT_RETRIES = 8;

const markerName = (streamEventId: string) => `marker:${streamEventId}`;

interface Counted {
  index: number;
  streamEventId: string;
  change: DeliveryCountChange;
}

/** Commits one chunk: markers and counter sums; records already counted are dropped and the rest sent again. */
async function commitChunk(chunk: readonly Counted[], expiresAt: number): Promise<void> {
  let pending = chunk;
  for (let conflicts = 0; pending.length > 0; ) {
    const items: Record<string, ReturnType<typeof counterAddItem>[] | ReturnType<typeof countedMarkerItem>> =
      {
        counters: sumCountChanges(pending.map((p) => p.change)).map(({ cell, delta }) =>
          counterAddItem(cell, delta),
        ),
      };
    for (const p of pending)
      items[markerName(p.streamEventId)] = countedMarkerItem(p.streamEventId, expiresAt);
    let result: Awaited<ReturnType<typeof transact<string>>>;
    try {
      result = await transact<string>(items);
    } catch (error) {
      // Another shard's batch adding to the same counter item at that moment: nothing written.
      if (!isTransactionConflict(error) || ++conflicts > CONFLICT_RETRIES) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * conflicts));
      continue;
    }
    if (result.committed) return;
    const counted = new Set(result.failed);
    const rest = pending.filter((p) => !counted.has(markerName(p.streamEventId)));
    if (rest.length === pending.length)
      throw new Error(`Counting transaction failed on ${result.failed.join(', ')}, not on a marker`);
    pending = rest;
  }
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
  const counted: Counted[] = [];
  records.forEach((record, index) => {
    if (!record) return;
    const delta = countDelta(record.before, record.after);
    if (isEmptyDelta(delta)) return;
    const { streamEventId, scope, deliveryId, eventType, endpointId } = record;
    counted.push({ index, streamEventId, change: { scope, deliveryId, eventType, endpointId, delta } });
  });
  const expiresAt = Math.floor(clock().getTime() / 1000) + MARKER_TTL_SECONDS;
  for (const chunk of chunkCountChanges(counted, MAX_TRANSACTION_ITEMS)) {
    try {
      await commitChunk(chunk, expiresAt);
    } catch (error) {
      return { ok: false, failedAt: (chunk[0] as Counted).index, error };
    }
  }
  return { ok: true };
}
