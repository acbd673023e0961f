import { NotFound } from '#shared/domain/errors.ts';
import { serializePayment } from '#shared/domain/payments.ts';
import { parseChargeId } from '#shared/domain/pix-ids.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { cancelPayment as cancel } from '#shared/services/cancel-payment.ts';

/**
 * POST /v1/payments/{id}/cancel: WAITING_PAYMENT, PENDING or PROCESSING → CANCELLED, answered
 * with the updated transaction (the GET shape, `metadata.failure` included); any other status
 * is 400 `payment_not_cancellable`, an unavailable acquirer 503 with nothing changed.
 */
export const cancelPayment: RouteHandler<KeyPrincipal> = async ({ principal, pathParameters }) => {
  const rawId = parseChargeId(pathParameters.id ?? '');
  if (rawId === undefined) throw new NotFound('No such payment.');
  const cancelled = await cancel(principal, rawId);
  return { status: 200, body: serializePayment(cancelled, Date.now()) };
};
