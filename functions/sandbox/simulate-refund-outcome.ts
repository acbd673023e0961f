import { serializeRefund } from '#shared/domain/refunds.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { settleSandboxRefund } from '#shared/services/settle-sandbox-refund.ts';
import { requireTestMode } from './sandbox-only.ts';

const settle =
  (outcome: 'confirm' | 'fail'): RouteHandler<KeyPrincipal> =>
  async ({ principal, pathParameters }) => {
    requireTestMode(principal);
    const refund = await settleSandboxRefund(principal, pathParameters.refund_id, outcome);
    return { status: 200, body: serializeRefund(refund) };
  };

/** POST /v1/sandbox/refunds/{refund_id}/fail: the acquirer reports the refund cannot be done. */
export const simulateRefundFailure = settle('fail');

/** POST /v1/sandbox/refunds/{refund_id}/confirm: the acquirer confirms the money left, now. */
export const simulateRefundConfirmation = settle('confirm');
