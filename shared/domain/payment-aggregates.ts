/**
 * Per-day payment aggregates: what `GET /v1/payments/stats` and `/metrics` read, one item per
 * (merchant scope, São Paulo calendar day, currency, method), so a report reads O(days) items
 * whatever the number of payments. The outbox adds every charge creation and change from the
 * table's stream to the item of the charge's **creation day** (the cohort: a payment created on
 * Monday and paid on Tuesday counts, with its volume, on Monday; a refund or a MED weeks later
 * moves Monday's figures too), in the same transaction and under the same per-record marker as
 * the payment counters (`shared/services/count-payment-changes.ts`). Pure: what each stream
 * record adds, and how items are summed; the reports are `payment-reports.ts`.
 */

import { saoPauloDate } from './business-calendar.ts';
import type { ChargeRecord } from './charges.ts';
import {
  cellsOfChange,
  isEmptyPaymentDelta,
  type PaymentCountChange,
  paymentCountCellId,
} from './payment-counts.ts';
import type { MerchantScope } from './scope.ts';
import type { TxStatus } from './transaction-status.ts';

/**
 * Time-to-pay histogram: the upper bound (seconds, inclusive) of each bucket, then one open bucket
 * past a day. Fixed so that per-day histograms add up; finer where Pix payers pay (the first
 * minutes).
 */
export const TIME_TO_PAY_BOUNDS = [5, 10, 20, 30, 45, 60, 90, 120, 180, 300, 600, 1800, 3600, 21_600, 86_400];
/** One figure per bucket: `ttp00` (≤ 5 s) … `ttp14` (≤ 1 day), `ttp15` (longer). */
export const timeToPayNames = [
  'ttp00',
  'ttp01',
  'ttp02',
  'ttp03',
  'ttp04',
  'ttp05',
  'ttp06',
  'ttp07',
  'ttp08',
  'ttp09',
  'ttp10',
  'ttp11',
  'ttp12',
  'ttp13',
  'ttp14',
  'ttp15',
] as const;

/** The figures of a day item, each an `ADD`ed number (counts, and volumes in minor units). */
export const dayFigureNames = [
  'created',
  'paid',
  'paidVolume',
  'feeVolume',
  'expired',
  'cancelled',
  'failed',
  'returned',
  'refunded',
  'refundedVolume',
  'disputed',
  'disputedVolume',
  'disputeLost',
  'disputeLostVolume',
  ...timeToPayNames,
] as const;
export type DayFigureName = (typeof dayFigureNames)[number];
export type DayFigures = Partial<Record<DayFigureName, number>>;

/** What the aggregates read of a charge image (the stream's old or new image). */
export interface ChargeImage {
  status: TxStatus;
  amount: number;
  currency: string;
  /** Upper-case, as the transaction format names it (`PIX`). */
  method: string;
  createdAt: string;
  paidAt?: string;
  /** Provider and platform fees of the settlement. */
  fees?: number;
  /** Sum of the REFUNDED refunds (money that went back). */
  refundedSettled?: number;
  /** The wallet shard the charge took at creation (`0…walletShards-1`; absent before sharding). */
  walletShard?: number;
  /** What its MED case holds (absent before it was stored: the whole amount). */
  disputedAmount?: number;
}

/** What the aggregates read of a charge record or stream image (its other fields are left). */
export type ChargeImageFields = Pick<
  ChargeRecord,
  | 'status'
  | 'amount'
  | 'currency'
  | 'paymentMethod'
  | 'createdAt'
  | 'paidAt'
  | 'fees'
  | 'refundedSettled'
  | 'walletShard'
  | 'disputedAmount'
>;
export const CHARGE_IMAGE_FIELDS = [
  'status',
  'amount',
  'currency',
  'paymentMethod',
  'createdAt',
  'paidAt',
  'fees',
  'refundedSettled',
  'walletShard',
  'disputedAmount',
] as const satisfies readonly (keyof ChargeImageFields)[];

export const chargeImageOf = (charge: ChargeImageFields): ChargeImage => ({
  status: charge.status,
  amount: charge.amount,
  currency: charge.currency,
  method: charge.paymentMethod.toUpperCase(),
  createdAt: charge.createdAt,
  ...(charge.paidAt !== undefined && { paidAt: charge.paidAt }),
  ...(charge.fees && { fees: charge.fees.providerFee + charge.fees.platformFee }),
  ...(charge.refundedSettled !== undefined && { refundedSettled: charge.refundedSettled }),
  ...(charge.walletShard !== undefined && { walletShard: charge.walletShard }),
  ...(charge.disputedAmount !== undefined && { disputedAmount: charge.disputedAmount }),
});

/** The histogram bucket of a time to pay (negative clock skew counts as instant). */
export function timeToPayBucket(seconds: number): DayFigureName {
  const index = TIME_TO_PAY_BOUNDS.findIndex((bound) => seconds <= bound);
  return timeToPayNames[index === -1 ? TIME_TO_PAY_BOUNDS.length : index] as DayFigureName;
}

