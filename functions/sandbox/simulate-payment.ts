import { serializeCharge } from '#shared/domain/charges.ts';
import { NotFound } from '#shared/domain/errors.ts';
import { parseChargeId } from '#shared/domain/pix-ids.ts';
import { SimulatePaymentBody } from '#shared/domain/sandbox-input.ts';
import { parseInput } from '#shared/domain/validation.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { newEndToEndId } from '#shared/ids.ts';
import { sandboxProvider } from '#shared/providers/sandbox.ts';
import { receivePix } from '#shared/services/receive-pix.ts';
import { getAccountCached } from '#shared/store/accounts.ts';
import { getCharge } from '#shared/store/charges.ts';
import { requireTestMode } from './sandbox-only.ts';

/** The ISPB the sandbox's simulated payer banks use in end-to-end ids. */
const SANDBOX_ISPB = '99999999';

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
  const rawId = parseChargeId(pathParameters.id ?? '');
  // The charge gives the default amount; settlement itself reads it again inside its retry loop.
  const [charge, account] = await Promise.all([
    rawId === undefined ? undefined : getCharge(principal, rawId),
    getAccountCached(principal.accountId),
  ]);
  if (!charge || !rawId || !account) throw new NotFound('No such charge.');
  const now = new Date();
  const endToEndId = newEndToEndId(SANDBOX_ISPB, now);
  const result = await receivePix(
    principal,
    rawId,
    {
      endToEndId,
      amount: input.amount ?? charge.amount,
      receivedAt: now.toISOString(),
      ...(input.payer_document !== undefined && { payerDocument: input.payer_document }),
      ...(input.payer_name !== undefined && { payerName: input.payer_name }),
    },
    account.settings,
    sandboxProvider({ acquirerDown: false }),
  );
  if (!result) throw new NotFound('No such charge.');
  return {
    status: 200,
    body: {
      object: 'sandbox_payment',
      end_to_end_id: endToEndId,
      outcome: OUTCOME[result.outcome.kind],
      ...(result.outcome.kind === 'return' || result.outcome.kind === 'refund'
        ? { return_reason: result.outcome.reason }
        : {}),
      charge: serializeCharge(result.charge, now.getTime()),
    },
  };
};
