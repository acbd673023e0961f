/**
 * `POST /v1/webhooks/endpoints/{id}/rotate-secret`: a new signing secret replaces the old at
 * once (no overlap); it is shown this once.
 */

import type { MerchantScope } from '../domain/scope.ts';
import { endpointNotFound, type WebhookEndpoint } from '../domain/webhook-endpoints.ts';
import { newWebhookSecret } from '../ids.ts';
import { updateEndpoint } from '../store/webhook-endpoints.ts';

export async function rotateWebhookSecret(scope: MerchantScope, id: string): Promise<WebhookEndpoint> {
  const endpoint = await updateEndpoint(scope, id, { secret: newWebhookSecret() });
  if (!endpoint) throw endpointNotFound();
  return endpoint;
}
