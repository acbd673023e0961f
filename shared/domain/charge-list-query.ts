/** `GET /v1/charges` query (Part 1's defined contract). */

import * as v from 'valibot';
import { isoBound } from './iso-time.ts';
import { parseChargeId } from './pix-ids.ts';
import { normalizeTaxId } from './tax-id.ts';
import { publicStatuses, type TxStatus, txStatusesOf } from './transaction-status.ts';
import { boundsReversed, oneOf, parseInput, queryInteger } from './validation.ts';

/** `page` and `offset` are not in the schema: strict parsing rejects them (cursor pagination only). */
export const ListChargesQuery = v.strictObject({
  limit: queryInteger(1, 100, 25),
  starting_after: v.optional(
    v.pipe(
      v.string(),
      v.check(
        (value) => value.startsWith('ch_') && parseChargeId(value) !== undefined,
        'Must be a charge id (ch_…)',
      ),
      v.transform((value) => parseChargeId(value) ?? ''),
    ),
  ),
  status: v.optional(oneOf(publicStatuses)),
  created_after: v.optional(isoBound('start')),
  created_before: v.optional(isoBound('end')),
  customer_id: v.optional(v.pipe(v.string(), v.minLength(1), v.transform(normalizeTaxId))),
});

/** What the charge list reads: `GET /v1/charges`'s query in the store's terms. */
export interface ChargeListFilter {
  limit: number;
  startingAfter?: string;
  statuses?: TxStatus[];
  /** `pending` and `expired` split the awaiting statuses by expiry (ahead of or past now). */
  expiry?: 'ahead' | 'past';
  createdAfterMs?: number;
  createdBeforeMs?: number;
  customerDocument?: string;
}

/** The query string of `GET /v1/charges`, checked (400 with `param` on the first fault). */
export function parseChargeListQuery(query: Record<string, string>): ChargeListFilter {
  const q = parseInput(ListChargesQuery, query, 'query');
  if (q.created_after !== undefined && q.created_before !== undefined && q.created_after > q.created_before)
    throw boundsReversed('created_after', 'created_before');
  const statuses =
    q.status === undefined
      ? undefined
      : [...txStatusesOf(q.status), ...(q.status === 'expired' ? txStatusesOf('pending') : [])];
  const expiry = q.status === 'pending' ? 'ahead' : q.status === 'expired' ? 'past' : undefined;
  return {
    limit: q.limit,
    ...(q.starting_after !== undefined && { startingAfter: q.starting_after }),
    ...(statuses !== undefined && { statuses }),
    ...(expiry !== undefined && { expiry }),
    ...(q.created_after !== undefined && { createdAfterMs: q.created_after }),
    ...(q.created_before !== undefined && { createdBeforeMs: q.created_before }),
    ...(q.customer_id !== undefined && { customerDocument: q.customer_id }),
  };
}
