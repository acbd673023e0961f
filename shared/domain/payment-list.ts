/**
 * `GET /v1/payments` (Part 2, "List query"): the query's rules, which index partitions answer a
 * status filter, how each `sortBy` is served, and the bounds that keep every page's cost
 * independent of the scope's history (docs/data-model.md, "The payment list"). Pure.
 *
 * - `createdAt` and `id` (a UUIDv7: creation order), and the fields that are null on every Pix
 *   payment, are served by the key order: a page reads what lies before it, hence
 *   `page × limit` ≤ `PAYMENT_LIST_MAX_DEPTH`.
 * - Every other field is sorted in memory over all matches of the filters, read with only the
 *   attributes it needs: at most `PAYMENT_SORT_MAX_MATCHES` may match (400 `param: sortBy`
 *   beyond; narrow the dates or filter by status).
 */

import * as v from 'valibot';
import { type ChargeRecord, effectiveStatus } from './charges.ts';
import { InvalidInput } from './errors.ts';
import { isoBound } from './iso-time.ts';
import { serializePayment } from './payments.ts';
import { awaitingPayment, type TxStatus, txStatuses } from './transaction-status.ts';
import { boundsReversed, oneOf, parseInput, queryInteger } from './validation.ts';

const PAYMENT_LIST_DEFAULT_LIMIT = 20;
const PAYMENT_LIST_MAX_LIMIT = 100;
/**
 * The deepest item a page may reach (`page × limit`): a key-ordered page reads what lies before
 * it, and a charge item is about 1 KB (7 KB while it stored its QR image), so a query page
 * (1 MB) passes over about 1 000 of them. As deep as the delivery list's `offset`; further back, narrow the dates.
 */
export const PAYMENT_LIST_MAX_DEPTH = 1_000;
/** The most payments an in-memory sort may read (all matches of the filters). */
export const PAYMENT_SORT_MAX_MATCHES = 1_000;

export type PaymentField = keyof ReturnType<typeof serializePayment>;

/**
 * The stored attributes each field of the full payment shape (`serializePayment`) is computed
 * from: a sort by the field reads only these. Typed against the serializer's output, so a field
 * added there fails the build until it is listed here. `[]`: the same for every payment.
 */
export const PAYMENT_FIELD_SOURCES: Record<PaymentField, readonly (keyof ChargeRecord)[]> = {
  id: ['id'],
  status: ['status', 'expiresAt'],
  amount: ['amount'],
  currency: ['currency'],
  paymentMethods: ['paymentMethods'],
  customerName: ['customer'],
  customerDocument: ['customer'],
  customerEmail: ['customer'],
  metadata: ['metadata', 'failure', 'med', 'status', 'expiresAt', 'createdAt'],
  createdAt: ['createdAt'],
  paidWith: ['paidAt'],
  providerFee: ['fees'],
  platformFee: ['fees'],
  netAmount: ['fees'],
  paidAt: ['paidAt'],
  pixQrCode: ['qrCodeBase64'],
  pixCopyPaste: ['brCode'],
  pixExpiresAt: ['brCode', 'expiresAt'],
  cardRedirectUrl: [],
  mbEntity: [],
  mbReference: [],
  mbExpiresAt: [],
  boletoBarcode: [],
  boletoLine: [],
  boletoPdfUrl: [],
  boletoExpiresAt: [],
  cryptoAddress: [],
  cryptoAmount: [],
  cryptoNetwork: [],
  cryptoCurrency: [],
};

export const paymentFields = Object.keys(PAYMENT_FIELD_SOURCES) as PaymentField[];

/**
 * Whether the key order (creation, then id) is the order of `field`: creation time and the
 * UUIDv7 id are; a field equal on every payment leaves the tie-break, which is that order too.
 */
export const servedByKeyOrder = (field: PaymentField): boolean =>
  field === 'createdAt' || field === 'id' || PAYMENT_FIELD_SOURCES[field].length === 0;

// ── The query ─────────────────────────────────────────────────────────────────────────────────

export const ListPaymentsQuery = v.strictObject({
  page: queryInteger(1, PAYMENT_LIST_MAX_DEPTH, 1),
  limit: queryInteger(1, PAYMENT_LIST_MAX_LIMIT, PAYMENT_LIST_DEFAULT_LIMIT),
  status: v.optional(oneOf(txStatuses)),
  startDate: v.optional(isoBound('start')),
  endDate: v.optional(isoBound('end')),
  sortBy: v.optional(oneOf(paymentFields), 'createdAt'),
  sortOrder: v.optional(v.picklist(['asc', 'desc'] as const, 'Must be asc or desc'), 'desc'),
});

export interface PaymentListQuery {
  page: number;
  limit: number;
  status?: TxStatus;
  /** Inclusive bounds on the creation time, in milliseconds. */
  fromMs?: number;
  toMs?: number;
  sortBy: PaymentField;
  sortOrder: 'asc' | 'desc';
}

/** The query string of `GET /v1/payments`, checked (400 with `param` on the first fault). */
export function parsePaymentListQuery(query: Record<string, string>): PaymentListQuery {
  const q = parseInput(ListPaymentsQuery, query, 'query');
  if (q.startDate !== undefined && q.endDate !== undefined && q.startDate > q.endDate)
    throw boundsReversed('startDate', 'endDate');
  if (q.page * q.limit > PAYMENT_LIST_MAX_DEPTH)
    throw new InvalidInput(
      `Invalid page: page × limit must be at most ${PAYMENT_LIST_MAX_DEPTH} (a page reads every payment ` +
        'before it); narrow startDate/endDate or filter by status to reach further back, or reverse sortOrder',
      { param: 'page' },
    );
  return {
    page: q.page,
    limit: q.limit,
    ...(q.status !== undefined && { status: q.status }),
    ...(q.startDate !== undefined && { fromMs: q.startDate }),
    ...(q.endDate !== undefined && { toMs: q.endDate }),
    sortBy: q.sortBy,
    sortOrder: q.sortOrder,
  };
}

