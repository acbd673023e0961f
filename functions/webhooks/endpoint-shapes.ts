import { endpointNotFound, type WebhookEndpoint } from '#shared/domain/webhook-endpoints.ts';
import { isWebhookEndpointId } from '#shared/domain/webhook-input.ts';

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

/** The `{id}` of an endpoint route; 404 when it cannot be an endpoint id (never used as a key then). */
export function endpointIdOf(pathParameters: Record<string, string>): string {
  const id = pathParameters.id;
  if (!isWebhookEndpointId(id)) throw endpointNotFound();
  return id;
}
