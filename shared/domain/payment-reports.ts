/**
 * `GET /v1/payments/stats` (Part 2's shape) and `GET /v1/payments/metrics` (ours, in the README)
 * computed from the per-day aggregates of a window (`payment-aggregates.ts`): a report costs the
 * window's day items, never its payments. Pure: the window and the items are parameters.
 */

import * as v from 'valibot';
import type { CalendarDate, ReportWindow } from './business-calendar.ts';
import { REPORT_TIME_ZONE } from './business-calendar.ts';
import {
  type DayAggregate,
  type DayFigureName,
  type DayFigures,
  dayFigureNames,
  TIME_TO_PAY_BOUNDS,
  timeToPayNames,
} from './payment-aggregates.ts';
import { CurrencyCode } from './payment-input.ts';
import { parseInput, queryInteger } from './validation.ts';

const REPORT_DEFAULT_DAYS = 7;
/** Part 2: `dailyVolume` holds at most the 366 most recent days of a longer window. */
const STATS_MAX_DAILY_POINTS = 366;

const Days = queryInteger(1, Number.MAX_SAFE_INTEGER, REPORT_DEFAULT_DAYS);

export const StatsQuery = v.strictObject({ days: Days });
export type StatsQuery = v.InferOutput<typeof StatsQuery>;

export const MetricsQuery = v.strictObject({
  days: Days,
  currency: v.optional(CurrencyCode),
});
export type MetricsQuery = v.InferOutput<typeof MetricsQuery>;

export const parseStatsQuery = (query: Record<string, string>): StatsQuery =>
  parseInput(StatsQuery, query, 'query');
export const parseMetricsQuery = (query: Record<string, string>): MetricsQuery =>
  parseInput(MetricsQuery, query, 'query');

/** Figures summed over day items. */
function sumFigures(days: readonly DayAggregate[]): Record<DayFigureName, number> {
  const sum = Object.fromEntries(dayFigureNames.map((name) => [name, 0])) as Record<DayFigureName, number>;
  for (const day of days)
    for (const [name, value] of Object.entries(day.figures) as [DayFigureName, number][]) sum[name] += value;
  return sum;
}

function groupBy<K extends keyof DayAggregate>(days: readonly DayAggregate[], key: K) {
  const groups = new Map<DayAggregate[K], DayAggregate[]>();
  for (const day of days) {
    const group = groups.get(day[key]);
    if (group) group.push(day);
    else groups.set(day[key], [day]);
  }
  return [...groups.entries()].sort(([a], [b]) => String(a).localeCompare(String(b)));
}

const percent = (part: number, whole: number): number =>
  whole === 0 ? 0 : Math.round((part * 10_000) / whole) / 100;

/** The days of a window (items outside it, if any, are not counted). */
const within = (window: ReportWindow, days: readonly DayAggregate[]) =>
  days.filter((day) => day.date >= window.from && day.date <= window.to);

/** Part 2's stats: totals over the whole window; volumes are the paid (gross) amounts. */
export function paymentStats(window: ReportWindow, items: readonly DayAggregate[]) {
  const days = within(window, items);
  const total = sumFigures(days);
  const today = days.filter((day) => day.date === window.to);
  const currencies = groupBy(days, 'currency').map(([currency]) => currency);
  const volumeOf = (of: readonly DayAggregate[]) =>
    Object.fromEntries(
      currencies.map((currency) => [
        currency,
        sumFigures(of.filter((day) => day.currency === currency)).paidVolume,
      ]),
    );
  const byDate = new Map(groupBy(days, 'date'));
  return {
    totalTransactions: total.created,
    paidTransactions: total.paid,
    todayTransactions: sumFigures(today).created,
    successRate: total.created === 0 ? 0 : Math.round((total.paid * 100) / total.created),
    volumeByCurrency: groupBy(days, 'currency').map(([currency, of]) => {
      const sum = sumFigures(of);
      return { currency, volume: sum.paidVolume, count: sum.paid };
    }),
    todayVolumeByCurrency: volumeOf(today),
    dailyVolume: window.dates.slice(-STATS_MAX_DAILY_POINTS).map((date) => ({
      date,
      currencies: volumeOf(byDate.get(date) ?? []),
    })),
    methodBreakdown: groupBy(days, 'method').map(([method, of]) => {
      const sum = sumFigures(of);
      return { method, volume: sum.paidVolume, count: sum.paid };
    }),
  };
}

