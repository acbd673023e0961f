import { parseInput } from '#shared/domain/validation.ts';
import { UpdateEndpointBody } from '#shared/domain/webhook-input.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { updateEndpoint } from '#shared/store/webhook-endpoints.ts';
import { assertDeliverableUrl } from '#shared/webhooks/destination.ts';
import { endpointIdOf, endpointNotFound, endpointView } from './endpoint-shapes.ts';

/** PATCH /v1/webhooks/endpoints/{id}: only the fields sent change. */
export const updateWebhookEndpoint: RouteHandler<KeyPrincipal> = async ({
  principal,
  pathParameters,
  body,
}) => {
  const endpointId = endpointIdOf(pathParameters);
  const input = parseInput(UpdateEndpointBody, body, 'body');
  if (input.url !== undefined) await assertDeliverableUrl(input.url);
  const endpoint = await updateEndpoint(principal, endpointId, input);
  if (!endpoint) throw endpointNotFound();
  return { status: 200, body: endpointView(endpoint) };
};
