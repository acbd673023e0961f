import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { deleteWebhookEndpoint as remove } from '#shared/services/delete-webhook-endpoint.ts';
import { endpointIdOf } from './endpoint-shapes.ts';

/** DELETE /v1/webhooks/endpoints/{id}: its pending deliveries become CANCELLED; it no longer counts toward the cap. */
export const deleteWebhookEndpoint: RouteHandler<KeyPrincipal> = async ({ principal, pathParameters }) => {
  await remove(principal, endpointIdOf(pathParameters));
  return { status: 200, body: { deleted: true } };
};
