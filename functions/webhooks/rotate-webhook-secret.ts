import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { rotateWebhookSecret as rotate } from '#shared/services/rotate-webhook-secret.ts';
import { endpointIdOf } from './endpoint-shapes.ts';

/** POST /v1/webhooks/endpoints/{id}/rotate-secret: instant swap, no overlap. */
export const rotateWebhookSecret: RouteHandler<KeyPrincipal> = async ({ principal, pathParameters }) => {
  const endpoint = await rotate(principal, endpointIdOf(pathParameters));
  return { status: 200, body: { id: endpoint.id, secret: endpoint.secret } };
};
