/**
 * `POST /v1/payments/{id}/resend-webhook`: the transaction's current status emitted again as a
 * NEW legacy event (`resendEvent`: a new event id, the event Part 2 names for that status),
 * written to the outbox so the existing fan-out delivers it (same destinations rule, same
 * signing, same retries) to the subscribed endpoints and to the payment's `webhookUrl`.
 *
 * `resent` says whether at least one destination will receive it, by the fan-out's own rule
 * (`fanOutTargets`) over the endpoints as they are now; with none, nothing is written. An
 * endpoint changed between this answer and the fan-out is judged by the fan-out, as for any
 * event.
 */

import { scopeOf } from '../domain/charges.ts';
import { NotFound } from '../domain/errors.ts';
import { fanOutTargets } from '../domain/fan-out.ts';
import type { MerchantScope } from '../domain/scope.ts';
import type { TxStatus } from '../domain/transaction-status.ts';
import { resendEvent } from '../domain/webhook-resend.ts';
import { getCharge } from '../store/charges.ts';
import { transact } from '../store/client.ts';
import { outboxItems } from '../store/events.ts';
import { listEndpoints } from '../store/webhook-endpoints.ts';
import { eventContext } from './charge-transition.ts';

interface ResendResult {
  resent: boolean;
  /** The transaction's status as the event carries it. */
  status: TxStatus;
}

export async function resendPaymentWebhook(
  scope: MerchantScope,
  chargeId: string,
  now: Date = new Date(),
): Promise<ResendResult> {
  const [charge, endpoints] = await Promise.all([getCharge(scope, chargeId), listEndpoints(scope)]);
  if (!charge) throw new NotFound('No such payment.');
  const { status, event } = resendEvent(charge, eventContext(now.toISOString()));
  const targets = fanOutTargets(
    {
      eventType: event.type,
      family: event.family,
      ...(event.webhookUrl && { webhookUrl: event.webhookUrl }),
    },
    endpoints,
  );
  if (targets.length === 0) return { resent: false, status };
  const result = await transact({ events: outboxItems(scopeOf(charge), [event]) });
  if (!result.committed) throw new Error(`Outbox event ${event.id} already existed`);
  return { resent: true, status };
}
