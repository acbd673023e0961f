import * as v from 'valibot';
import { serializeCharge } from '#shared/domain/charges.ts';
import { parseChargeId, publicChargeId } from '#shared/domain/pix-ids.ts';
import { normalizeTaxId } from '#shared/domain/tax-id.ts';
import { publicStatuses, txStatusesOf } from '#shared/domain/transaction-status.ts';
import { parseInput, queryInteger } from '#shared/domain/validation.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { listCharges as list } from '#shared/store/charges.ts';

const Timestamp = v.pipe(
  v.string(),
  v.check(
    (value) =>
      /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value) && !Number.isNaN(Date.parse(value)),
    'Must be an ISO 8601 timestamp',
  ),
  v.transform(Date.parse),
);

/** `page` and `offset` are not in the schema: strict parsing rejects them (cursor pagination only). */
const ListChargesQuery = v.strictObject({
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
  status: v.optional(v.picklist(publicStatuses, `Must be one of ${publicStatuses.join(', ')}`)),
  created_after: v.optional(Timestamp),
  created_before: v.optional(Timestamp),
  customer_id: v.optional(v.pipe(v.string(), v.minLength(1), v.transform(normalizeTaxId))),
});

/** GET /v1/charges: newest first, cursor pagination. */
export const listCharges: RouteHandler<KeyPrincipal> = async ({ principal, query }) => {
  const q = parseInput(ListChargesQuery, query, 'query');
  const now = Date.now();
  const expiry = q.status === 'pending' ? 'ahead' : q.status === 'expired' ? 'past' : undefined;
  const statuses =
    q.status === undefined
      ? undefined
      : [...txStatusesOf(q.status), ...(q.status === 'expired' ? txStatusesOf('pending') : [])];
  const { charges, hasMore } = await list(principal, {
    limit: q.limit,
    ...(q.starting_after !== undefined && { startingAfter: q.starting_after }),
    ...(statuses !== undefined && { statuses }),
    ...(expiry !== undefined && { expiry }),
    ...(q.created_after !== undefined && { createdAfterMs: q.created_after }),
    ...(q.created_before !== undefined && { createdBeforeMs: q.created_before }),
    ...(q.customer_id !== undefined && { customerDocument: q.customer_id }),
    nowIso: new Date(now).toISOString(),
  });
  const last = charges.at(-1);
  return {
    status: 200,
    body: {
      object: 'list',
      data: charges.map((c) => serializeCharge(c, now)),
      has_more: hasMore,
      next_cursor: hasMore && last ? publicChargeId(last.id) : null,
    },
  };
};
