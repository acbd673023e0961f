import { notFound } from '#shared/http/errors.ts';
import type { WebhookEndpoint } from '#shared/store/webhook-endpoints.ts';

/** The endpoint as PATCH returns it: no secret. */
export const endpointView = (e: WebhookEndpoint) => ({
  id: e.id,
  url: e.url,
  events: e.events,
  status: e.status,
});

/** Lists add timestamps. */
export const endpointListItem = (e: WebhookEndpoint) => ({
  ...endpointView(e),
  createdAt: e.createdAt,
  updatedAt: e.updatedAt,
});

export const endpointNotFound = () => notFound('No such webhook endpoint.');
