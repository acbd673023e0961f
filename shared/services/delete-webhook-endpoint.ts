/**
 * `DELETE /v1/webhooks/endpoints/{id}`: ONE transaction deletes the endpoint (only if it exists)
 * and takes 1 off the scope's endpoint count, making room under the cap for another
 * (`create-webhook-endpoint.ts`); then its pending deliveries (not yet attempted, or waiting to
 * retry) become CANCELLED. An absent endpoint (another scope's, or deleted meanwhile) is a 404
 * and changes nothing, the count included.
 */

import { cancellation, ENDPOINT_DELETED } from '../domain/delivery-attempt.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { endpointNotFound } from '../domain/webhook-endpoints.ts';
import { transactRetryingConflicts } from '../store/client.ts';
import { changeDelivery, endpointDeliveriesIn } from '../store/webhook-deliveries.ts';
import { endpointCountChange, endpointDelete } from '../store/webhook-endpoints.ts';

/** Deletes the endpoint and answers how many of its deliveries it cancelled. */
export async function deleteWebhookEndpoint(
  scope: MerchantScope,
  id: string,
  now = new Date(),
): Promise<number> {
  const result = await transactRetryingConflicts({
    endpoint: endpointDelete(scope, id),
    endpointCount: endpointCountChange(scope, -1),
  });
  if (!result.committed) throw endpointNotFound();
  const pending = await endpointDeliveriesIn(id, 'PENDING');
  const cancelled = await Promise.all(
    pending.map((delivery) =>
      changeDelivery(delivery, delivery, ['PENDING'], cancellation(ENDPOINT_DELETED), now),
    ),
  );
  return cancelled.filter(Boolean).length;
}
