/**
 * The outbox fan-out use case: each new outbox event becomes one delivery per destination the
 * fan-out rule picks (`fanOutTargets`), created conditionally (a stream batch retried creates no
 * duplicates; the stream counts each creation once, `count-delivery-changes.ts`), and one queue
 * message per delivery not yet enqueued.
 *
 * A batch is fanned out concurrently (endpoints are read once per merchant scope), so its cost
 * is a few round trips, not a few per event. Webhooks promise no order between events.
 */

import { fanOutTargets } from '../domain/fan-out.ts';
import { MAX_ATTEMPTS } from '../domain/retry-schedule.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { type Delivery, type DeliveryTarget, deliveryIdFor } from '../domain/webhook-deliveries.ts';
import type { WebhookEndpoint } from '../domain/webhook-endpoints.ts';
import { dynamoDbPart } from '../store/client.ts';
import { createDelivery, type DeliveryMessage, markEnqueued } from '../store/webhook-deliveries.ts';
import { listEndpoints } from '../store/webhook-endpoints.ts';
import { enqueueDeliveries } from '../webhooks/queue.ts';

/** The attributes of an outbox event item the fan-out uses (not its body). */
export interface OutboxEventRef {
  sk: string;
  id: string;
  eventType: string;
  accountId: string;
  mode: 'live' | 'test';
  createdAt: string;
  /** Absent on events recorded before it was stored: they go to every subscribed endpoint. */
  recordedAt?: string;
  family: 'canonical' | 'legacy';
  /** A payment's per-transaction destination (legacy events only). */
  webhookUrl?: string;
}

type FanOutResult =
  | { ok: true }
  /** Nothing of the batch is known to be enqueued: retry all of it. */
  | { ok: false; enqueueFailed: true; error: unknown }
  /** Events before `failedAt` are done; retry from it. */
  | { ok: false; failedAt: number; error: unknown };

/** A new delivery of `event` to `target`, PENDING. */
export function newDelivery(event: OutboxEventRef, target: DeliveryTarget, now: Date): Delivery {
  const at = now.toISOString();
  return {
    id: deliveryIdFor(event.id, target),
    endpointId: 'endpointId' in target ? target.endpointId : null,
    ...('url' in target && { url: target.url }),
    eventId: event.id,
    eventType: event.eventType,
    status: 'PENDING',
    attempts: 0,
    maxAttempts: MAX_ATTEMPTS,
    lastStatusCode: null,
    lastError: null,
    lastResponseBody: null,
    nextRetryAt: null,
    deliveredAt: null,
    createdAt: at,
    updatedAt: at,
    redriveCount: 0,
    cycleAttempts: 0,
  };
}

/**
 * Fans out the events of one stream batch (in stream order; `undefined` for records that are
 * not new events). On a failure the earliest failed event is reported: the stream retries from
 * there, and events after it that had succeeded find their deliveries already created. Its
 * DynamoDB usage is the `fan-out` part of the outbox invocation's (the bench splits by it).
 */
export const fanOutEvents = (
  events: readonly (OutboxEventRef | undefined)[],
  clock: () => Date = () => new Date(),
): Promise<FanOutResult> => dynamoDbPart('fan-out', () => fanOutBatch(events, clock));

async function fanOutBatch(
  events: readonly (OutboxEventRef | undefined)[],
  clock: () => Date,
): Promise<FanOutResult> {
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
    events.map(async (event) => {
      if (!event) return [];
      const scope: MerchantScope = { accountId: event.accountId, mode: event.mode };
      const targets = fanOutTargets(event, await endpointsOf(scope));
      const deliveries = await Promise.all(
        targets.map((target) =>
          createDelivery(scope, newDelivery(event, target, clock()), {
            createdAt: event.createdAt,
            sk: event.sk,
          }),
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
      const enqueuedAt = clock();
      await Promise.all(messages.map((message) => markEnqueued(message, enqueuedAt)));
    }
  } catch (error) {
    return { ok: false, enqueueFailed: true, error };
  }
  if (firstFailed === -1) return { ok: true };
  return { ok: false, failedAt: firstFailed, error: (created[firstFailed] as PromiseRejectedResult).reason };
}
