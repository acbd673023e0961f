import { InvalidInput } from '#shared/domain/errors.ts';
import { chargeInputOf, parseCreatePayment } from '#shared/domain/payment-input.ts';
import { serializePaymentCreated } from '#shared/domain/payments.ts';
import { idempotentResponse } from '#shared/http/idempotent-response.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { createCharge } from '#shared/services/create-charge.ts';
import { getOverrideSecret } from '#shared/store/webhook-override-secret.ts';
import { assertDeliverableUrl } from '#shared/webhooks/destination.ts';

/**
 * POST /v1/payments: a Pix charge created in the transaction format, idempotent on the body's
 * `idempotencyKey`; validation (400) and the method/currency rules (422) come first.
 */
export const createPayment: RouteHandler<KeyPrincipal> = async ({ principal, body, baseUrl, headers }) => {
  const input = parseCreatePayment(body);
  const chargeInput = chargeInputOf(input);
  if (input.webhookUrl !== undefined) {
    const [, secret] = await Promise.all([
      assertDeliverableUrl(input.webhookUrl, 'webhookUrl'),
      getOverrideSecret(principal),
    ]);
    // Deliveries to the override are signed: without a secret the merchant could not verify them.
    if (secret === undefined) {
      throw new InvalidInput(
        'webhookUrl needs a signing secret: create one with POST /v1/webhooks/override-secret/rotate first.',
        { param: 'webhookUrl' },
      );
    }
  }
  return idempotentResponse(
    await createCharge({
      scope: principal,
      routeId: 'createPayment',
      idempotencyKey: input.idempotencyKey,
      rawBody: body,
      input: chargeInput,
      baseUrl,
      headers,
      serialize: serializePaymentCreated,
      paymentFields: {
        paymentMethods: input.paymentMethods,
        ...(input.customerId !== undefined && { customerId: input.customerId }),
        ...(input.webhookUrl !== undefined && { webhookUrl: input.webhookUrl }),
      },
    }),
  );
};
