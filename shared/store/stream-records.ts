/**
 * The table's stream read back: a stream batch the outbox gave up on, by its shard and first and
 * last sequence numbers (`shared/domain/stream-batch-failure.ts`), in the shape Lambda hands a
 * stream consumer, so the outbox replays it through its own handler.
 */

import {
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  ResourceNotFoundException,
  type _Record as StreamRecord,
  TrimmedDataAccessException,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { withoutSdkLogging } from '../aws-client.ts';
import type { StreamBatchRange } from '../domain/stream-batch-failure.ts';

/** Built at the first replay (the local runtime imports this module before it sets the endpoints). */
let client: DynamoDBStreamsClient | undefined;
const streams = () => (client ??= withoutSdkLogging(new DynamoDBStreamsClient({})));

/**
 * Pages read at most for one batch: the shard holds every write between its first and last
 * records (other batches', counters, markers…), up to 1 000 records or 1 MB per page.
 */
const MAX_PAGES = 100;

/**
 * The batch's records in stream order, from its first record to its last (both included), or
 * why it cannot be read: `trimmed` when the stream no longer holds them (older than its 24 h),
 * `incomplete` when its last record was not found.
 */
export type StreamBatchRead = { records: DynamoDBRecord[] } | { missing: 'trimmed' | 'incomplete' };

export async function readStreamBatch(range: StreamBatchRange): Promise<StreamBatchRead> {
  let iterator: string | undefined;
  try {
    ({ ShardIterator: iterator } = await streams().send(
      new GetShardIteratorCommand({
        StreamArn: range.streamArn,
        ShardId: range.shardId,
        ShardIteratorType: 'AT_SEQUENCE_NUMBER',
        SequenceNumber: range.startSequenceNumber,
      }),
    ));
  } catch (error) {
    // A shard past the stream's retention is gone too.
    if (error instanceof TrimmedDataAccessException || error instanceof ResourceNotFoundException) {
      return { missing: 'trimmed' };
    }
    throw error;
  }
  const records: StreamRecord[] = [];
  for (let page = 0; iterator && page < MAX_PAGES; page++) {
    const { Records = [], NextShardIterator } = await streams().send(
      new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }),
    );
    for (const record of Records) {
      records.push(record);
      // Sequence numbers are compared for equality only (docs/data-model.md, "Exactly once from the stream").
      if (record.dynamodb?.SequenceNumber === range.endSequenceNumber) {
        return { records: records.map((r) => lambdaStreamRecord(r, range.streamArn)) };
      }
    }
    iterator = NextShardIterator;
  }
  return { missing: 'incomplete' };
}

/**
 * A record as the DynamoDB Streams API returns it, in the shape of Lambda's stream event: Binary
 * values in base64, and the empty map the SDK decodes as `{}` tagged `{ M: {} }` again.
 */
export function lambdaStreamRecord(record: StreamRecord, streamArn: string): DynamoDBRecord {
  return {
    ...record,
    eventSourceARN: streamArn,
    dynamodb: {
      ...record.dynamodb,
      NewImage: image(record.dynamodb?.NewImage),
      OldImage: image(record.dynamodb?.OldImage),
    },
  } as DynamoDBRecord;
}

const image = (attributes: Record<string, unknown> | undefined) =>
  attributes && Object.fromEntries(Object.entries(attributes).map(([k, v]) => [k, lambdaValue(v)]));

function lambdaValue(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (Array.isArray(value)) return value.map(lambdaValue);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return { M: {} };
  return Object.fromEntries(
    entries.map(([k, v]) => [k, k === 'M' || k === 'L' ? children(v) : lambdaValue(v)]),
  );
}

const children = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(lambdaValue)
    : Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, lambdaValue(v)]),
      );
