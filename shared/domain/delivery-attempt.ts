/**
 * The decisions of one delivery attempt, beside the retry schedule they use: whether to send,
 * where to (or why the delivery is cancelled), and what the delivery records after the
 * receiver's answer (DELIVERED, a retry later, or FAILED at the end of a cycle). Pure: the
 * clock and the jitter come in as arguments.
 */

import { MAX_ATTEMPTS, parseRetryAfter, retryDelaySeconds } from './retry-schedule.ts';
import type { Delivery, DeliveryStatus } from './webhook-deliveries.ts';

const RESPONSE_BODY_LIMIT = 1024;

/** The statuses a cancellation may leave; DELIVERED and CANCELLED are final. */
export const ATTEMPTABLE: readonly DeliveryStatus[] = ['PENDING', 'PROCESSING', 'FAILED'];
/** The statuses an attempt starts from; PROCESSING only once its lease has lapsed (below). */
export const STARTABLE: readonly DeliveryStatus[] = ['PENDING', 'FAILED'];
export const isFinal = (status: DeliveryStatus): boolean => status === 'DELIVERED' || status === 'CANCELLED';

/**
 * How long a PROCESSING mark keeps other messages of the same delivery from attempting it: an
 * attempt's POST timeout plus room for the table calls around it. A second message for one
 * delivery (a `SendMessageBatch` retried after a partial failure, the local runtime's requeue at
 * start) then waits instead of POSTing the same delivery at the same time. It must stay shorter
 * than the queue's visibility timeout: an attempt that died is taken over by its own message,
 * which comes back after that timeout (checked in test/unit/webhook-delivery-rules.test.ts).
 */
export const processingLeaseMs = (timeoutMs: number): number => timeoutMs + 10_000;

/** How much longer another attempt holds the delivery (0: none does, or it died). */
export function leaseHeldForMs(
  delivery: Pick<Delivery, 'status' | 'updatedAt'>,
  leaseMs: number,
  now: Date,
): number {
  if (delivery.status !== 'PROCESSING') return 0;
  return Math.max(0, Date.parse(delivery.updatedAt) + leaseMs - now.getTime());
}

/** The fields a status change writes (the store applies exactly these). */
type DeliveryChange = Partial<
  Pick<
    Delivery,
    | 'attempts'
    | 'cycleAttempts'
    | 'lastStatusCode'
    | 'lastError'
    | 'lastResponseBody'
    | 'nextRetryAt'
    | 'deliveredAt'
    | 'redriveCount'
  >
> & { status: DeliveryStatus };

export type Destination = { url: string; secret: string } | { cancel: string };

/**
 * Where the delivery goes and the secret that signs it (current: a rotation applies at once):
 * a payment's `webhookUrl` with the scope's override secret, or the endpoint's URL and secret.
 */
export function destinationOf(
  delivery: Pick<Delivery, 'url'>,
  found: { overrideSecret?: string; endpoint?: { url: string; secret: string; status: string } },
): Destination {
  if (delivery.url !== undefined) {
    return found.overrideSecret !== undefined
      ? { url: delivery.url, secret: found.overrideSecret }
      : { cancel: 'No override signing secret' };
  }
  const { endpoint } = found;
  if (!endpoint) return { cancel: ENDPOINT_DELETED };
  if (endpoint.status !== 'ACTIVE') return { cancel: 'Endpoint is inactive' };
  return { url: endpoint.url, secret: endpoint.secret };
}

/** The reason a delivery to a deleted endpoint is cancelled, at the delete or at its next attempt. */
export const ENDPOINT_DELETED = 'Endpoint was deleted';

export const cancellation = (reason: string): DeliveryChange => ({
  status: 'CANCELLED',
  nextRetryAt: null,
  lastError: reason,
});

/**
 * Whether the delivery's cycle of attempts is spent: FAILED, or still PROCESSING after the
 * cycle's last attempt (its dispatcher died before recording the answer; its lease lapsed).
 * Only a redrive from the dead-letter queue starts it again.
 */
const cycleSpent = (delivery: Pick<Delivery, 'status' | 'cycleAttempts'>): boolean =>
  delivery.status === 'FAILED' ||
  (delivery.status === 'PROCESSING' && (delivery.cycleAttempts ?? 0) >= MAX_ATTEMPTS);