/**
 * The `p` quantile (0–1) of a time-to-pay histogram, in seconds: linear interpolation inside the
 * bucket that holds the rank (as Prometheus' `histogram_quantile`), the first bucket starting at
 * 0; a rank in the open bucket past a day answers its lower bound (a day). `null` without payments.
 */
export function timeToPayQuantile(figures: DayFigures, p: number): number | null {
  const counts = timeToPayNames.map((name) => figures[name as DayFigureName] ?? 0);
  const n = counts.reduce((a, b) => a + b, 0);
  if (n === 0) return null;
  const rank = p * n;
  let below = 0;
  for (const [index, count] of counts.entries()) {
    const lower = index === 0 ? 0 : (TIME_TO_PAY_BOUNDS[index - 1] as number);
    const upper = TIME_TO_PAY_BOUNDS[index];
    if (count > 0 && below + count >= rank) {
      if (upper === undefined) return lower;
      return Math.round((lower + ((upper - lower) * (rank - below)) / count) * 10) / 10;
    }
    below += count;
  }
  return TIME_TO_PAY_BOUNDS.at(-1) as number;
}

/** The metrics of a set of day items (the window's, or one day's). */
function metricsOf(days: readonly DayAggregate[]) {
  const sum = sumFigures(days);
  return {
    funnel: {
      created: sum.created,
      paid: sum.paid,
      expired: sum.expired,
      cancelled: sum.cancelled,
      failed: sum.failed,
      returned: sum.returned,
      refunded: sum.refunded,
      disputed: sum.disputed,
      disputeLost: sum.disputeLost,
    },
    rates: {
      conversion: percent(sum.paid, sum.created),
      expiry: percent(sum.expired, sum.created),
      cancellation: percent(sum.cancelled, sum.created),
      failure: percent(sum.failed, sum.created),
      return: percent(sum.returned, sum.created),
      refund: percent(sum.refunded, sum.paid),
      refundVolume: percent(sum.refundedVolume, sum.paidVolume),
      med: percent(sum.disputed, sum.paid),
      medLoss: percent(sum.disputeLost, sum.paid),
    },
    volume: groupBy(days, 'currency').map(([currency, of]) => {
      const c = sumFigures(of);
      return {
        currency,
        gross: c.paidVolume,
        fees: c.feeVolume,
        refunded: c.refundedVolume,
        disputeLost: c.disputeLostVolume,
        net: c.paidVolume - c.feeVolume - c.refundedVolume - c.disputeLostVolume,
        averageTicket: c.paid === 0 ? 0 : Math.round(c.paidVolume / c.paid),
      };
    }),
    timeToPay: {
      payments: sum.paid,
      p50Seconds: timeToPayQuantile(sum, 0.5),
      p90Seconds: timeToPayQuantile(sum, 0.9),
    },
  };
}

/** Our metrics body (README): the window's funnel, rates, volumes and time to pay, then per day. */
export function paymentMetrics(
  window: ReportWindow,
  businessDays: number,
  items: readonly DayAggregate[],
  currency?: string,
) {
  const days = within(window, items).filter((day) => currency === undefined || day.currency === currency);
  const byDate = new Map<CalendarDate, DayAggregate[]>(groupBy(days, 'date'));
  return {
    object: 'payment_metrics',
    timeZone: REPORT_TIME_ZONE,
    days: businessDays,
    from: window.from,
    to: window.to,
    currency: currency ?? null,
    ...metricsOf(days),
    daily: window.dates.map((date) => ({ date, ...metricsOf(byDate.get(date) ?? []) })),
  };
}
