/**
 * `POST /v1/webhooks/endpoints`: registers an endpoint, at most `WEBHOOK_ENDPOINT_LIMIT` per
 * account and mode, once its URL is one the service may deliver to (`assertDeliverableUrl`: no
 * internal address, https deployed). ONE transaction puts the endpoint and adds 1 to the scope's
 * endpoint count on condition the count is below the limit, so concurrent creates can never
 * pass it: the one that would is refused (400 `webhook_endpoint_limit_exceeded`) and writes
 * nothing. Deleting an endpoint takes 1 off in its own transaction (`delete-webhook-endpoint.ts`),
 * which makes room.
 */

import type { MerchantScope } from '../domain/scope.ts';
import {
  newEndpoint,
  WEBHOOK_ENDPOINT_LIMIT,
  type WebhookEndpoint,
  webhookEndpointLimitExceeded,
} from '../domain/webhook-endpoints.ts';
import { newWebhookEndpointId, newWebhookSecret } from '../ids.ts';
import { transactRetryingConflicts } from '../store/client.ts';
import { endpointCountChange, endpointPut } from '../store/webhook-endpoints.ts';
import { assertDeliverableUrl } from '../webhooks/destination.ts';

export async function createWebhookEndpoint(
  scope: MerchantScope,
  input: { url: string; events: string[] },
  now = new Date(),
): Promise<WebhookEndpoint> {
  await assertDeliverableUrl(input.url);
  const endpoint = newEndpoint(input, { id: newWebhookEndpointId(), secret: newWebhookSecret() }, now);
  const result = await transactRetryingConflicts({
    endpoint: endpointPut(scope, endpoint),
    endpointCount: endpointCountChange(scope, +1, { below: WEBHOOK_ENDPOINT_LIMIT }),
  });
  if (result.committed) return endpoint;
  if (result.failed.includes('endpointCount')) throw webhookEndpointLimitExceeded();
  throw new Error(`Endpoint creation lost a race on ${result.failed.join(', ')}`);
}
