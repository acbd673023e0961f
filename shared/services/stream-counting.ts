/**
 * Counting from the table's stream, exactly once: what the delivery counters and the payment
 * counters share. A run of counted stream records is committed as one `TransactWriteItems` of
 * the counter `ADD`s (summed per item) and one marker per record (`COUNTED#<eventID>`, put only
 * if new). When a batch comes again (Lambda retries from the earliest failed record), the
 * markers of the records already counted fail their condition: those records are dropped, the
 * rest summed again and sent again, so no change is counted twice and none is lost.
 */

import { isTransactionConflict, type TransactItem, transact } from '../store/client.ts';

export type CountResult = { ok: true } | { ok: false; failedAt: number; error: unknown };

/** At most 100 items per transaction (DynamoDB's limit); marker and counter items are tiny, far from the 4 MB. */
export const MAX_TRANSACTION_ITEMS = 100;
/** Markers outlive the stream's 24 h retention: a record can come again only within it. */
export const MARKER_TTL_SECONDS = 48 * 3600;
const CONFLICT_RETRIES = 8;

/** A stream record to count: its position in the batch, its `eventID` and what it changes. */
export interface Counted<C> {
  index: number;
  streamEventId: string;
  change: C;
}

export interface CountingItems<C> {
  /** The counter `ADD`s of some changes, summed per counter item. */
  counters: (changes: C[]) => TransactItem[];
  /** The marker of one stream record (put only if new). */
  marker: (streamEventId: string, expiresAt: number) => TransactItem;
}

const markerName = (streamEventId: string) => `marker:${streamEventId}`;

/** Commits one chunk: markers and counter sums; records already counted are dropped and the rest sent again. */
async function commitChunk<C>(
  chunk: readonly Counted<C>[],
  build: CountingItems<C>,
  expiresAt: number,
): Promise<void> {
  let pending = chunk;
  for (let conflicts = 0; pending.length > 0; ) {
    const items: Record<string, TransactItem | TransactItem[]> = {
      counters: build.counters(pending.map((p) => p.change)),
    };
    for (const p of pending) items[markerName(p.streamEventId)] = build.marker(p.streamEventId, expiresAt);
    let result: Awaited<ReturnType<typeof transact<string>>>;
    try {
      result = await transact<string>(items);
    } catch (error) {
      // Another batch adding to the same counter item at that moment: nothing written.
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
 * Commits the chunks in order (each fits one transaction). On a failure the earliest record not
 * known to be counted is reported (the chunks before it are committed): the stream retries from
 * there, and its markers make the records already counted add nothing.
 */
export async function commitCounted<C>(
  chunks: readonly (readonly Counted<C>[])[],
  build: CountingItems<C>,
  now: Date,
): Promise<CountResult> {
  const expiresAt = Math.floor(now.getTime() / 1000) + MARKER_TTL_SECONDS;
  for (const chunk of chunks) {
    try {
      await commitChunk(chunk, build, expiresAt);
    } catch (error) {
      return { ok: false, failedAt: (chunk[0] as Counted<C>).index, error };
    }
  }
  return { ok: true };
}
