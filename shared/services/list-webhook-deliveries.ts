/**
 * `GET /v1/webhooks/deliveries`: a merchant scope's deliveries, newest first, at a cost that does
 * not grow with its history: `total` from the delivery counters, the page from the index
 * partitions that hold the filter's matches (`planDeliveryQuery`), merged newest first and read
 * only as deep as the page (`offset + limit`, at most `DELIVERY_LIST_MAX_OFFSET + 100`).
 */

import type { MerchantScope } from '../domain/scope.ts';
import {
  countersFor,
  type DeliveryFilters,
  type DeliverySource,
  firstPageSize,
  planDeliveryQuery,
  publicDelivery,
  type SourcePage,
  takeNewest,
} from '../domain/webhook-deliveries.ts';
import {
  readDeliveriesWithBodies,
  readDeliveryCounts,
  readDeliveryPage,
} from '../store/webhook-deliveries.ts';

type Item = Record<string, unknown>;

interface Partition extends SourcePage<Item> {
  source: DeliverySource;
  next?: Record<string, unknown>;
  pageSize: number;
}

/**
 * The newest `need` deliveries of the union of `sources` (each newest first). Each partition is
 * read in pages: its share of `need` by its matches first, then twice the last page each time it
 * runs out while it may still hold the newest; a page never asks for more than can still be
 * taken. So a merge reads at most about 5 × `need` items (usually `need` plus one or two per
 * partition, in one round of parallel queries).
 */
async function newestDeliveries(
  scope: MerchantScope,
  sources: readonly DeliverySource[],
  need: number,
): Promise<Item[]> {
  const total = sources.reduce((sum, source) => sum + source.matches, 0);
  const partitions: Partition[] = sources.map((source) => ({
    source,
    items: [],
    more: true,
    pageSize: firstPageSize(need, source.matches, total),
  }));
  const out: Item[] = [];
  while (takeNewest(partitions, (item) => String(item.sk), out, need) === 'refill') {
    await Promise.all(
      partitions
        .filter((p) => p.items.length === 0 && p.more)
        .map(async (p) => {
          const page = await readDeliveryPage(
            scope,
            p.source,
            Math.min(p.pageSize, need - out.length),
            p.next,
          );
          p.items.push(...page.items);
          p.next = page.next;
          p.more = page.next !== undefined;
          p.pageSize *= 2;
        }),
    );
  }
  return out;
}

export async function listWebhookDeliveries(
  scope: MerchantScope,
  filters: DeliveryFilters,
  page: { offset: number; limit: number },
) {
  const plan = planDeliveryQuery(filters, await readDeliveryCounts(scope, countersFor(filters)));
  const items = await newestDeliveries(scope, plan.sources, page.offset + page.limit);
  const read = await readDeliveriesWithBodies(items.slice(page.offset));
  return { data: read.map(({ delivery, body }) => publicDelivery(delivery, body)), total: plan.total };
}