/**
 * Whether a message is left over from the delivery's spent cycle: sent before the cycle ended
 * (a duplicate of its own message, which an outbox retry after the send can leave), so not a
 * redrive, whose messages are new (SQS gives each a new id and sent time). It must not start a
 * second cycle nobody asked for; it goes on to the dead-letter queue, where the alarm sees it.
 */
export const leftOverFromSpentCycle = (
  delivery: Pick<Delivery, 'status' | 'cycleAttempts' | 'updatedAt'>,
  sentAtMs: number,
): boolean => cycleSpent(delivery) && sentAtMs < Date.parse(delivery.updatedAt);

/**
 * The PROCESSING mark before the POST, which counts the attempt (so an attempt whose dispatcher
 * died before recording its answer still counts); a spent cycle is back from the dead-letter
 * queue: a new cycle.
 */
export function attemptStart(
  delivery: Pick<Delivery, 'status' | 'attempts' | 'cycleAttempts' | 'redriveCount'>,
): {
  change: DeliveryChange;
  cycleAttempts: number;
} {
  const redriven = cycleSpent(delivery);
  const cycleAttempts = (redriven ? 0 : (delivery.cycleAttempts ?? 0)) + 1;
  return {
    change: {
      status: 'PROCESSING',
      attempts: delivery.attempts + 1,
      cycleAttempts,
      ...(redriven && { redriveCount: delivery.redriveCount + 1 }),
    },
    cycleAttempts,
  };
}

/** What came back from the POST (or why it was not sent). */
export interface AttemptAnswer {
  statusCode?: number;
  body?: string;
  retryAfter?: string;
  error?: string;
  timedOut?: boolean;
}

export type AttemptOutcome =
  | { kind: 'done' }
  /** Retry after `delaySeconds` (the message stays on the queue). */
  | { kind: 'retry'; delaySeconds: number };

/**
 * The delivery's fields after an attempt, and what the queue does with its message: 2xx →
 * DELIVERED; otherwise the attempt is recorded and retried after the schedule's delay, and the
 * last attempt of a cycle marks it FAILED (SQS dead-letters the message next).
 */
export function attemptResult(
  delivery: Pick<Delivery, 'attempts'>,
  cycleAttempts: number,
  answer: AttemptAnswer,
  options: { now: Date; retryScale: number; random?: () => number },
): { change: DeliveryChange; outcome: AttemptOutcome } {
  const attempts = delivery.attempts + 1;
  const statusCode = answer.statusCode ?? null;
  if (statusCode !== null && statusCode >= 200 && statusCode < 300) {
    return {
      change: {
        status: 'DELIVERED',
        attempts,
        cycleAttempts,
        lastStatusCode: statusCode,
        lastError: null,
        // Part 2: "Response body of the last attempt", so never a failed attempt's body.
        lastResponseBody: answer.body ? answer.body.slice(0, RESPONSE_BODY_LIMIT) : null,
        nextRetryAt: null,
        deliveredAt: options.now.toISOString(),
      },
      outcome: { kind: 'done' },
    };
  }
  const lastError =
    answer.error ??
    `HTTP ${statusCode}${statusCode !== null && statusCode >= 300 && statusCode < 400 ? ' (redirects are not followed)' : ''}`;
  const failure = {
    attempts,
    cycleAttempts,
    lastStatusCode: statusCode,
    lastError,
    // `null` when empty, as for a 2xx: never `""` for one answer and `null` for another.
    lastResponseBody: answer.body ? answer.body.slice(0, RESPONSE_BODY_LIMIT) : null,
  };
  if (cycleAttempts >= MAX_ATTEMPTS) {
    // The last attempt of this cycle (the queue's 15th receive): SQS dead-letters the message next.
    return {
      change: { ...failure, status: 'FAILED', nextRetryAt: null },
      outcome: { kind: 'retry', delaySeconds: 0 },
    };
  }
  const delaySeconds = retryDelaySeconds(
    {
      attempt: cycleAttempts,
      ...(answer.timedOut && { timedOut: true }),
      ...(statusCode !== null && { statusCode }),
      ...(statusCode === 429 && {
        retryAfterSeconds: parseRetryAfter(answer.retryAfter, options.now.getTime()),
      }),
    },
    options.retryScale,
    options.random,
  );
  return {
    change: {
      ...failure,
      status: 'PENDING',
      nextRetryAt: new Date(options.now.getTime() + delaySeconds * 1000).toISOString(),
    },
    outcome: { kind: 'retry', delaySeconds },
  };
}
