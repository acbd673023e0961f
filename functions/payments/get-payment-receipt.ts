import { NotFound } from '#shared/domain/errors.ts';
import { parseChargeId } from '#shared/domain/pix-ids.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { getPaymentReceipt as getReceipt } from '#shared/services/get-payment-receipt.ts';

/**
 * GET /v1/payments/{id}/receipt: `{contentType: "application/pdf", base64}` of a settled payment;
 * 400 `payment_not_settled` otherwise. It names the payer: no shared cache may keep it.
 */
export const getPaymentReceipt: RouteHandler<KeyPrincipal> = async ({ principal, pathParameters }) => {
  const rawId = parseChargeId(pathParameters.id ?? '');
  if (rawId === undefined) throw new NotFound('No such payment.');
  return {
    status: 200,
    body: await getReceipt(principal, rawId, new Date()),
    headers: { 'Cache-Control': 'no-store' },
  };
};
