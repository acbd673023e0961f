/** `GET /v1/webhooks/stats`: deliveries per status, from one query of the per-event-type counters. */

import type { MerchantScope } from '../domain/scope.ts';
import { type Counts, deliveryStats } from '../domain/webhook-deliveries.ts';
import { readDeliveryCounts } from '../store/webhook-deliveries.ts';

export async function getWebhookStats(scope: MerchantScope): Promise<Counts> {
  return deliveryStats(await readDeliveryCounts(scope, {}));
}
