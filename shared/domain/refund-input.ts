/**
 * `POST /v1/payments/{id}/refund` input (Part 2, "Refund body"), validated before anything is
 * read, and the Pix key rules a cashout destination must meet (DICT key types: CPF, CNPJ,
 * e-mail, phone, EVP).
 */

import * as v from 'valibot';
import { idempotencyKeyField, PIX_MAX_AMOUNT, parseWithAmountCode, withKeyInBody } from './charge-input.ts';
import type { RefundRequest } from './refunds.ts';
import { isValidCnpj, isValidCpf } from './tax-id.ts';
import { maxChars } from './validation.ts';

const MAX_REFUND_REASON_LENGTH = 500;

type PixKeyType = 'CPF' | 'CNPJ' | 'EMAIL' | 'PHONE' | 'EVP';

/** DICT's key forms: digits-only CPF/CNPJ, `+55` phone in E.164, e-mail (≤ 77), lower-case EVP UUID. */
function pixKeyType(key: string): PixKeyType | undefined {
  if (/^\d{11}$/.test(key) && isValidCpf(key)) return 'CPF';
  if (/^\d{14}$/.test(key) && isValidCnpj(key)) return 'CNPJ';
  if (/^\+55[1-9]{2}9?\d{8}$/.test(key)) return 'PHONE';
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(key)) return 'EVP';
  if (key.length <= 77 && v.is(v.pipe(v.string(), v.rfcEmail()), key)) return 'EMAIL';
  return undefined;
}

/** `passFeeToTenant` and `destinationKey` with `strategy: devolution` ("X only with Y": the error is on X). */
const CASHOUT_ONLY = 'Applies to cashout refunds only, not to strategy devolution';

export const RefundBody = v.pipe(
  v.strictObject({
    idempotencyKey: idempotencyKeyField('Must be a string: a key unique per intended refund'),
    amount: v.optional(
      v.pipe(
        v.number('Must be an integer amount in the smallest currency unit'),
        v.integer('Must be an integer amount in the smallest currency unit'),
        v.minValue(1, 'Must be greater than 0'),
        v.maxValue(PIX_MAX_AMOUNT, `Must be at most ${PIX_MAX_AMOUNT}`),
      ),
    ),
    reason: v.optional(v.pipe(v.string('Must be a string'), ...maxChars(MAX_REFUND_REASON_LENGTH))),
    // No default here: `refundRequestOf` picks one the acquirer can make.
    strategy: v.optional(v.picklist(['devolution', 'cashout'], 'Must be devolution or cashout')),
    passFeeToTenant: v.optional(v.boolean('Must be true or false')),
    destinationKey: v.optional(
      v.pipe(
        v.string('Must be a Pix key'),
        v.check(
          (key) => pixKeyType(key) !== undefined,
          'Must be a Pix key: CPF or CNPJ (digits only), e-mail, +55 phone in E.164, or an EVP UUID',
        ),
      ),
    ),
  }),
  v.forward(
    v.check((body) => body.strategy !== 'devolution' || body.passFeeToTenant === undefined, CASHOUT_ONLY),
    ['passFeeToTenant'],
  ),
  v.forward(
    v.check((body) => body.strategy !== 'devolution' || body.destinationKey === undefined, CASHOUT_ONLY),
    ['destinationKey'],
  ),
);
export type RefundBody = v.InferOutput<typeof RefundBody>;

export function parseRefundBody(input: unknown, headers: Record<string, string> = {}): RefundBody {
  // A bad `amount` is `invalid_amount`, as on the charge and payment creates.
  return withKeyInBody(() => parseWithAmountCode(RefundBody, input), headers);
}

/**
 * The refund asked for. Without a `strategy`: `cashout` (Part 2's default) where the acquirer pays
 * out, or where a cashout's own fields say so; otherwise `devolution`, the return every API Pix
 * acquirer makes, rather than a 422 for a refund the merchant never asked to be a cashout.
 */
export const refundRequestOf = (body: RefundBody, acquirerPaysOut: boolean): RefundRequest => ({
  strategy:
    body.strategy ??
    (acquirerPaysOut || body.destinationKey !== undefined || body.passFeeToTenant !== undefined
      ? 'cashout'
      : 'devolution'),
  passFeeToTenant: body.passFeeToTenant ?? false,
  ...(body.amount !== undefined && { amount: body.amount }),
  ...(body.reason !== undefined && { reason: body.reason }),
  ...(body.destinationKey !== undefined && { destinationKey: body.destinationKey }),
});
