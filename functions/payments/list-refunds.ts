import { NotFound } from '#shared/domain/errors.ts';
import { parseChargeId } from '#shared/domain/pix-ids.ts';
import { serializeRefund } from '#shared/domain/refunds.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { getCharge } from '#shared/store/charges.ts';
import { listRefunds as readRefunds } from '#shared/store/refunds.ts';

/** GET /v1/payments/{id}/refunds: every refund of the transaction, newest first (automatic returns included). */
export const listRefunds: RouteHandler<KeyPrincipal> = async ({ principal, pathParameters }) => {
  const chargeId = parseChargeId(pathParameters.id ?? '');
  const [charge, refunds] =
    chargeId === undefined
      ? [undefined, []]
      : await Promise.all([getCharge(principal, chargeId), readRefunds(principal, chargeId)]);
  if (!charge) throw new NotFound('No such payment.');
  return { status: 200, body: { data: refunds.map(serializeRefund) } };
};
