import { parseInput } from '#shared/domain/validation.ts';
import { DeliveriesQuery } from '#shared/domain/webhook-input.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { queryDeliveries, serializeDeliveries } from '#shared/store/webhook-deliveries.ts';

/** GET /v1/webhooks/deliveries: newest first, offset paging, `total` matching the filters. */
export const listWebhookDeliveries: RouteHandler<KeyPrincipal> = async ({ principal, query }) => {
  const { limit, offset, ...filters } = parseInput(DeliveriesQuery, query, 'query');
  const items = await queryDeliveries(principal, filters);
  return {
    status: 200,
    body: {
      data: await serializeDeliveries(items.slice(offset, offset + limit)),
      total: items.length,
      limit,
      offset,
    },
  };
};
