/**
 * Creating a payment (`POST /v1/payments`): the same Pix charge as `create-charge`, in the
 * transaction format. A `webhookUrl` must be deliverable and the account must have an override
 * signing secret first: deliveries to it are signed, and an unverifiable webhook is worse than
 * none.
 */

import { InvalidInput } from '../domain/errors.ts';
import { type CreatePaymentBody, chargeInputOf } from '../domain/payment-input.ts';
import { serializePaymentCreated } from '../domain/payments.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { getOverrideSecret } from '../store/webhook-override-secret.ts';
import { assertDeliverableUrl } from '../webhooks/destination.ts';
import { type CreateChargeResult, createCharge } from './create-charge.ts';

export async function createPayment(request: {
  scope: MerchantScope;
  input: CreatePaymentBody;
  rawBody: unknown;
  baseUrl: string;
  headers: Record<string, string>;
}): Promise<CreateChargeResult> {
  const { input, scope } = request;
  // Pix only (422) before anything is read.
  const chargeInput = chargeInputOf(input);
  if (input.webhookUrl !== undefined) {
    const [, secret] = await Promise.all([
      assertDeliverableUrl(input.webhookUrl, 'webhookUrl'),
      getOverrideSecret(scope),
    ]);
    if (secret === undefined) {
      throw new InvalidInput(
        'webhookUrl needs a signing secret: create one with POST /v1/webhooks/override-secret/rotate first.',
        { param: 'webhookUrl' },
      );
    }
  }
  return createCharge({
    scope,
    routeId: 'createPayment',
    idempotencyKey: input.idempotencyKey,
    idempotencyKeyParam: 'idempotencyKey',
    rawBody: request.rawBody,
    input: chargeInput,
    baseUrl: request.baseUrl,
    headers: request.headers,
    serialize: serializePaymentCreated,
    paymentFields: {
      paymentMethods: input.paymentMethods,
      ...(input.customerId !== undefined && { customerId: input.customerId }),
      ...(input.webhookUrl !== undefined && { webhookUrl: input.webhookUrl }),
    },
  });
}