/** The 400 of an in-memory sort over more matches than it may read. */
export const tooManyToSort = (field: PaymentField, matches: number | undefined) =>
  new InvalidInput(
    `Invalid sortBy: sorting by ${field} reads every matching payment, and at most ${PAYMENT_SORT_MAX_MATCHES} ` +
      `may match (${matches === undefined ? 'more' : matches} do); narrow startDate/endDate or filter by ` +
      'status, or sort by createdAt',
    { param: 'sortBy' },
  );

// ── Which partitions answer a status filter ───────────────────────────────────────────────────

/**
 * Where a filter's payments are read and how the shown status (`effectiveStatus`: awaiting
 * payment past its expiry shows EXPIRED) is followed:
 * - no status: the scope's charges;
 * - a status: its cell (charges stored in it), and
 *   - awaiting payment (WAITING_PAYMENT, PENDING): only those not past expiry (`unexpiredOnly`);
 *     the ones past it, which the scheduler has not recorded yet, are `overdue` and leave the total;
 *   - EXPIRED: also the `overdue` of every awaiting status, which join the page and the total.
 */
interface StatusPlan {
  /** The stored status whose cell is read; `undefined`: every charge of the scope. */
  cell?: TxStatus;
  unexpiredOnly: boolean;
  /** Awaiting statuses whose charges past expiry must be found. */
  overdueOf: TxStatus[];
  /** +1: overdue ones join (EXPIRED); −1: they leave (awaiting); 0: none are read. */
  overdueSign: -1 | 0 | 1;
}

const awaitingStatuses: TxStatus[] = txStatuses.filter(awaitingPayment);

export function statusPlan(status: TxStatus | undefined): StatusPlan {
  if (status === undefined) return { unexpiredOnly: false, overdueOf: [], overdueSign: 0 };
  if (status === 'EXPIRED')
    return { cell: status, unexpiredOnly: false, overdueOf: awaitingStatuses, overdueSign: 1 };
  if (awaitingPayment(status))
    return { cell: status, unexpiredOnly: true, overdueOf: [status], overdueSign: -1 };
  return { cell: status, unexpiredOnly: false, overdueOf: [], overdueSign: 0 };
}

/** Whether a payment shows the filter's status at `now` (a page re-checks what it read). */
export const showsStatus = (
  charge: Pick<ChargeRecord, 'status' | 'expiresAt'>,
  status: TxStatus | undefined,
  now: number,
): boolean => status === undefined || effectiveStatus(charge, now) === status;

// ── Order ─────────────────────────────────────────────────────────────────────────────────────

/** Ids (UUIDv7) in the requested creation order. */
export const compareIds = (a: string, b: string, order: 'asc' | 'desc'): number =>
  (a < b ? -1 : a > b ? 1 : 0) * (order === 'asc' ? 1 : -1);

/** Two id lists, each already in `order`, merged in `order` (ids are unique). */
export function mergeIds(a: readonly string[], b: readonly string[], order: 'asc' | 'desc'): string[] {
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = a[i];
    const y = b[j];
    if (y === undefined || (x !== undefined && compareIds(x, y, order) <= 0)) {
      out.push(x as string);
      i++;
    } else {
      out.push(y);
      j++;
    }
  }
  return out;
}

/** The defaults of a record read with only some attributes, so the serializer can run on it. */
const PARTIAL_DEFAULTS = { customer: {}, metadata: {} } as const;

/**
 * The value `field` shows for a payment read with only `PAYMENT_FIELD_SOURCES[field]`: the
 * serializer's own output, so the order is by exactly what the page shows.
 */
export function sortValueOf(field: PaymentField, partial: Partial<ChargeRecord>, now: number): unknown {
  return serializePayment({ ...PARTIAL_DEFAULTS, ...partial } as ChargeRecord, now)[field];
}

const TYPE_RANK: Record<string, number> = { boolean: 0, number: 1, string: 2, object: 3 };

/**
 * Ascending order of two shown values: numbers by value, strings (ISO times included) by code
 * unit, arrays and objects by their JSON; values of different types by type. `null` is not
 * compared here (nulls go last in either order).
 */
function compareValues(a: unknown, b: unknown): number {
  const ta = TYPE_RANK[typeof a] ?? 4;
  const tb = TYPE_RANK[typeof b] ?? 4;
  if (ta !== tb) return ta - tb;
  const x = typeof a === 'object' ? JSON.stringify(a) : (a as number | string | boolean);
  const y = typeof b === 'object' ? JSON.stringify(b) : (b as number | string | boolean);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** A payment as an in-memory sort reads it: its id and the shown value of the sort field. */
export interface SortRow {
  id: string;
  value: unknown;
}

/**
 * The order of an in-memory sort: by the shown value in `order`, nulls last in either order,
 * ties by creation in `order` (so a field equal everywhere sorts as `createdAt` does).
 */
export function compareSortRows(a: SortRow, b: SortRow, order: 'asc' | 'desc'): number {
  const aNull = a.value === null || a.value === undefined;
  const bNull = b.value === null || b.value === undefined;
  if (aNull !== bNull) return aNull ? 1 : -1;
  const byValue = aNull ? 0 : compareValues(a.value, b.value) * (order === 'asc' ? 1 : -1);
  return byValue !== 0 ? byValue : compareIds(a.id, b.id, order);
}
