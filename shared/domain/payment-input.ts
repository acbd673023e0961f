/**
 * `POST /v1/payments` input (Part 2, transaction format): the body schema and its mapping onto
 * the charge creation every Pix charge goes through. Runs before anything is read or written.
 */

import * as v from 'valibot';

import {
  assertObjectFields,
  type CreateChargeBody,
  idempotencyKeyField,
  Metadata,
  PIX_MAX_AMOUNT,
  parseWithAmountCode,
  withKeyInBody,
} from './charge-input.ts';
import { Unprocessable } from './errors.ts';
import { classifyTaxId, normalizeTaxId } from './tax-id.ts';
import { maxChars, oneOf } from './validation.ts';

const paymentMethods = ['PIX', 'CREDIT_CARD', 'MBWAY', 'MULTIBANCO', 'BOLETO', 'CRYPTO'] as const;

/** E.164: `+`, a country code not starting with 0, at most 15 digits in all. */
const E164 = /^\+[1-9]\d{1,14}$/;

const Text = (max: number) =>
  v.pipe(v.string(), v.trim(), v.minLength(1, 'Must not be empty'), ...maxChars(max));

/** Part 2's currency: 3–8 letters or digits (BRL, EUR, USDT…), upper-cased. */
export const CurrencyCode = v.pipe(
  v.string(),
  v.trim(),
  v.toUpperCase(),
  v.regex(/^[A-Z0-9]{3,8}$/, 'Must be 3–8 letters or digits'),
);

export const CreatePaymentBody = v.pipe(
  v.strictObject({
    amount: v.pipe(
      v.number('Must be an integer amount in the smallest currency unit'),
      v.integer('Must be an integer amount in the smallest currency unit'),
      v.minValue(1, 'Must be greater than 0'),
      v.maxValue(PIX_MAX_AMOUNT, `Must be at most ${PIX_MAX_AMOUNT}`),
    ),
    currency: v.optional(CurrencyCode, 'BRL'),
    paymentMethods: v.pipe(
      v.array(oneOf(paymentMethods), 'Must be an array'),
      v.minLength(1, 'Name at least one payment method'),
      v.transform((methods) => [...new Set(methods)]),
    ),
    customerId: v.optional(Text(128)),
    customerName: v.optional(Text(200)),
    customerDocument: v.optional(Text(64)),
    customerEmail: v.optional(
      v.pipe(v.string(), v.trim(), v.rfcEmail('Must be an RFC 5322 e-mail address'), v.maxLength(254)),
    ),
    metadata: v.optional(Metadata, {}),
    webhookUrl: v.optional(
      v.pipe(v.string('Must be a URL'), v.minLength(1, 'Must be a URL'), v.maxLength(2048)),
    ),
    idempotencyKey: idempotencyKeyField('Must be a string: a key unique per intended payment'),
  }),
  v.forward(
    v.check(
      (body) =>
        !body.paymentMethods.includes('MBWAY') ||
        (typeof body.metadata.phone === 'string' && E164.test(body.metadata.phone)),
      'MBWAY requires metadata.phone in E.164 format (for example +351912345678)',
    ),
    ['metadata', 'phone'],
  ),
);
export type CreatePaymentBody = v.InferOutput<typeof CreatePaymentBody>;

export function parseCreatePayment(input: unknown, headers: Record<string, string> = {}): CreatePaymentBody {
  assertObjectFields(input);
  return withKeyInBody(() => parseWithAmountCode(CreatePaymentBody, input), headers);
}

/**
 * The Pix charge a payment creates. Pix is the only method served: a payment that does not allow
 * it, or asks for another currency, is a business-rule rejection (422). A CPF or CNPJ is normalised like a charge's
 * `customer.document`; any other tax id (a NIF, say) is kept as sent.
 */
export function chargeInputOf(payment: CreatePaymentBody): CreateChargeBody {
  if (!payment.paymentMethods.includes('PIX')) {
    throw new Unprocessable(
      'No provider is configured for the requested payment methods; this service offers PIX.',
      {
        param: 'paymentMethods',
      },
    );
  }
  if (payment.currency !== 'BRL') throw new Unprocessable('Pix settles in BRL only.', { param: 'currency' });
  const document = payment.customerDocument;
  const normalized = document === undefined ? undefined : normalizeTaxId(document);
  return {
    amount: payment.amount,
    currency: 'BRL',
    payment_method: 'pix',
    customer: {
      ...(payment.customerName !== undefined && { name: payment.customerName }),
      ...(document !== undefined && {
        document: normalized !== undefined && classifyTaxId(normalized) ? normalized : document,
      }),
      ...(payment.customerEmail !== undefined && { email: payment.customerEmail }),
    },
    metadata: payment.metadata,
  };
}
