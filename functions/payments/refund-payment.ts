import { NotFound } from '#shared/domain/errors.ts';
import { parseChargeId } from '#shared/domain/pix-ids.ts';
import { parseRefundBody } from '#shared/domain/refund-input.ts';
import { idempotentResponse } from '#shared/http/idempotent-response.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { createRefund } from '#shared/services/create-refund.ts';

/**
 * POST /v1/payments/{id}/refund: a full or partial refund of a settled payment, idempotent on
 * the body's `idempotencyKey`; the body is validated (400) before anything is read.
 */
export const refundPayment: RouteHandler<KeyPrincipal> = async ({
  principal,
  pathParameters,
  body,
  headers,
}) => {
  const input = parseRefundBody(body, headers);
  const chargeId = parseChargeId(pathParameters.id ?? '');
  if (chargeId === undefined) throw new NotFound('No such payment.');
  return idempotentResponse(
    await createRefund({ scope: principal, chargeId, body: input, rawBody: body, headers }),
  );
};
