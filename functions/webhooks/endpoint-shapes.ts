import { badRequest, notFound } from '#shared/http/errors.ts';
import type { WebhookEndpoint } from '#shared/store/webhook-endpoints.ts';
import { DestinationError, destinationPolicy, resolveDestination } from '#shared/webhooks/destination.ts';

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

/** Registration-time SSRF check (delivery checks again on the addresses of that moment). */
export async function assertDeliverableUrl(url: string): Promise<void> {
  try {
    await resolveDestination(url, destinationPolicy());
  } catch (error) {
    if (error instanceof DestinationError)
      throw badRequest(`Invalid url: ${error.message}.`, { param: 'url' });
    throw error;
  }
}

export const endpointNotFound = () => notFound('No such webhook endpoint.');
