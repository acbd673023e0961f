/**
 * The outbox's second event source: `OutboxReplay`, the descriptions of the stream batches it
 * gave up on. Each is read back from the stream and handled as a stream batch; one that still
 * fails comes back later, then moves to `OutboxFailures` (docs/infrastructure.md, "Failure paths").
 */

import type { DynamoDBBatchResponse, DynamoDBStreamEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { errorFields, log } from '#shared/log.ts';
import { outboxStreamFilters } from '#shared/resources.ts';
import { readFailedStreamBatch } from '#shared/services/read-failed-stream-batch.ts';

type BatchHandler = (stream: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse>;

export const isQueueEvent = (event: DynamoDBStreamEvent | SQSEvent): event is SQSEvent =>
  event.Records[0]?.eventSource === 'aws:sqs';

export async function replayFailedBatches(
  event: SQSEvent,
  handleBatch: BatchHandler,
): Promise<SQSBatchResponse> {
  const failed: string[] = [];
  for (const message of event.Records) {
    const fields = { messageId: message.messageId, receiveCount: message.attributes.ApproximateReceiveCount };
    try {
      const read = await readFailedStreamBatch(message.body, outboxStreamFilters);
      if (!read.ok) {
        log.error('outbox batch not replayed', {
          ...fields,
          reason: read.reason,
          ...(read.batch && { batch: read.batch }),
        });
        failed.push(message.messageId);
        continue;
      }
      const result =
        read.records.length === 0 ? { batchItemFailures: [] } : await handleBatch({ Records: read.records });
      if (result.batchItemFailures.length > 0) {
        // The cause is logged by the batch's own handling (`outbox … failed`).
        log.error('outbox batch replay failed', { ...fields, batch: read.batch });
        failed.push(message.messageId);
      } else {
        // `records` may exceed the batch's `batchSize`: the records of the batches beside it are read too.
        log.info('outbox batch replayed', { ...fields, batch: read.batch, records: read.records.length });
      }
    } catch (error) {
      log.error('outbox batch replay failed', { ...fields, ...errorFields(error) });
      failed.push(message.messageId);
    }
  }
  return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
}
