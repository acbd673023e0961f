/**
 * `GET /v1/payments`: a page of the scope's payments in the full GET shape, with `total`, at a
 * cost bounded whatever the scope's history (docs/data-model.md, "The payment list"):
 * - the page: the scope's charges (no status) or the status's GSI3 cell, in key order for
 *   `createdAt`/`id` (the items before the page are passed over reading their ids only, at most
 *   `PAYMENT_LIST_MAX_DEPTH`), or every match with the sort field's attributes only, sorted in
 *   memory, for any other field (at most `PAYMENT_SORT_MAX_MATCHES`, else 400);
 * - `total`: the payment counters of the whole minutes, hours, days and months inside the date
 *   window, plus the items of its partial minutes (eventually consistent: the counters follow
 *   the table's stream);
 * - the shown status: awaiting payment past expiry shows EXPIRED, so an awaiting status filter
 *   skips those and EXPIRED adds them (found in the awaiting cells: at most the scope's live
 *   charges, which the account's live-charge limit bounds).
 */

import type { ChargeRecord } from '../domain/charges.ts';
import { planWindowCount, sumCounts } from '../domain/payment-counts.ts';
import {
  compareIds,
  compareSortRows,
  mergeIds,
  PAYMENT_FIELD_SOURCES,
  PAYMENT_SORT_MAX_MATCHES,
  type PaymentListQuery,
  type SortRow,
  servedByKeyOrder,
  showsStatus,
  sortValueOf,
  statusPlan,
  tooManyToSort,
} from '../domain/payment-list.ts';
import { serializePayment } from '../domain/payments.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { readPaymentCounts } from '../store/payment-counts.ts';
import {
  countPayments,
  getPayments,
  type PaymentSource,
  readPaymentIds,
  readPaymentPage,
  readPaymentRows,
} from '../store/payment-list.ts';

interface PaymentListPage {
  data: ReturnType<typeof serializePayment>[];
  total: number;
  page: number;
  limit: number;
}

export async function listPayments(
  scope: MerchantScope,
  q: PaymentListQuery,
  now: number,
): Promise<PaymentListPage> {
  const plan = statusPlan(q.status);
  const nowIso = new Date(now).toISOString();
  // The query's bounds are inclusive; a span is half-open.
  const span = {
    ...(q.fromMs !== undefined && { fromMs: q.fromMs }),
    ...(q.toMs !== undefined && { toMs: q.toMs + 1 }),
  };
  const main: PaymentSource = {
    ...(plan.cell !== undefined && { cell: plan.cell }),
    span,
    ...(plan.unexpiredOnly && { unexpiredAt: nowIso }),
  };
  /** Charges still stored awaiting payment whose expiry has passed (the scheduler records it within a minute). */
  const overdueSources: PaymentSource[] = plan.overdueOf.map((cell) => ({ cell, span, expiredAt: nowIso }));
  const skip = (q.page - 1) * q.limit;

  let items: ChargeRecord[];
  let total: number;
  if (servedByKeyOrder(q.sortBy)) {
    const overdue = Promise.all(
      overdueSources.map((source) => readPaymentIds(scope, source, q.sortOrder, Number.POSITIVE_INFINITY)),
    ).then((lists) => lists.flat().sort((a, b) => compareIds(a, b, q.sortOrder)));
    const counted = Promise.all([overdue, countStored(scope, plan.cell, q)]).then(([ids, stored]) =>
      Math.max(0, stored + plan.overdueSign * ids.length),
    );
    const page =
      plan.overdueSign === 1
        ? overdue.then(async (ids) =>
            ids.length === 0
              ? readPaymentPage(scope, main, q.sortOrder, skip, q.limit)
              : getPayments(
                  scope,
                  mergeIds(
                    await readPaymentIds(scope, main, q.sortOrder, skip + q.limit),
                    ids,
                    q.sortOrder,
                  ).slice(skip, skip + q.limit),
                ),
          )
        : readPaymentPage(scope, main, q.sortOrder, skip, q.limit);
    [items, total] = await Promise.all([page, counted]);
  } else {
    const attributes = PAYMENT_FIELD_SOURCES[q.sortBy];
    const read = await Promise.all(
      [main, ...(plan.overdueSign === 1 ? overdueSources : [])].map((source) =>
        readPaymentRows(scope, source, attributes, PAYMENT_SORT_MAX_MATCHES),
      ),
    );
    if (read.some((r) => r === undefined)) throw tooManyToSort(q.sortBy, undefined);
    const rows = read.flatMap((r) => r ?? []);
    if (rows.length > PAYMENT_SORT_MAX_MATCHES) throw tooManyToSort(q.sortBy, rows.length);
    const sorted: SortRow[] = rows
      .map((row) => ({
        id: String(row.id),
        value: sortValueOf(q.sortBy, row as Partial<ChargeRecord>, now),
      }))
      .sort((a, b) => compareSortRows(a, b, q.sortOrder));
    items = await getPayments(
      scope,
      sorted.slice(skip, skip + q.limit).map((row) => row.id),
    );
    total = rows.length;
  }
  return {
    // A page read from an index may hold a payment whose status changed a moment ago.
    data: items.filter((charge) => showsStatus(charge, q.status, now)).map((c) => serializePayment(c, now)),
    total,
    page: q.page,
    limit: q.limit,
  };
}

/**
 * How many payments are stored in `cell` (every one without it) within the query's dates: the
 * counters of the whole buckets inside the window, and the items of its partial minutes.
 */
async function countStored(
  scope: MerchantScope,
  cell: PaymentSource['cell'],
  q: Pick<PaymentListQuery, 'fromMs' | 'toMs'>,
): Promise<number> {
  const plan = planWindowCount(q.fromMs, q.toMs);
  const [counters, edges] = await Promise.all([
    readPaymentCounts(scope, plan.counters),
    Promise.all(
      plan.edges.map((span) => countPayments(scope, { ...(cell !== undefined && { cell }), span })),
    ),
  ]);
  return sumCounts(counters, cell ?? 'total') + edges.reduce((sum, n) => sum + n, 0);
}
