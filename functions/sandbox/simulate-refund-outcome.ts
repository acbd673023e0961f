import { InvalidInput, NotFound } from '#shared/domain/errors.ts';
import { isFinalRefund, isRefundId, serializeRefund } from '#shared/domain/refunds.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { settleRefund } from '#shared/services/advance-refund.ts';
import { findRefund } from '#shared/store/refunds.ts';
import { requireTestMode } from './sandbox-only.ts';

/** The refund a sandbox route names, if it can still move. */
async function openRefund(principal: KeyPrincipal, refundId: string | undefined) {
  requireTestMode(principal);
  const refund = isRefundId(refundId) ? await findRefund(principal, refundId) : undefined;
  if (!refund) throw new NotFound('No such refund.');
  if (isFinalRefund(refund.status))
    throw new InvalidInput(`This refund is already ${refund.status}.`, {
      code: 'refund_final',
      param: 'refund_id',
    });
  return refund;
}

/** POST /v1/sandbox/refunds/{refund_id}/fail: the acquirer reports the refund cannot be done. */
export const simulateRefundFailure: RouteHandler<KeyPrincipal> = async ({ principal, pathParameters }) => {
  const refund = await openRefund(principal, pathParameters.refund_id);
  const after = await settleRefund(refund, 'fail', 'Sandbox: failed on request');
  if (after.status !== 'FAILED')
    throw new InvalidInput(`This refund is already ${after.status}.`, {
      code: 'refund_final',
      param: 'refund_id',
    });
  return { status: 200, body: serializeRefund(after) };
};

/** POST /v1/sandbox/refunds/{refund_id}/confirm: the acquirer confirms the money left, now. */
export const simulateRefundConfirmation: RouteHandler<KeyPrincipal> = async ({
  principal,
  pathParameters,
}) => {
  const refund = await openRefund(principal, pathParameters.refund_id);
  const after = await settleRefund(refund, 'confirm');
  if (after.status !== 'REFUNDED')
    throw new InvalidInput(`This refund is already ${after.status}.`, {
      code: 'refund_final',
      param: 'refund_id',
    });
  return { status: 200, body: serializeRefund(after) };
};
