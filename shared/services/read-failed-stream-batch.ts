/**
 * A stream batch the outbox gave up on, read back for a replay: its description (what Lambda
 * sent the on-failure destination, redriven by ops: docs/infrastructure.md, "Failure paths")
 * gives its shard and first and last records. What is read is every record between them that the
 * outbox's filters let through: the batch, and with the mapping's `parallelizationFactor` (which
 * splits a shard's records among concurrent batches by item) those of the batches beside it too.
 * Handling them again is safe however often it happens: the fan-out creates deliveries by derived
 * ids and the counting counts a record once (its `eventID` in its item's marker).
 */

import type { DynamoDBRecord } from 'aws-lambda';
import { type StreamBatchRange, streamBatchOf } from '../domain/stream-batch-failure.ts';
import { type FilterPattern, matchesAnyFilter } from '../domain/stream-filters.ts';
import { readStreamBatch } from '../store/stream-records.ts';

export type FailedBatchRead =
  | { ok: true; batch: StreamBatchRange; records: DynamoDBRecord[] }
  | { ok: false; reason: string; batch?: StreamBatchRange };

const REASONS = {
  trimmed: 'the stream no longer holds the batch (its records are older than the stream’s 24 h)',
  incomplete: 'the batch’s last record was not found in its shard',
} as const;

export async function readFailedStreamBatch(
  description: string,
  filters: readonly FilterPattern[],
): Promise<FailedBatchRead> {
  const batch = streamBatchOf(description);
  if (!batch) return { ok: false, reason: 'not the description of a stream batch (DDBStreamBatchInfo)' };
  const read = await readStreamBatch(batch);
  if ('missing' in read) return { ok: false, reason: REASONS[read.missing], batch };
  return { ok: true, batch, records: read.records.filter((record) => matchesAnyFilter(record, filters)) };
}
