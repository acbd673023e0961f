/**
 * The outbox fan-out (DynamoDB Streams → this Lambda): parses the batch's new event items and
 * hands them to the fan-out use case (`shared/services/fan-out-event.ts`: one delivery per
 * subscribed ACTIVE endpoint, and a payment's `webhookUrl` for its legacy events, then one queue
 * message per new delivery), then reports where the stream must retry from.
 */

import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { errorFields, log } from '#shared/log.ts';
import { fanOutEvents, type OutboxEventRef } from '#shared/services/fan-out-event.ts';

/** The attributes of an event item the fan-out uses (not its body). */
const OUTBOX_FIELDS = [
  'type',
  'sk',
  'id',
  'eventType',
  'accountId',
  'mode',
  'createdAt',
  'family',
  'webhookUrl',
] as const;

function outboxEvent(record: DynamoDBRecord): OutboxEventRef | undefined {
  const image = record.dynamodb?.NewImage as Record<string, AttributeValue> | undefined;
  if (record.eventName !== 'INSERT' || image?.type?.S !== 'event') return undefined;
  const fields = OUTBOX_FIELDS.flatMap((f) => (image[f] ? [[f, image[f]] as const] : []));
  return unmarshall(Object.fromEntries(fields)) as unknown as OutboxEventRef;
}

const failureAt = (stream: DynamoDBStreamEvent, index: number): DynamoDBBatchResponse => ({
  batchItemFailures: [{ itemIdentifier: stream.Records[index]?.dynamodb?.SequenceNumber ?? '' }],
});

export const handler = async (stream: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const result = await fanOutEvents(stream.Records.map(outboxEvent));
  if (result.ok) return { batchItemFailures: [] };
  if ('enqueueFailed' in result) {
    log.error('outbox enqueue failed', errorFields(result.error));
    return failureAt(stream, 0);
  }
  log.error('outbox fan-out failed', {
    sequenceNumber: stream.Records[result.failedAt]?.dynamodb?.SequenceNumber,
    ...errorFields(result.error),
  });
  return failureAt(stream, result.failedAt);
};
