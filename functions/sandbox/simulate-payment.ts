import { serializeCharge } from '#shared/domain/charges.ts';
import { NotFound } from '#shared/domain/errors.ts';
import { parseChargeId } from '#shared/domain/pix-ids.ts';
import { SimulatePaymentBody } from '#shared/domain/sandbox-input.ts';
import { parseInput } from '#shared/domain/validation.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { simulateSandboxPix } from '#shared/services/simulate-sandbox-pix.ts';
import { requireTestMode } from './sandbox-only.ts';

const OUTCOME: Record<string, string> = {
  credit: 'paid',
  hold: 'held_for_review',
  refund: 'refunded',
  return: 'returned',
};

/** POST /v1/sandbox/charges/{id}/pay: a Pix arrives for the charge, as the acquirer would report it. */
export const simulatePayment: RouteHandler<KeyPrincipal> = async ({ principal, pathParameters, body }) => {
  requireTestMode(principal);
  const input = parseInput(SimulatePaymentBody, body, 'body');
  const chargeId = parseChargeId(pathParameters.id ?? '');
  if (chargeId === undefined) throw new NotFound('No such charge.');
  const now = new Date();
  const result = await simulateSandboxPix(
    principal,
    chargeId,
    { amount: input?.amount, payerDocument: input?.payer_document, payerName: input?.payer_name },
    now,
  );
  return {
    status: 200,
    body: {
      object: 'sandbox_payment',
      end_to_end_id: result.endToEndId,
      outcome: OUTCOME[result.outcome.kind],
      ...(result.outcome.kind === 'return' || result.outcome.kind === 'refund'
        ? { return_reason: result.outcome.reason }
        : {}),
      charge: serializeCharge(result.charge, now.getTime()),
    },
  };
};
