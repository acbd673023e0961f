import { parseInput } from '#shared/domain/validation.ts';
import { DeliveriesQuery } from '#shared/domain/webhook-input.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { listWebhookDeliveries as list } from '#shared/services/list-webhook-deliveries.ts';

/** GET /v1/webhooks/deliveries: newest first, offset paging (capped), `total` matching the filters. */
export const listWebhookDeliveries: RouteHandler<KeyPrincipal> = async ({ principal, query }) => {
  const { limit, offset, ...filters } = parseInput(DeliveriesQuery, query, 'query');
  const { data, total } = await list(principal, filters, { offset, limit });
  return { status: 200, body: { data, total, limit, offset } };
};
