import { NotFound } from '#shared/domain/errors.ts';
import { parseChargeId } from '#shared/domain/pix-ids.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { resendPaymentWebhook as resend } from '#shared/services/resend-payment-webhook.ts';

/**
 * POST /v1/payments/{id}/resend-webhook: the transaction's current status as a new legacy
 * event to its destinations; `resent` is false (and nothing is sent) when it has none.
 */
export const resendPaymentWebhook: RouteHandler<KeyPrincipal> = async ({ principal, pathParameters }) => {
  const rawId = parseChargeId(pathParameters.id ?? '');
  if (rawId === undefined) throw new NotFound('No such payment.');
  return { status: 200, body: await resend(principal, rawId) };
};
