import { parseInput } from '#shared/domain/validation.ts';
import { CreateEndpointBody } from '#shared/domain/webhook-input.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { createWebhookEndpoint as create } from '#shared/services/create-webhook-endpoint.ts';
import { parseWithDestination } from '#shared/webhooks/destination.ts';
import { endpointView } from './endpoint-shapes.ts';

/** POST /v1/webhooks/endpoints: the secret is shown this once; 400 past the scope's cap. */
export const createWebhookEndpoint: RouteHandler<KeyPrincipal> = async ({ principal, body }) => {
  const input = await parseWithDestination(() => parseInput(CreateEndpointBody, body, 'body'), body, 'url');
  const endpoint = await create(principal, input);
  return { status: 201, body: { ...endpointView(endpoint), secret: endpoint.secret } };
};
