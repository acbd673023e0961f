/**
 * Payment counters: how many payments of a merchant scope were created in each UTC minute, hour,
 * day and month, in total and per stored status. The outbox counts every payment (charge)
 * creation and status change from the table's stream into the four buckets of its creation time,
 * exactly once (a marker per stream record, as for delivery counters); a list's `total` then sums
 * the buckets that lie whole inside its date window and counts only the partial minutes at its
 * edges from the items (`planWindowCount`). Pure: the store reads and writes what these decide
 * (docs/data-model.md).
 */

import type { MerchantScope } from './scope.ts';
import { type TxStatus, txStatuses } from './transaction-status.ts';

/** Bucket sizes, finest first: each level's buckets tile the next level's exactly (UTC). */
const countLevels = ['MINUTE', 'HOUR', 'DAY', 'MONTH'] as const;
export type CountLevel = (typeof countLevels)[number];

/** What a counter item counts: every payment (`total`) and each stored status. */
type PaymentCountName = TxStatus | 'total';
export type PaymentCountDelta = Partial<Record<PaymentCountName, number>>;

/** Length of a bucket's label, a prefix of the ISO time (`2026-05-01T13:45`, `…T13`, `2026-05-01`, `2026-05`). */
const LABEL_LENGTH: Record<CountLevel, number> = { MINUTE: 16, HOUR: 13, DAY: 10, MONTH: 7 };
const FIXED_MS: Partial<Record<CountLevel, number>> = {
  MINUTE: 60_000,
  HOUR: 3_600_000,
  DAY: 86_400_000,
};

/** The label of the bucket of `level` holding the instant `ms` (≥ 0). */
const bucketLabel = (level: CountLevel, ms: number): string =>
  new Date(ms).toISOString().slice(0, LABEL_LENGTH[level]);

/** The start of the bucket of `level` holding `ms` (infinities are kept). */
function floorTo(level: CountLevel, ms: number): number {
  if (!Number.isFinite(ms)) return ms;
  const size = FIXED_MS[level];
  if (size !== undefined) return ms - (((ms % size) + size) % size);
  const at = new Date(ms);
  return Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1);
}

/** The first bucket start of `level` at or after `ms`. */
function ceilTo(level: CountLevel, ms: number): number {
  const floor = floorTo(level, ms);
  if (floor === ms) return ms;
  const size = FIXED_MS[level];
  if (size !== undefined) return floor + size;
  const at = new Date(floor);
  return Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1);
}

/** The buckets a payment created at `createdAt` counts in: one per level. */
export function bucketsOf(createdAt: string): { level: CountLevel; label: string }[] {
  const ms = Date.parse(createdAt);
  return countLevels.map((level) => ({ level, label: bucketLabel(level, ms) }));
}

/**
 * What one stream record of a payment adds to its buckets: a creation counts in `total` and its
 * status; a status change moves one from the old status to the new; a write that kept the status
 * (a refund's running total) adds nothing.
 */
export function paymentCountDelta(before: TxStatus | undefined, after: TxStatus): PaymentCountDelta {
  if (before === undefined) return { total: 1, [after]: 1 };
  if (before === after) return {};
  return { [before]: -1, [after]: 1 };
}

export const isEmptyPaymentDelta = (delta: PaymentCountDelta): boolean => !Object.values(delta).some(Boolean);

/** One counter item: a scope's bucket. */
export interface PaymentCountCell {
  scope: MerchantScope;
  level: CountLevel;
  label: string;
}

/** A counted change of one payment: its scope, creation time and delta. */
export interface PaymentCountChange {
  scope: MerchantScope;
  createdAt: string;
  delta: PaymentCountDelta;
}

export const paymentCountCellId = (cell: PaymentCountCell): string =>
  [cell.scope.accountId, cell.scope.mode, cell.level, cell.label].join('\u0000');

/** The counter items a change moves: its creation time's bucket at every level. */
export const cellsOfChange = (change: Pick<PaymentCountChange, 'scope' | 'createdAt'>): PaymentCountCell[] =>
  bucketsOf(change.createdAt).map((bucket) => ({ scope: change.scope, ...bucket }));

