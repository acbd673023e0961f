/**
 * `GET /v1/payments/metrics`: the same business-day window as the stats (no upper limit: it stops
 * at Pix's launch), its day aggregates read in one query (O(days) items), and our metrics body
 * (README): funnel, rates, volumes, time to pay, and the same per day; optionally one currency.
 */

import { type MetricsQuery, paymentMetrics } from '../domain/payment-reports.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { readPaymentDays } from '../store/payment-aggregates.ts';

export async function getPaymentMetrics(scope: MerchantScope, query: MetricsQuery, nowMs: number) {
  // Loaded on the first report only (1.4 MB of holiday data: brazil-holidays.ts).
  const { brazilBusinessDayWindow } = await import('../domain/brazil-holidays.ts');
  const window = brazilBusinessDayWindow(query.days, nowMs);
  const days = await readPaymentDays(scope, window.from, window.to);
  return paymentMetrics(window, query.days, days, query.currency);
}
