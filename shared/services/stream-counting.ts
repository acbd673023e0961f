/**
 * Counting from the table's stream, exactly once: what the delivery counters and the payment
 * counters and day aggregates share. The counted records of a batch are committed in runs, each
 * one `TransactWriteItems` of the counter `ADD`s (summed per item) and one marker per counted
 * item (a delivery or a charge, `COUNTED#<its key>`) that adds the `eventID`s of its records in
 * the run, on condition that none of them is there yet (a run holding the item's creation puts
 * the marker instead, on condition that it does not exist). When a batch comes again (Lambda retries
 * from the earliest failed record, or a bisected half), the markers of records already counted
 * fail their condition and come back in the transaction's answer: the records they hold are
 * dropped, the rest summed again and sent again, so no change is counted twice and none is lost
 * (docs/data-model.md).
 */

import { chunkByItems } from '../domain/counter-chunks.ts';
import { type ItemKey, type TransactItem, transactRetryingConflicts } from '../store/client.ts';
import { countedEventIds, countedMarkerItem, firstCountedMarkerItem } from '../store/counted-markers.ts';

export type CountResult = { ok: true } | { ok: false; failedAt: number; error: unknown };

/** At most 100 items per transaction (DynamoDB's limit); marker and counter items are tiny, far from the 4 MB. */
const MAX_TRANSACTION_ITEMS = 100;
/** Markers outlive the stream's 24 h retention: a record can come again only within it. */
export const MARKER_TTL_SECONDS = 48 * 3600;
const CONFLICT_RETRIES = 8;

/** A stream record to count: its position in the batch, its `eventID`, its item's key and what it changes. */
export interface Counted<C> {
  index: number;
  streamEventId: string;
  source: ItemKey;
  /** The record is the item's creation (INSERT): nothing of the item was counted before it. */
  created: boolean;
  change: C;
}

interface CountingItems<C> {
  /** The counter `ADD`s of some changes, summed per counter item. */
  counters: (changes: C[]) => TransactItem[];
  /** The counter items a change moves (an id each), to fit each run in one transaction. */
  counterIds: (change: C) => string[];
}

const sourceId = (source: ItemKey) => `${source.pk}\u0000${source.sk}`;
const markerName = (source: ItemKey) => `marker:${sourceId(source)}`;

/** The records of a run grouped by their item, in order of first appearance. */
function bySource<C>(run: readonly Counted<C>[]): { source: ItemKey; ids: string[]; created: boolean }[] {
  const groups = new Map<string, { source: ItemKey; ids: string[]; created: boolean }>();
  for (const { source, streamEventId, created } of run) {
    const group = groups.get(sourceId(source)) ?? { source, ids: [], created: false };
    group.ids.push(streamEventId);
    group.created ||= created;
    groups.set(sourceId(source), group);
  }
  return [...groups.values()];
}

/** Commits one run: markers and counter sums; records already counted are dropped and the rest sent again. */
async function commitRun<C>(run: readonly Counted<C>[], build: CountingItems<C>, expiresAt: number) {
  let pending = run;
  // Items whose first marker was refused (the run came again): their set is updated instead.
  const marked = new Set<string>();
  while (pending.length > 0) {
    const items: Record<string, TransactItem | TransactItem[]> = {
      counters: build.counters(pending.map((p) => p.change)),
    };
    for (const { source, ids, created } of bySource(pending))
      items[markerName(source)] = (
        created && !marked.has(sourceId(source)) ? firstCountedMarkerItem : countedMarkerItem
      )(source, ids, expiresAt);
    // Another batch adding to the same counter item at that moment cancels it, nothing written: sent again.
    const result = await transactRetryingConflicts<string>(items, CONFLICT_RETRIES);
    if (result.committed) return;
    // A refused marker comes back with the transaction's answer: the records it holds are counted.
    const counted = new Set<string>();
    let firstRefused = false;
    for (const { source } of bySource(pending)) {
      const marker = result.current[markerName(source)];
      if (!marker) continue;
      for (const id of countedEventIds(marker)) counted.add(id);
      if (!marked.has(sourceId(source))) firstRefused = true;
      marked.add(sourceId(source));
    }
    const rest = pending.filter((p) => !counted.has(p.streamEventId));
    if (rest.length === pending.length && !firstRefused)
      throw new Error(`Counting transaction failed on ${result.failed.join(', ')}, no record counted before`);
    pending = rest;
  }
}

/**
 * Commits the counted records of one batch (in stream order) in runs that each fit one
 * transaction. On a failure the earliest record not known to be counted is reported (the runs
 * before it are committed): the stream retries from there, and the markers make the records
 * already counted add nothing. A record twice in the batch counts once.
 */
export async function commitCounted<C>(
  records: readonly Counted<C>[],
  build: CountingItems<C>,
  now: Date,
): Promise<CountResult> {
  const expiresAt = Math.floor(now.getTime() / 1000) + MARKER_TTL_SECONDS;
  const seen = new Set<string>();
  const once = records.filter((r) => !seen.has(r.streamEventId) && seen.add(r.streamEventId));
  const runs = chunkByItems(
    once,
    (r) => [markerName(r.source), ...build.counterIds(r.change)],
    MAX_TRANSACTION_ITEMS,
  );
  for (const run of runs) {
    try {
      await commitRun(run, build, expiresAt);
    } catch (error) {
      return { ok: false, failedAt: (run[0] as Counted<C>).index, error };
    }
  }
  return { ok: true };
}