/**
 * What one stream record of a charge adds to its creation day's item:
 * - a creation: `created`;
 * - the settlement (`paidAt` appears): `paid`, `paidVolume` (gross), `feeVolume` and one
 *   time-to-pay bucket (`paidAt − createdAt`);
 * - reaching EXPIRED, CANCELLED or REFUSED: `expired`, `cancelled`, `failed`; REFUNDED without a
 *   settlement (a payer-lock return): `returned`;
 * - reaching DISPUTE (a MED opened): `disputed` and its volume; CHARGEBACK (lost): `disputeLost`
 *   and its volume;
 * - the settled refunds growing: `refundedVolume` by the difference, `refunded` on the first.
 * A write that changed none of these (the enqueued mark, a reserved refund) adds nothing.
 */
export function dayFiguresDelta(before: ChargeImage | undefined, after: ChargeImage): DayFigures {
  const delta: DayFigures = {};
  const add = (name: DayFigureName, value: number) => {
    if (value !== 0) delta[name] = (delta[name] ?? 0) + value;
  };
  if (!before) add('created', 1);
  if (after.paidAt !== undefined && before?.paidAt === undefined) {
    add('paid', 1);
    add('paidVolume', after.amount);
    add('feeVolume', after.fees ?? 0);
    add(timeToPayBucket((Date.parse(after.paidAt) - Date.parse(after.createdAt)) / 1000), 1);
  }
  if (after.status !== before?.status) {
    if (after.status === 'EXPIRED') add('expired', 1);
    if (after.status === 'CANCELLED') add('cancelled', 1);
    if (after.status === 'REFUSED') add('failed', 1);
    if (after.status === 'REFUNDED' && after.paidAt === undefined) add('returned', 1);
    // What the case holds: the amount less the refunds paid before it opened.
    const held = after.disputedAmount ?? after.amount;
    if (after.status === 'DISPUTE') {
      add('disputed', 1);
      add('disputedVolume', held);
    }
    if (after.status === 'CHARGEBACK') {
      add('disputeLost', 1);
      add('disputeLostVolume', held);
    }
  }
  const settledBefore = before?.refundedSettled ?? 0;
  const settledAfter = after.refundedSettled ?? 0;
  add('refundedVolume', settledAfter - settledBefore);
  if (settledBefore === 0 && settledAfter > 0) add('refunded', 1);
  return delta;
}

/**
 * One day's figures (scope, São Paulo day, currency, method), kept in several items (shards) so
 * that a busy merchant's stream batches spread their writes; a report sums them all. `shard` is
 * the item a write goes to, not part of the day's identity (`dayCellId`): the changes of one day
 * in a counting transaction are summed into the shard of the first (`sumDayChanges`).
 */
export interface DayCell {
  scope: MerchantScope;
  date: string;
  currency: string;
  method: string;
  shard: number;
}

/**
 * The day a charge counts in: its creation day in São Paulo, its currency and method; its shard
 * is the charge's wallet shard, which the create drew at random among the account's
 * `walletShards` (shards.ts): the day items spread like the wallet's, with no account read.
 */
export const dayCellOf = (scope: MerchantScope, charge: ChargeImage): DayCell => ({
  scope,
  date: saoPauloDate(Date.parse(charge.createdAt)),
  currency: charge.currency,
  method: charge.method,
  shard: charge.walletShard ?? 0,
});

const dayCellId = (cell: DayCell): string =>
  [cell.scope.accountId, cell.scope.mode, cell.date, cell.currency, cell.method].join('\u0000');

interface DayChange {
  cell: DayCell;
  delta: DayFigures;
}

const isEmptyDayDelta = (delta: DayFigures): boolean => !Object.values(delta).some(Boolean);

/**
 * Changes summed per day (a transaction names an item once), into the shard of the day's first
 * change; zero sums are left out.
 */
export function sumDayChanges(changes: readonly DayChange[]): DayChange[] {
  const sums = new Map<string, DayChange>();
  for (const { cell, delta } of changes) {
    const id = dayCellId(cell);
    const sum = sums.get(id) ?? { cell, delta: {} };
    for (const [name, value] of Object.entries(delta) as [DayFigureName, number][])
      sum.delta[name] = (sum.delta[name] ?? 0) + value;
    sums.set(id, sum);
  }
  return [...sums.values()].flatMap(({ cell, delta }) => {
    const nonZero = Object.fromEntries(Object.entries(delta).filter(([, v]) => v !== 0)) as DayFigures;
    return isEmptyDayDelta(nonZero) ? [] : [{ cell, delta: nonZero }];
  });
}

/** What one charge record moves: the payment counters and its creation day's aggregates. */
export interface PaymentRecordChange {
  counts: PaymentCountChange;
  day: DayChange;
}

/** The counter and day items a record's change writes (an id each, besides its marker); none: nothing to count. */
export const itemIdsOfRecordChange = ({ counts, day }: PaymentRecordChange): string[] => [
  ...(isEmptyPaymentDelta(counts.delta) ? [] : cellsOfChange(counts).map(paymentCountCellId)),
  ...(isEmptyDayDelta(day.delta) ? [] : [`day\u0000${dayCellId(day.cell)}`]),
];

/** A day item as read: its key fields and figures. */
export interface DayAggregate {
  date: string;
  currency: string;
  method: string;
  figures: DayFigures;
}
