/**
 * One attempt of one delivery (the dispatcher calls this per SQS message). SQS does the
 * retrying: a failed attempt is recorded, its message hidden for the backoff delay and
 * reported as a batch item failure; after the 15th receive SQS moves it to the dead-letter
 * queue, and a redrive from there brings it back here with the same delivery id.
 *
 * An attempt is 3 DynamoDB round trips: one `BatchGetItem` of the delivery, its event (the
 * body) and its endpoint, the PROCESSING update, then the result update.
 */

import { MAX_ATTEMPTS, parseRetryAfter, retryDelaySeconds } from '../domain/retry-schedule.ts';
import { signatureHeader } from '../domain/webhook-signature.ts';
import { batchGetConsistent, type ItemKey } from '../store/client.ts';
import {
  type DeliveryMessage,
  type DeliveryRef,
  eventKeyOf,
  getDelivery,
  type StoredDelivery,
  toStoredDelivery,
  updateDelivery,
} from '../store/webhook-deliveries.ts';
import { endpointKey, toEndpoint } from '../store/webhook-endpoints.ts';
import { overrideSecretKey } from '../store/webhook-override-secret.ts';
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

// The destination lookup: the one place that knows where a delivery goes and which secret signs
// it (its endpoint's URL and secret, or a payment's `webhookUrl` and the account's override
// secret), and which item to read beside the delivery for that.

type Destination = { url: string; secret: string } | { cancel: string };

/** The item that holds the signing secret (and for an endpoint its URL), read with the delivery. */
const destinationKey = (pk: string, to: { endpointId?: string | null; override?: boolean }): ItemKey =>
  to.override || !to.endpointId ? overrideSecretKey(pk) : endpointKey(pk, to.endpointId);

/** The URL and current secret (a rotation applies at once), or why not to send. */
function destinationOf(delivery: StoredDelivery, item: Record<string, unknown> | undefined): Destination {
  if (delivery.url !== undefined) {
    return item
      ? { url: delivery.url, secret: String(item.secret) }
      : { cancel: 'No override signing secret' };
  }
  if (!item) return { cancel: 'Endpoint was deleted' };
  const endpoint = toEndpoint(item);
  if (endpoint.status !== 'ACTIVE') return { cancel: 'Endpoint is inactive' };
  return { url: endpoint.url, secret: endpoint.secret };
}

interface Attempt {
  delivery: StoredDelivery;
  /** The exact JSON every attempt sends: in the event item, or in a delivery written before `eventSk`. */
  body: string | undefined;
  destination: Destination;
}

const attemptOf = (
  delivery: StoredDelivery,
  event: Record<string, unknown> | undefined,
  destinationItem: Record<string, unknown> | undefined,
): Attempt => ({
  delivery,
  body: delivery.body ?? (event?.body as string | undefined),
  destination: destinationOf(delivery, destinationItem),
});

/**
 * Everything one attempt reads, in one `BatchGetItem` (strongly consistent: the delivery's
 * status guards against a finished delivery, the endpoint's secret may just have rotated). A
 * message of the first format (`{pk, sk}` only) names just the delivery: it is read first.
 */
async function readAttempt(message: DeliveryMessage): Promise<Attempt | undefined> {
  const ref: DeliveryRef = { pk: message.pk, sk: message.sk };
  if (message.eventSk !== undefined && (message.endpointId !== undefined || message.override)) {
    const [item, event, destination] = await batchGetConsistent([
      ref,
      { pk: message.pk, sk: message.eventSk },
      destinationKey(message.pk, message),
    ]);
    return item && attemptOf(toStoredDelivery(item), event, destination);
  }
  const delivery = await getDelivery(ref);
  if (!delivery) return undefined;
  const eventKey = eventKeyOf({ pk: message.pk, ...(delivery.eventSk && { eventSk: delivery.eventSk }) });
  const [destination, event] = await batchGetConsistent([
    destinationKey(message.pk, delivery),
    ...(eventKey ? [eventKey] : []),
  ]);
  return attemptOf(delivery, event, destination);
}

export async function dispatchDelivery(
  message: DeliveryMessage,
  options: DispatchOptions,
): Promise<DispatchOutcome> {
  const ref: DeliveryRef = { pk: message.pk, sk: message.sk };
  const attempt = await readAttempt(message);
  if (!attempt || attempt.delivery.status === 'DELIVERED' || attempt.delivery.status === 'CANCELLED')
    return { kind: 'done' };
  const { delivery, body: rawBody, destination } = attempt;
  if ('cancel' in destination) {
    await updateDelivery(ref, { status: 'CANCELLED', nextRetryAt: null, lastError: destination.cancel }, [
      'PENDING',
      'PROCESSING',
      'FAILED',
    ]);
    return { kind: 'done' };
  }
  // Unexpected (events are never deleted): the message stays for SQS's visibility timeout.
  if (rawBody === undefined) throw new Error(`The event item of delivery ${delivery.id} is missing`);
  // Back from the dead-letter queue: a new cycle of attempts.
  const redriven = delivery.status === 'FAILED';
  const cycleAttempts = (redriven ? 0 : (delivery.cycleAttempts ?? 0)) + 1;
  await updateDelivery(
    ref,
    { status: 'PROCESSING', ...(redriven && { redriveCount: delivery.redriveCount + 1 }) },
    ['PENDING', 'PROCESSING', 'FAILED'],
  );

  const now = options.now ?? (() => new Date());
  const attempts = delivery.attempts + 1;
  let result: Awaited<ReturnType<typeof postWebhook>>;
  try {
    const address = await resolveDestination(destination.url, destinationPolicy(), options.resolver);
    result = await postWebhook(
      address,
      rawBody,
      {
        'Content-Type': 'application/json',
        'User-Agent': USER_AGENT,
        // Signed at send time with the endpoint's current secret (a rotation applies at once).
        'X-Acme-Signature': signatureHeader(
          delivery.eventType,
          rawBody,
          destination.secret,
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
