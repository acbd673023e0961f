/**
 * `POST /v1/sandbox/refunds/{refund_id}/confirm` and `…/fail`: the sandbox acquirer settles a
 * test refund now, as a live acquirer's answer would (`settleRefund`, advance-refund.ts). A
 * refund already final, or made final by a race meanwhile, is 400 `refund_final`.
 */

import { InvalidInput, NotFound } from '../domain/errors.ts';
import { isRefundId, type RefundRecord } from '../domain/refunds.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { findRefund } from '../store/refunds.ts';
import { trySettleRefund } from './advance-refund.ts';

const alreadyFinal = (refund: RefundRecord) =>
  new InvalidInput(`This refund is already ${refund.status}.`, { code: 'refund_final', param: 'refund_id' });

export async function settleSandboxRefund(
  scope: MerchantScope,
  refundId: string | undefined,
  outcome: 'confirm' | 'fail',
): Promise<RefundRecord> {
  const refund = isRefundId(refundId) ? await findRefund(scope, refundId) : undefined;
  if (!refund) throw new NotFound('No such refund.');
  const { refund: after, moved } =
    outcome === 'fail'
      ? await trySettleRefund(refund, 'fail', 'Sandbox: failed on request')
      : await trySettleRefund(refund, 'confirm');
  // Already final, or made final meanwhile by another call (even with the same outcome).
  if (!moved) throw alreadyFinal(after);
  return after;
}
