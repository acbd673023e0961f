/**
 * The outbox fan-out (DynamoDB Streams → this Lambda): each new event item becomes one
 * delivery per subscribed ACTIVE endpoint of its merchant scope (and, for a legacy event of a
 * payment with a `webhookUrl`, one to that URL), put conditionally (stream
 * retries create no duplicates), and one message per new delivery on the delivery queue. The
 * delivery names the event item (its body stays there); the message names the delivery, the
 * event and the endpoint, for the dispatcher to read together.
 *
 * A batch is fanned out concurrently (endpoints are read once per merchant scope), so its cost
 * is a few round trips, not a few per event. Webhooks promise no order between events. On a
 * failure the earliest failed record is reported: Lambda retries from there, and records after
 * it that had succeeded find their deliveries already created.
 */

import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { errorFields, log } from '#shared/log.ts';
import type { MerchantScope } from '#shared/store/keys.ts';
import {
  createDelivery,
  type DeliveryMessage,
  type DeliveryTarget,
  markEnqueued,
} from '#shared/store/webhook-deliveries.ts';
import { listEndpoints, type WebhookEndpoint } from '#shared/store/webhook-endpoints.ts';
import { enqueueDeliveries } from '#shared/webhooks/queue.ts';

interface OutboxItem {
  type: string;
  sk: string;
  id: string;
  eventType: string;
  accountId: string;
  mode: 'live' | 'test';
  createdAt: string;
  family: 'canonical' | 'legacy';
  /** A payment's per-transaction destination (legacy events only). */
  webhookUrl?: string;
}

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

function outboxEvent(record: DynamoDBRecord): OutboxItem | undefined {
  const image = record.dynamodb?.NewImage as Record<string, AttributeValue> | undefined;
  if (record.eventName !== 'INSERT' || image?.type?.S !== 'event') return undefined;
  const fields = OUTBOX_FIELDS.flatMap((f) => (image[f] ? [[f, image[f]] as const] : []));
  return unmarshall(Object.fromEntries(fields)) as unknown as OutboxItem;
}

export const handler = async (stream: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const endpointsByScope = new Map<string, Promise<WebhookEndpoint[]>>();
  const endpointsOf = (scope: MerchantScope) => {
    const key = `${scope.accountId}#${scope.mode}`;
    let endpoints = endpointsByScope.get(key);
    if (!endpoints) {
      endpoints = listEndpoints(scope);
      endpointsByScope.set(key, endpoints);
    }
    return endpoints;
  };

  const created = await Promise.allSettled(
    stream.Records.map(async (record) => {
      const event = outboxEvent(record);
      if (!event) return [];
      const scope = { accountId: event.accountId, mode: event.mode };
      const subscribed = (await endpointsOf(scope)).filter(
        (e) => e.status === 'ACTIVE' && e.events.includes(event.eventType),
      );
      const targets: DeliveryTarget[] = subscribed.map((endpoint) => ({ endpointId: endpoint.id }));
      // A payment's `webhookUrl` gets its legacy events whatever the endpoints subscribe to.
      if (event.family === 'legacy' && event.webhookUrl) targets.push({ url: event.webhookUrl });
      const deliveries = await Promise.all(
        targets.map((target) =>
          createDelivery(
            scope,
            { id: event.id, type: event.eventType, createdAt: event.createdAt, sk: event.sk },
            target,
          ),
        ),
      );
      return deliveries.filter((d) => d.needsEnqueue).map((d) => d.message);
    }),
  );

  const firstFailed = created.findIndex((result) => result.status === 'rejected');
  const messages: DeliveryMessage[] = created
    .slice(0, firstFailed === -1 ? undefined : firstFailed)
    .flatMap((r) => (r.status === 'fulfilled' ? r.value : []));
  try {
    if (messages.length > 0) {
      await enqueueDeliveries(messages);
      await Promise.all(messages.map(markEnqueued));
    }
  } catch (error) {
    log.error('outbox enqueue failed', errorFields(error));
    // Nothing of this batch is known to be enqueued: retry all of it.
    return { batchItemFailures: [{ itemIdentifier: stream.Records[0]?.dynamodb?.SequenceNumber ?? '' }] };
  }
  if (firstFailed === -1) return { batchItemFailures: [] };
  const failure = created[firstFailed] as PromiseRejectedResult;
  log.error('outbox fan-out failed', {
    sequenceNumber: stream.Records[firstFailed]?.dynamodb?.SequenceNumber,
    ...errorFields(failure.reason),
  });
  return {
    batchItemFailures: [{ itemIdentifier: stream.Records[firstFailed]?.dynamodb?.SequenceNumber ?? '' }],
  };
};
