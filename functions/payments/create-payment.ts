import { parseCreatePayment } from '#shared/domain/payment-input.ts';
import { idempotentResponse } from '#shared/http/idempotent-response.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { createPayment as create } from '#shared/services/create-payment.ts';
import { parseWithDestination } from '#shared/webhooks/destination.ts';

/**
 * POST /v1/payments: a Pix charge created in the transaction format, idempotent on the body's
 * `idempotencyKey`; validation (400) and the method/currency rules (422) come first.
 */
export const createPayment: RouteHandler<KeyPrincipal> = async ({ principal, body, baseUrl, headers }) =>
  idempotentResponse(
    await create({
      scope: principal,
      input: await parseWithDestination(() => parseCreatePayment(body, headers), body, 'webhookUrl'),
      rawBody: body,
      baseUrl,
      headers,
    }),
  );
