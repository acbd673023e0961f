import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { cancelEndpointDeliveries } from '#shared/services/cancel-endpoint-deliveries.ts';
import { deleteWebhookEndpoint as remove } from '#shared/services/delete-webhook-endpoint.ts';
import { endpointIdOf, endpointNotFound } from './endpoint-shapes.ts';

/** DELETE /v1/webhooks/endpoints/{id}: its pending deliveries become CANCELLED; it no longer counts toward the cap. */
export const deleteWebhookEndpoint: RouteHandler<KeyPrincipal> = async ({ principal, pathParameters }) => {
  const id = endpointIdOf(pathParameters);
  if (!(await remove(principal, id))) throw endpointNotFound();
  await cancelEndpointDeliveries(id);
  return { status: 200, body: { deleted: true } };
};
