import { createApiHandler } from '#shared/http/api-handler.ts';
import { createWebhookEndpoint } from './create-webhook-endpoint.ts';
import { deleteWebhookEndpoint } from './delete-webhook-endpoint.ts';
import { getEventCatalog } from './get-event-catalog.ts';
import { getWebhookStats } from './get-webhook-stats.ts';
import { listWebhookDeliveries } from './list-webhook-deliveries.ts';
import { listWebhookEndpoints } from './list-webhook-endpoints.ts';
import { rotateWebhookOverrideSecret } from './rotate-webhook-override-secret.ts';
import { rotateWebhookSecret } from './rotate-webhook-secret.ts';
import { updateWebhookEndpoint } from './update-webhook-endpoint.ts';

export const handler = createApiHandler('webhooks', {
  createWebhookEndpoint,
  listWebhookEndpoints,
  updateWebhookEndpoint,
  rotateWebhookSecret,
  deleteWebhookEndpoint,
  getEventCatalog,
  listWebhookDeliveries,
  getWebhookStats,
  rotateWebhookOverrideSecret,
});
