/**
 * One attempt of one delivery (the dispatcher calls this per SQS message). SQS does the
 * retrying: a failed attempt is recorded, its message hidden for the backoff delay and
 * reported as a batch item failure; after the 15th receive SQS moves it to the dead-letter
 * queue, and a redrive from there brings it back here with the same delivery id.
 */

import { MAX_ATTEMPTS, parseRetryAfter, retryDelaySeconds } from '../domain/retry-schedule.ts';
import { signatureHeader } from '../domain/webhook-signature.ts';
import { type DeliveryRef, getDelivery, updateDelivery } from '../store/webhook-deliveries.ts';
import { getEndpoint } from '../store/webhook-endpoints.ts';
import { DestinationError, destinationPolicy, type Resolver, resolveDestination } from './destination.ts';
import { postWebhook } from './post.ts';

export const USER_AGENT = 'PixService-Webhooks/1.0 (+https://docs.pix-service.example/webhooks)';
const RESPONSE_BODY_LIMIT = 1024;

export interface DispatchOptions {
  timeoutMs: number;
  /** Tests compress the retry schedule (never deployed). */
  retryScale: number;
  resolver?: Resolver;
  now?: () => Date;
}

export type DispatchOutcome =
  | { kind: 'done' }
  /** Retry after `delaySeconds` (the message stays on the queue). */
  | { kind: 'retry'; delaySeconds: number };

export async function dispatchDelivery(ref: DeliveryRef, options: DispatchOptions): Promise<DispatchOutcome> {
  const delivery = await getDelivery(ref);
  if (!delivery || delivery.status === 'DELIVERED' || delivery.status === 'CANCELLED')
    return { kind: 'done' };
  const scope = { accountId: delivery.accountId, mode: delivery.mode };
  const endpoint = await getEndpoint(scope, delivery.endpointId);
  if (endpoint?.status !== 'ACTIVE') {
    await updateDelivery(
      ref,
      {
        status: 'CANCELLED',
        nextRetryAt: null,
        lastError: endpoint ? 'Endpoint is inactive' : 'Endpoint was deleted',
      },
      ['PENDING', 'PROCESSING', 'FAILED'],
    );
    return { kind: 'done' };
  }
  // Back from the dead-letter queue: a new cycle of attempts.
  const redriven = delivery.status === 'FAILED';
  const cycleAttempts = (redriven ? 0 : (delivery.cycleAttempts ?? 0)) + 1;
  await updateDelivery(
    ref,
    { status: 'PROCESSING', ...(redriven && { redriveCount: delivery.redriveCount + 1 }) },
    ['PENDING', 'PROCESSING', 'FAILED'],
  );

  const now = options.now ?? (() => new Date());
  const rawBody = delivery.body;
  const attempts = delivery.attempts + 1;
  let result: Awaited<ReturnType<typeof postWebhook>>;
  try {
    const destination = await resolveDestination(endpoint.url, destinationPolicy(), options.resolver);
    result = await postWebhook(
      destination,
      rawBody,
      {
        'Content-Type': 'application/json',
        'User-Agent': USER_AGENT,
        // Signed at send time with the endpoint's current secret (a rotation applies at once).
        'X-Acme-Signature': signatureHeader(
          delivery.eventType,
          rawBody,
          endpoint.secret,
          Math.floor(now().getTime() / 1000),
        ),
        'X-Acme-Delivery-Id': delivery.id,
        'X-Acme-Event-Type': delivery.eventType,
      },
      options.timeoutMs,
    );
  } catch (error) {
    if (!(error instanceof DestinationError)) throw error;
    result = { error: error.message };
  }

  const statusCode = result.statusCode ?? null;
  if (statusCode !== null && statusCode >= 200 && statusCode < 300) {
    await updateDelivery(
      ref,
      {
        status: 'DELIVERED',
        attempts,
        cycleAttempts,
        lastStatusCode: statusCode,
        lastError: null,
        nextRetryAt: null,
        deliveredAt: now().toISOString(),
      },
      ['PROCESSING'],
    );
    return { kind: 'done' };
  }

  const lastError =
    result.error ??
    `HTTP ${statusCode}${statusCode !== null && statusCode >= 300 && statusCode < 400 ? ' (redirects are not followed)' : ''}`;
  const failure = {
    attempts,
    cycleAttempts,
    lastStatusCode: statusCode,
    lastError,
    lastResponseBody: result.body === undefined ? null : result.body.slice(0, RESPONSE_BODY_LIMIT),
  };
  if (cycleAttempts >= MAX_ATTEMPTS) {
    // The last attempt of this cycle (the queue's 15th receive): SQS dead-letters the message next.
    await updateDelivery(ref, { ...failure, status: 'FAILED', nextRetryAt: null }, ['PROCESSING']);
    return { kind: 'retry', delaySeconds: 0 };
  }
  const delaySeconds = retryDelaySeconds(
    {
      attempt: cycleAttempts,
      ...(result.timedOut && { timedOut: true }),
      ...(statusCode !== null && { statusCode }),
      ...(statusCode === 429 && { retryAfterSeconds: parseRetryAfter(result.retryAfter, now().getTime()) }),
    },
    options.retryScale,
  );
  await updateDelivery(
    ref,
    {
      ...failure,
      status: 'PENDING',
      nextRetryAt: new Date(now().getTime() + delaySeconds * 1000).toISOString(),
    },
    ['PROCESSING'],
  );
  return { kind: 'retry', delaySeconds };
}
