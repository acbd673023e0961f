import { parseInput } from '#shared/domain/validation.ts';
import { UpdateEndpointBody } from '#shared/domain/webhook-input.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { updateWebhookEndpoint as update } from '#shared/services/update-webhook-endpoint.ts';
import { parseWithDestination } from '#shared/webhooks/destination.ts';
import { endpointIdOf, endpointView } from './endpoint-shapes.ts';

/** PATCH /v1/webhooks/endpoints/{id}: only the fields sent change. */
export const updateWebhookEndpoint: RouteHandler<KeyPrincipal> = async ({
  principal,
  pathParameters,
  body,
}) => {
  const endpointId = endpointIdOf(pathParameters);
  const input = await parseWithDestination(() => parseInput(UpdateEndpointBody, body, 'body'), body, 'url');
  return { status: 200, body: endpointView(await update(principal, endpointId, input)) };
};
