import { NotFound } from '#shared/domain/errors.ts';
import { serializePayment } from '#shared/domain/payments.ts';
import { parseChargeId } from '#shared/domain/pix-ids.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { getCharge } from '#shared/store/charges.ts';

/** GET /v1/payments/{id}: the raw id of any charge of the key's account and mode. */
export const getPayment: RouteHandler<KeyPrincipal> = async ({ principal, pathParameters }) => {
  const rawId = parseChargeId(pathParameters.id ?? '');
  const charge = rawId === undefined ? undefined : await getCharge(principal, rawId);
  if (!charge) throw new NotFound('No such payment.');
  return { status: 200, body: serializePayment(charge, Date.now()) };
};
