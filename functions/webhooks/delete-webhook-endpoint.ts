import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { cancelEndpointDeliveries } from '#shared/services/cancel-endpoint-deliveries.ts';
import { deleteEndpoint } from '#shared/store/webhook-endpoints.ts';
import { endpointIdOf, endpointNotFound } from './endpoint-shapes.ts';

/** DELETE /v1/webhooks/endpoints/{id}: its pending deliveries become CANCELLED. */
export const deleteWebhookEndpoint: RouteHandler<KeyPrincipal> = async ({ principal, pathParameters }) => {
  const id = endpointIdOf(pathParameters);
  if (!(await deleteEndpoint(principal, id))) throw endpointNotFound();
  await cancelEndpointDeliveries(id);
  return { status: 200, body: { deleted: true } };
};
