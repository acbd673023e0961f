/**
 * The delivery list and stats of a merchant scope, at a cost that does not grow with its
 * history: totals from the delivery counters, the page from the index partitions that hold the
 * filter's matches (`planDeliveryQuery`), merged newest first and read only as deep as the page
 * (`offset + limit`, at most `DELIVERY_LIST_MAX_OFFSET + 100`).
 */

import type { MerchantScope } from '../domain/scope.ts';
import {
  type Counts,
  countersFor,
  type DeliveryFilters,
  type DeliverySource,
  deliveryStats,
  firstPageSize,
  planDeliveryQuery,
  type SourcePage,
  takeNewest,
} from '../domain/webhook-deliveries.ts';
import { readDeliveryCounts, readDeliveryPage, serializeDeliveries } from '../store/webhook-deliveries.ts';

/** `GET /v1/webhooks/stats`: one query of the per-event-type counters. */
export async function getDeliveryStats(scope: MerchantScope): Promise<Counts> {
  return deliveryStats(await readDeliveryCounts(scope, {}));
}

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
export async function newestDeliveries(
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

/** `GET /v1/webhooks/deliveries`: newest first, offset paging, `total` matching the filters. */
export async function listDeliveries(
  scope: MerchantScope,
  filters: DeliveryFilters,
  page: { offset: number; limit: number },
) {
  const plan = planDeliveryQuery(filters, await readDeliveryCounts(scope, countersFor(filters)));
  const items = await newestDeliveries(scope, plan.sources, page.offset + page.limit);
  return { data: await serializeDeliveries(items.slice(page.offset)), total: plan.total };
}
