/**
 * A merchant scope's time-ordered, append-only items (charges, events, journals, tranches,
 * refunds, deliveries, MED cases) are spread over a fixed number of partition keys, so one
 * merchant's inserts are not bounded by one partition (docs/scale.md). An item's partition is a
 * hash of its own id: a read by id computes it, no lookup.
 */

import { createHash } from 'node:crypto';

/**
 * Fixed for the table's life: an item's partition is computed from this count, so changing it
 * would lose every item written before (docs/data-model.md, "Scope partitions").
 */
export const SCOPE_PARTITIONS = 16;

/** The partition (0 … `SCOPE_PARTITIONS − 1`) of an item by its id: stable across processes and releases. */
export const scopePartitionOf = (id: string): number =>
  createHash('sha256').update(id).digest().readUInt32BE(0) % SCOPE_PARTITIONS;
