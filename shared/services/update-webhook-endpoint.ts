/**
 * `PATCH /v1/webhooks/endpoints/{id}`: only the fields sent change; a new URL must be one the
 * service may deliver to (`assertDeliverableUrl`), checked before anything is written.
 */

import type { MerchantScope } from '../domain/scope.ts';
import { type EndpointStatus, endpointNotFound, type WebhookEndpoint } from '../domain/webhook-endpoints.ts';
import { updateEndpoint } from '../store/webhook-endpoints.ts';
import { assertDeliverableUrl } from '../webhooks/destination.ts';

export async function updateWebhookEndpoint(
  scope: MerchantScope,
  id: string,
  changes: { url?: string; events?: string[]; status?: EndpointStatus },
): Promise<WebhookEndpoint> {
  if (changes.url !== undefined) await assertDeliverableUrl(changes.url);
  const endpoint = await updateEndpoint(scope, id, changes);
  if (!endpoint) throw endpointNotFound();
  return endpoint;
}
