import { parseChargeListQuery } from '#shared/domain/charge-list-query.ts';
import { serializeCharge } from '#shared/domain/charges.ts';
import { cursorList } from '#shared/domain/lists.ts';
import { publicChargeId } from '#shared/domain/pix-ids.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { listCharges as list } from '#shared/store/charges.ts';

/** GET /v1/charges: newest first, cursor pagination. */
export const listCharges: RouteHandler<KeyPrincipal> = async ({ principal, query }) => {
  const filter = parseChargeListQuery(query);
  const now = Date.now();
  const { charges, hasMore } = await list(principal, { ...filter, nowIso: new Date(now).toISOString() });
  const body = cursorList(
    charges,
    hasMore,
    (c) => serializeCharge(c, now),
    (last) => publicChargeId(last.id),
  );
  return { status: 200, body };
};
