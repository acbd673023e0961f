import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { getWebhookStats as stats } from '#shared/services/get-webhook-stats.ts';

/** GET /v1/webhooks/stats: deliveries per status, from the delivery counters. */
export const getWebhookStats: RouteHandler<KeyPrincipal> = async ({ principal }) => {
  const { total, PENDING, PROCESSING, DELIVERED, FAILED, CANCELLED } = await stats(principal);
  return { status: 200, body: { total, PENDING, PROCESSING, DELIVERED, FAILED, CANCELLED } };
};
