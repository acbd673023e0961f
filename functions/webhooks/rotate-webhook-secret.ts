import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { newWebhookSecret, updateEndpoint } from '#shared/store/webhook-endpoints.ts';
import { endpointIdOf, endpointNotFound } from './endpoint-shapes.ts';

/** POST /v1/webhooks/endpoints/{id}/rotate-secret: instant swap, no overlap. */
export const rotateWebhookSecret: RouteHandler<KeyPrincipal> = async ({ principal, pathParameters }) => {
  const endpoint = await updateEndpoint(principal, endpointIdOf(pathParameters), {
    secret: newWebhookSecret(),
  });
  if (!endpoint) throw endpointNotFound();
  return { status: 200, body: { id: endpoint.id, secret: endpoint.secret } };
};
