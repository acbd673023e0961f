/**
 * The outbox fan-out (DynamoDB Streams → this Lambda): each new event item becomes one
 * delivery per subscribed ACTIVE endpoint of its merchant scope, put conditionally (stream
 * retries create no duplicates), and one message per new delivery on the delivery queue.
 * Failures are reported per record, so only the failed record and those after it are retried.
 */

import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { errorFields, log } from '#shared/log.ts';
import { createDelivery, markEnqueued } from '#shared/store/webhook-deliveries.ts';
import { listEndpoints } from '#shared/store/webhook-endpoints.ts';
import { enqueueDeliveries } from '#shared/webhooks/queue.ts';

interface OutboxItem {
  type: string;
  id: string;
  eventType: string;
  accountId: string;
  mode: 'live' | 'test';
  createdAt: string;
  body: string;
}

async function fanOut(event: OutboxItem): Promise<number> {
  const scope = { accountId: event.accountId, mode: event.mode };
  const endpoints = (await listEndpoints(scope)).filter(
    (e) => e.status === 'ACTIVE' && e.events.includes(event.eventType),
  );
  const created = await Promise.all(
    endpoints.map((endpoint) =>
      createDelivery(
        scope,
        { id: event.id, type: event.eventType, createdAt: event.createdAt, body: event.body },
        endpoint.id,
      ),
    ),
  );
  const toEnqueue = created.filter((d) => d.needsEnqueue).map((d) => d.ref);
  if (toEnqueue.length > 0) {
    await enqueueDeliveries(toEnqueue);
    await Promise.all(toEnqueue.map(markEnqueued));
  }
  return endpoints.length;
}

export const handler = async (stream: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  for (const record of stream.Records) {
    const image = record.dynamodb?.NewImage;
    if (record.eventName !== 'INSERT' || !image) continue;
    const item = unmarshall(image as Record<string, AttributeValue>) as OutboxItem;
    if (item.type !== 'event') continue;
    try {
      const deliveries = await fanOut(item);
      log.debug('outbox fan-out', { eventId: item.id, eventType: item.eventType, deliveries });
    } catch (error) {
      log.error('outbox fan-out failed', { eventId: item.id, ...errorFields(error) });
      // Records of a shard are in order: retry from this one.
      return { batchItemFailures: [{ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' }] };
    }
  }
  return { batchItemFailures: [] };
};
