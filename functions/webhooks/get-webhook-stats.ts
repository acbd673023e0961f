import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { getDeliveryStats } from '#shared/services/query-deliveries.ts';

/** GET /v1/webhooks/stats: deliveries per status, from the delivery counters. */
export const getWebhookStats: RouteHandler<KeyPrincipal> = async ({ principal }) => {
  const { total, PENDING, PROCESSING, DELIVERED, FAILED, CANCELLED } = await getDeliveryStats(principal);
  return { status: 200, body: { total, PENDING, PROCESSING, DELIVERED, FAILED, CANCELLED } };
};
