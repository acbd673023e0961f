/**
 * One attempt of one delivery (the dispatcher calls this per SQS message). SQS does the
 * retrying: a failed attempt is recorded, its message hidden for the backoff delay and
 * reported as a batch item failure; after the 15th receive SQS moves it to the dead-letter
 * queue, and a redrive from there brings it back here with the same delivery id.
 *
 * An attempt is 3 DynamoDB round trips: one `BatchGetItem` of the delivery, its event (the
 * body) and its endpoint (or the override secret), the PROCESSING change, then the result
 * change (each one conditional `UpdateItem`; the stream counts them). What to send and what to
 * record are decided in `shared/domain/delivery-attempt.ts`.
 */

import {
  ATTEMPTABLE,
  type AttemptAnswer,
  type AttemptOutcome,
  attemptResult,
  attemptStart,
  cancellation,
  type Destination,
  destinationOf,
  isFinal,
  leaseHeldForMs,
  leftOverFromSpentCycle,
  processingLeaseMs,
  STARTABLE,
} from '../domain/delivery-attempt.ts';
import type { Mode } from '../domain/scope.ts';
import type { DeliveryStatus } from '../domain/webhook-deliveries.ts';
import { signatureHeader } from '../domain/webhook-signature.ts';
import { log } from '../log.ts';
import { batchGetConsistent, type ItemKey } from '../store/client.ts';
import { eventBody } from '../store/events.ts';
import { eventKeyOfSk, overrideSecretKey, parseScope, webhookEndpointKey } from '../store/keys.ts';
import {
  changeDelivery,
  type DeliveryMessage,
  type DeliveryRef,
  eventKeyOf,
  getDelivery,
  type StoredDelivery,
  toStoredDelivery,
} from '../store/webhook-deliveries.ts';
import { toEndpoint } from '../store/webhook-endpoints.ts';
import {
  DestinationError,
  destinationPolicy,
  type Resolver,
  resolveDestination,
} from '../webhooks/destination.ts';
import { postWebhook } from '../webhooks/post.ts';

const USER_AGENT = 'PixService-Webhooks/1.0 (+https://docs.pix-service.example/webhooks)';

interface DispatchOptions {
  timeoutMs: number;
  /** Tests compress the retry schedule (never deployed). */
  retryScale: number;
  resolver?: Resolver;
  /** When SQS accepted the message (its `SentTimestamp`, epoch ms). */
  sentAtMs?: number;
  now?: () => Date;
  random?: () => number;
}

/** What a message did to its delivery (the dispatcher's metrics): absent when it found nothing to do. */
export interface DispatchReport {
  deliveryId: string;
  eventType: string;
  mode: Mode;
  createdAt: string;
  /** The status it left: DELIVERED, PENDING (to be retried), FAILED (attempts exhausted) or CANCELLED. */
  status: DeliveryStatus;
  /** Whether a POST was attempted (a cancelled delivery sends none). */
  attempted: boolean;
}

type DispatchOutcome = AttemptOutcome & { report?: DispatchReport };

/** The item that holds the signing secret (and for an endpoint its URL), read with the delivery. */
const destinationKey = (pk: string, to: { endpointId?: string | null; override?: boolean }): ItemKey =>
  to.override || !to.endpointId
    ? overrideSecretKey(parseScope(pk))
    : webhookEndpointKey(parseScope(pk), to.endpointId);

interface Attempt {
  delivery: StoredDelivery;
  /** The exact JSON every attempt sends: in the event item, or in a delivery written before `eventSk`. */
  body: string | undefined;
  destination: Destination;
}

const attemptOf = async (
  delivery: StoredDelivery,
  event: Record<string, unknown> | undefined,
  destinationItem: Record<string, unknown> | undefined,
): Promise<Attempt> => ({
  delivery,
  body: delivery.body ?? (event && (await eventBody(event))),
  destination: destinationOf(
    delivery,
    delivery.url !== undefined
      ? { ...(destinationItem && { overrideSecret: String(destinationItem.secret) }) }
      : { ...(destinationItem && { endpoint: toEndpoint(destinationItem) }) },
  ),
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
      eventKeyOfSk(parseScope(message.pk), message.eventSk),
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
  const now = options.now ?? (() => new Date());
  const ref: DeliveryRef = { pk: message.pk, sk: message.sk };
  const attempt = await readAttempt(message);
  if (!attempt || isFinal(attempt.delivery.status)) return { kind: 'done' };
  const { delivery, body: rawBody, destination } = attempt;
  const report = (status: DeliveryStatus, attempted: boolean): DispatchReport => ({
    deliveryId: delivery.id,
    eventType: delivery.eventType,
    mode: parseScope(message.pk).mode,
    createdAt: delivery.createdAt,
    status,
    attempted,
  });
  if ('cancel' in destination) {
    await changeDelivery(ref, delivery, ATTEMPTABLE, cancellation(destination.cancel), now());
    return { kind: 'done', report: report('CANCELLED', false) };
  }
  // Another message's attempt is in flight: come back when its lease lapses (by then it has
  // recorded its result, or it died and this message takes over).
  const leaseMs = processingLeaseMs(options.timeoutMs);
  const heldForMs = leaseHeldForMs(delivery, leaseMs, now());
  if (heldForMs > 0) return { kind: 'retry', delaySeconds: Math.ceil(heldForMs / 1000) };
  if (options.sentAtMs !== undefined && leftOverFromSpentCycle(delivery, options.sentAtMs)) {
    log.warn('webhook message left over from a spent cycle: on to the dead-letter queue, not attempted', {
      deliveryId: delivery.id,
    });
    // Visible again at once: its receives run out and SQS dead-letters it.
    return { kind: 'retry', delaySeconds: 0 };
  }
  // Unexpected (events are never deleted): the message stays for SQS's visibility timeout.
  if (rawBody === undefined) throw new Error(`The event item of delivery ${delivery.id} is missing`);
  const start = attemptStart(delivery);
  const lapsedMark = new Date(now().getTime() - leaseMs).toISOString();
  // Refused when the delivery changed since it was read (another message marked it, or it was
  // cancelled or delivered): nothing is sent, and the next receive, after a lease, sees which.
  const marked = await changeDelivery(ref, delivery, STARTABLE, start.change, now(), {
    processingMarkedBefore: lapsedMark,
    unchangedSince: delivery.updatedAt,
  });
  if (!marked) {
    return { kind: 'retry', delaySeconds: Math.ceil(leaseMs / 1000) };
  }

  let answer: AttemptAnswer;
  try {
    // One deadline for the whole attempt, the lookup included, so it ends within its lease.
    const endsAt = Date.now() + options.timeoutMs;
    const address = await resolveDestination(
      destination.url,
      destinationPolicy(),
      options.resolver,
      options.timeoutMs,
    );
    answer = await postWebhook(
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
      endsAt,
    );
  } catch (error) {
    if (!(error instanceof DestinationError)) throw error;
    answer = { error: error.message, ...(error.timedOut && { timedOut: true }) };
  }

  const result = attemptResult(delivery, start.cycleAttempts, answer, {
    now: now(),
    retryScale: options.retryScale,
    random: options.random ?? Math.random,
  });
  await changeDelivery(ref, delivery, ['PROCESSING'], result.change, now());
  return { ...result.outcome, report: report(result.change.status, true) };
}