/** The changes summed per counter item (a transaction names an item once); zero sums are left out. */
export function sumPaymentCountChanges(
  changes: readonly PaymentCountChange[],
): { cell: PaymentCountCell; delta: PaymentCountDelta }[] {
  const sums = new Map<string, { cell: PaymentCountCell; delta: PaymentCountDelta }>();
  for (const change of changes) {
    for (const cell of cellsOfChange(change)) {
      const id = paymentCountCellId(cell);
      const sum = sums.get(id) ?? { cell, delta: {} };
      for (const [name, value] of Object.entries(change.delta) as [PaymentCountName, number][])
        sum.delta[name] = (sum.delta[name] ?? 0) + value;
      sums.set(id, sum);
    }
  }
  return [...sums.values()].flatMap(({ cell, delta }) => {
    const nonZero = Object.fromEntries(Object.entries(delta).filter(([, v]) => v !== 0)) as PaymentCountDelta;
    return isEmptyPaymentDelta(nonZero) ? [] : [{ cell, delta: nonZero }];
  });
}

/** A run of consecutive buckets of one level, by label (inclusive; absent: open on that side). */
export interface CounterRange {
  level: CountLevel;
  from?: string;
  to?: string;
}

/** A half-open span of creation times `[fromMs, toMs)` whose payments are counted from the items. */
export interface ItemSpan {
  fromMs: number;
  toMs: number;
}

interface WindowCountPlan {
  /** Whole buckets inside the window: read their counters. */
  counters: CounterRange[];
  /** Partial minutes at the window's edges (at most two, each under a minute): count the items. */
  edges: ItemSpan[];
}

function rangeOf(level: CountLevel, lo: number, hi: number): CounterRange {
  return {
    level,
    ...(Number.isFinite(lo) && { from: bucketLabel(level, lo) }),
    ...(Number.isFinite(hi) && { to: bucketLabel(level, hi - 1) }),
  };
}

/**
 * How to count the payments created within `[fromMs, toMs]` (inclusive, either side open): the
 * partial minutes at the edges from the items, then the coarsest whole buckets that tile the
 * rest: minutes up to the first whole hour, hours up to the first whole day, days up to the first
 * whole month, and months (and the same down towards the end). At most 2 × 59 minute, 2 × 23
 * hour and 2 × 30 day counters plus the months between, in at most 7 ranges, whatever the
 * number of payments; an open window reads the month counters alone.
 */
export function planWindowCount(fromMs?: number, toMs?: number): WindowCountPlan {
  // Charge ids start at 1970: an earlier start is no bound.
  const lo = fromMs === undefined || fromMs <= 0 ? Number.NEGATIVE_INFINITY : fromMs;
  const hi = toMs === undefined ? Number.POSITIVE_INFINITY : toMs + 1;
  if (lo >= hi || hi <= 0) return { counters: [], edges: [] };
  let a = ceilTo('MINUTE', lo);
  let b = floorTo('MINUTE', hi);
  if (a >= b) return { counters: [], edges: [{ fromMs: lo, toMs: hi }] };
  const edges: ItemSpan[] = [
    ...(lo < a ? [{ fromMs: lo, toMs: a }] : []),
    ...(b < hi ? [{ fromMs: b, toMs: hi }] : []),
  ];
  const counters: CounterRange[] = [];
  for (let i = 0; i < countLevels.length - 1; i++) {
    const level = countLevels[i] as CountLevel;
    const next = countLevels[i + 1] as CountLevel;
    const a2 = ceilTo(next, a);
    const b2 = floorTo(next, b);
    if (a2 >= b2) {
      counters.push(rangeOf(level, a, b));
      return { counters, edges };
    }
    if (a < a2) counters.push(rangeOf(level, a, a2));
    if (b2 < b) counters.push(rangeOf(level, b2, b));
    a = a2;
    b = b2;
  }
  counters.push(rangeOf('MONTH', a, b));
  return { counters, edges };
}

/** The count `name` summed over counter items as read. */
export const sumCounts = (items: readonly PaymentCountDelta[], name: PaymentCountName): number =>
  items.reduce((sum, item) => sum + (item[name] ?? 0), 0);

export const paymentCountNames: readonly PaymentCountName[] = ['total', ...txStatuses];
