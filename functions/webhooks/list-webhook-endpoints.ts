import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { listEndpoints } from '#shared/store/webhook-endpoints.ts';
import { endpointListItem } from './endpoint-shapes.ts';

/** GET /v1/webhooks/endpoints: never the secret. */
export const listWebhookEndpoints: RouteHandler<KeyPrincipal> = async ({ principal }) => ({
  status: 200,
  body: { data: (await listEndpoints(principal)).map(endpointListItem) },
});
