import { NotFound } from '#shared/domain/errors.ts';
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

export const endpointNotFound = () => new NotFound('No such webhook endpoint.');
