import { ListChargesQuery } from '#shared/domain/charge-list-query.ts';
import { serializeCharge } from '#shared/domain/charges.ts';
import { publicChargeId } from '#shared/domain/pix-ids.ts';
import { txStatusesOf } from '#shared/domain/transaction-status.ts';
import { parseInput } from '#shared/domain/validation.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { listCharges as list } from '#shared/store/charges.ts';

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
