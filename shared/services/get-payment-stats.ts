/**
 * `GET /v1/payments/stats`: the window of the last `days` business days in São Paulo (today
 * included), its day aggregates read in one query (O(days) items, whatever the number of
 * payments), and Part 2's stats computed from them. As current as the table's stream.
 */

import { paymentStats, type StatsQuery } from '../domain/payment-reports.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { readPaymentDays } from '../store/payment-aggregates.ts';

export async function getPaymentStats(scope: MerchantScope, query: StatsQuery, nowMs: number) {
  // Loaded on the first report only (1.4 MB of holiday data: brazil-holidays.ts).
  const { brazilBusinessDayWindow } = await import('../domain/brazil-holidays.ts');
  const window = brazilBusinessDayWindow(query.days, nowMs);
  return paymentStats(window, await readPaymentDays(scope, window.from, window.to));
}
