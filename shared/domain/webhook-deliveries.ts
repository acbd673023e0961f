/**
 * Webhook deliveries: the record, its id, and the rules of its counters and of the delivery
 * list's reads (which index partitions answer a filter, and how their pages merge). Pure: the
 * store reads and writes what these decide (docs/data-model.md).
 */

import { createHash } from 'node:crypto';
import { type SourcePage, takeInOrder } from './merge.ts';
import type { MerchantScope } from './scope.ts';
import { SCOPE_PARTITIONS } from './scope-partitions.ts';

export type DeliveryStatus = 'PENDING' | 'PROCESSING' | 'DELIVERED' | 'FAILED' | 'CANCELLED';
export const deliveryStatuses: readonly DeliveryStatus[] = [
  'PENDING',
  'PROCESSING',
  'DELIVERED',
  'FAILED',
  'CANCELLED',
];

export interface Delivery {
  id: string;
  /** `null` for a delivery to a payment's `webhookUrl` override (then `url` says where). */
  endpointId: string | null;
  url?: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  maxAttempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  lastResponseBody: string | null;
  nextRetryAt: string | null;
  deliveredAt: string | null;
  createdAt: string;
  updatedAt: string;
  /** Times the delivery came back from the dead-letter queue. */
  redriveCount: number;
  /** Attempts since the last redrive: the 15th failure of a cycle marks the delivery FAILED. */
  cycleAttempts: number;
}

/** A delivery as `GET /v1/webhooks/deliveries` lists it: with `payload`, the event as sent. */
export function publicDelivery(delivery: Delivery, body: string | undefined) {
  const { cycleAttempts: _internal, ...shown } = delivery;
  return { ...shown, payload: body === undefined ? null : (JSON.parse(body) as unknown) };
}

/** Where a delivery goes: a registered endpoint, or a payment's `webhookUrl` override. */
export type DeliveryTarget = { endpointId: string } | { url: string };

/** Derived from the event and the destination, so a stream record processed twice creates one delivery. */
export const deliveryIdFor = (eventId: string, target: DeliveryTarget): string => {
  const destination = 'endpointId' in target ? target.endpointId : `url:${target.url}`;
  return `whd_${createHash('sha256').update(`${eventId}:${destination}`).digest('hex').slice(0, 24)}`;
};

// ── Counters ──────────────────────────────────────────────────────────────────────────────────

/** Counter items per cell: a delivery always counts in the shard its id picks. */
export const DELIVERY_COUNT_SHARDS = 4;
export const countShardOf = (deliveryId: string): number =>
  Number.parseInt(deliveryId.slice(-1), 16) % DELIVERY_COUNT_SHARDS || 0;

type CountName = DeliveryStatus | 'total';
export type Counts = Record<CountName, number>;
export type CountDelta = Partial<Counts>;

/**
 * What one change of a delivery adds to the counters of its cells (a stream record: `from` is
 * its old image's status, absent on creation, which enters `total` too). A write that kept the
 * status (the enqueued mark) adds nothing.
 */
export function countDelta(from: DeliveryStatus | undefined, to: DeliveryStatus): CountDelta {
  if (from === undefined) return { total: 1, [to]: 1 };
  if (from === to) return {};
  return { [from]: -1, [to]: 1 };
}

export const isEmptyDelta = (delta: CountDelta): boolean => !Object.values(delta).some(Boolean);

/** One counter item: the scope, its cell (an event type, and an endpoint for endpoint counters) and shard. */
export interface CounterCell {
  scope: MerchantScope;
  eventType: string;
  endpointId?: string;
  shard: number;
}

/** A counted change of one delivery: the counters it moves and by how much. */
export interface DeliveryCountChange {
  scope: MerchantScope;
  deliveryId: string;
  eventType: string;
  endpointId: string | null;
  delta: CountDelta;
}

/** The counter items a delivery counts in: its event type's and, for an endpoint's delivery, its endpoint's. */
function counterCellsOf(
  change: Pick<DeliveryCountChange, 'scope' | 'deliveryId' | 'eventType' | 'endpointId'>,
): CounterCell[] {
  const shard = countShardOf(change.deliveryId);
  const { scope, eventType } = change;
  return [
    { scope, eventType, shard },
    ...(change.endpointId === null ? [] : [{ scope, eventType, endpointId: change.endpointId, shard }]),
  ];
}

const cellId = (cell: CounterCell): string =>
  [cell.scope.accountId, cell.scope.mode, cell.eventType, cell.endpointId ?? '', cell.shard].join('\u0000');

/**
 * The changes summed per counter item: one `ADD` per item whatever the number of changes (a
 * transaction may name an item only once). Items whose sum is zero are left out.
 */
