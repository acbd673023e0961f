import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { deliveryStatuses, queryDeliveries } from '#shared/store/webhook-deliveries.ts';

/** GET /v1/webhooks/stats: deliveries per status. */
export const getWebhookStats: RouteHandler<KeyPrincipal> = async ({ principal }) => {
  const items = await queryDeliveries(principal, {}, 'status');
  const counts = Object.fromEntries(
    deliveryStatuses.map((s) => [s, items.filter((i) => i.status === s).length]),
  );
  return { status: 200, body: { total: items.length, ...counts } };
};
