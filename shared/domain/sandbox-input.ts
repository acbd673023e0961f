/** Bodies of the test-mode sandbox routes (`/v1/sandbox/…`). */

import * as v from 'valibot';
import { PIX_MAX_AMOUNT } from './charge-input.ts';
import { classifyTaxId, normalizeTaxId } from './tax-id.ts';

/** `POST /v1/sandbox/charges/{id}/pay`: the Pix as the acquirer reports it. */
export const SimulatePaymentBody = v.optional(
  v.strictObject({
    /** The payer's CPF/CNPJ as their bank reports it; omitted = not reported. */
    payer_document: v.optional(
      v.pipe(
        v.string(),
        v.transform(normalizeTaxId),
        v.check((d) => classifyTaxId(d) !== undefined, 'Must be a valid CPF or CNPJ'),
      ),
    ),
    payer_name: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200))),
    /**
     * Defaults to the charge amount; any other amount is returned and the charge stays as it was.
     * No Pix is larger than the Pix maximum (beyond it the amount could not even be stored).
     */
    amount: v.optional(
      v.pipe(
        v.number(),
        v.integer(),
        v.minValue(1),
        v.maxValue(PIX_MAX_AMOUNT, `Must be at most ${PIX_MAX_AMOUNT} (the Pix maximum)`),
      ),
    ),
  }),
  {},
);

/** `POST /v1/sandbox/acquirer`. */
export const SandboxAcquirerBody = v.pipe(
  v.strictObject({
    status: v.optional(v.picklist(['up', 'down'], 'Must be up or down')),
    payouts: v.optional(v.picklist(['supported', 'unsupported'], 'Must be supported or unsupported')),
  }),
  // Neither field is the one at fault: the error names none.
  v.check(
    (body) => body.status !== undefined || body.payouts !== undefined,
    'Send at least one of status, payouts',
  ),
);