export function sumCountChanges(
  changes: readonly DeliveryCountChange[],
): { cell: CounterCell; delta: CountDelta }[] {
  const sums = new Map<string, { cell: CounterCell; delta: Counts }>();
  for (const change of changes) {
    for (const cell of counterCellsOf(change)) {
      const id = cellId(cell);
      const sum = sums.get(id) ?? { cell, delta: emptyCounts() };
      for (const [name, value] of Object.entries(change.delta) as [CountName, number][])
        sum.delta[name] += value;
      sums.set(id, sum);
    }
  }
  return [...sums.values()].flatMap(({ cell, delta }) => {
    const nonZero = Object.fromEntries(Object.entries(delta).filter(([, v]) => v !== 0)) as CountDelta;
    return isEmptyDelta(nonZero) ? [] : [{ cell, delta: nonZero }];
  });
}

/** The counter items a change moves (an id each: a counting transaction names each item once). */
export const counterItemIdsOf = (change: DeliveryCountChange): string[] => counterCellsOf(change).map(cellId);

export const emptyCounts = (): Counts =>
  Object.fromEntries(['total', ...deliveryStatuses].map((name) => [name, 0])) as Counts;

/** One counter item as read: its cell (an event type, with its endpoint for endpoint counters) and counts. */
export interface CountItem {
  eventType: string;
  endpointId: string | null;
  counts: Partial<Counts>;
}

const add = (into: Counts, counts: Partial<Counts>) => {
  for (const name of ['total', ...deliveryStatuses] as const) into[name] += counts[name] ?? 0;
};

/** `GET /v1/webhooks/stats`: the per-event-type counters summed. */
export function deliveryStats(items: readonly CountItem[]): Counts {
  const counts = emptyCounts();
  for (const item of items) add(counts, item.counts);
  return counts;
}

// ── The delivery list ─────────────────────────────────────────────────────────────────────────

/** The deepest `offset` of the list: a page reads at most `offset + limit` items per partition. */
export const DELIVERY_LIST_MAX_OFFSET = 1000;

export interface DeliveryFilters {
  status?: DeliveryStatus;
  eventType?: string;
  endpointId?: string;
}

/** A partition of deliveries, newest first, and how many of them match (by the counters). */
export type DeliverySource =
  /** Every delivery of one of the scope's partitions (the table, `DELIVERY#…`). */
  (
    | { kind: 'scope'; partition: number }
    /** Every delivery of one endpoint (GSI1). */
    | { kind: 'endpoint'; endpointId: string }
    /** Deliveries of one status and event type (GSI2), and one endpoint (GSI3). */
    | { kind: 'cell'; status: DeliveryStatus; eventType: string; endpointId?: string }
  ) & { matches: number };

interface DeliveryQueryPlan {
  total: number;
  /** Merged newest first; only partitions that hold matches. */
  sources: DeliverySource[];
}

/** Which counters a filter needs: one endpoint's, or the per-event-type ones. */
export const countersFor = (filters: DeliveryFilters): { endpointId?: string } =>
  filters.endpointId === undefined ? {} : { endpointId: filters.endpointId };

/**
 * Which partitions answer `filters`, and how many deliveries match, from the counters
 * `countersFor(filters)` names. Without a status or event type one partition holds every match
 * (the scope's, or the endpoint's); otherwise the matching (status, event type) cells with a
 * delivery in them: one cell, or at most 5 (every status of one type) or one per event type.
 */
export function planDeliveryQuery(filters: DeliveryFilters, items: readonly CountItem[]): DeliveryQueryPlan {
  const byType = new Map<string, Counts>();
  for (const item of items) {
    if ((item.endpointId ?? undefined) !== filters.endpointId) continue;
    if (filters.eventType !== undefined && item.eventType !== filters.eventType) continue;
    const counts = byType.get(item.eventType) ?? emptyCounts();
    add(counts, item.counts);
    byType.set(item.eventType, counts);
  }
  let total = 0;
  for (const counts of byType.values()) total += counts[filters.status ?? 'total'];
  if (filters.status === undefined && filters.eventType === undefined) {
    return {
      total,
      sources:
        filters.endpointId === undefined
          ? // The scope's deliveries are spread evenly over its partitions (by delivery id).
            Array.from({ length: SCOPE_PARTITIONS }, (_, partition) => ({
              kind: 'scope',
              partition,
              matches: total / SCOPE_PARTITIONS,
            }))
          : [{ kind: 'endpoint', endpointId: filters.endpointId, matches: total }],
    };
  }
  const statuses = filters.status === undefined ? deliveryStatuses : [filters.status];
  const sources: DeliverySource[] = [];
  for (const [eventType, counts] of [...byType].sort(([a], [b]) => a.localeCompare(b))) {
    for (const status of statuses) {
      if (counts[status] > 0)
        sources.push({
          kind: 'cell',
          status,
          eventType,
          ...(filters.endpointId !== undefined && { endpointId: filters.endpointId }),
          matches: counts[status],
        });
    }
  }
  return { total, sources };
}

/** The delivery list merges its partitions newest first (`domain/merge.ts`). */
export { firstPageSize, type SourcePage } from './merge.ts';
export const takeNewest = <T>(
  sources: readonly SourcePage<T>[],
  order: (item: T) => string,
  out: T[],
  need: number,
): 'done' | 'refill' => takeInOrder(sources, order, out, need, 'desc');
