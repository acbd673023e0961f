/**
 * A Pix arrives for a charge (the acquirer's notice, or the sandbox's): the domain plans the
 * outcome (credit, hold for review, refund to a mismatched payer, or return without touching the
 * charge) and this commits it in ONE transaction with the receipt that makes the Pix count once
 * (per end-to-end id), its ledger journal and, when held, its tranche. A lost race (the charge
 * moved) re-reads and plans again: a Pix racing an expiry is credited or returned, never both.
 */

import type { AccountSettings } from '../domain/account-settings.ts';
import type { ChargeRecord } from '../domain/charges.ts';
import { automaticReturn } from '../domain/refunds.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { type IncomingPix, planSettlement, type SettlementOutcome } from '../domain/settlement.ts';
import { newJournalId, newRefundId } from '../ids.ts';
import type { PixProvider } from '../providers/provider.ts';
import { getCharge, pixReceiptItem, trancheItem } from '../store/charges.ts';
import { transactRetryingConflicts } from '../store/client.ts';
import { journalItems } from '../store/ledger.ts';
import { newRefundItems } from '../store/refunds.ts';
import { requestRefund } from './advance-refund.ts';
import { chargeTransitionItems } from './charge-transition.ts';

const MAX_ATTEMPTS = 5;

export interface PixResult {
  outcome: SettlementOutcome;
  charge: ChargeRecord;
  /** `true` when this end-to-end id had already been processed (nothing changed). */
  duplicate: boolean;
}

const outcomeLabel = (outcome: SettlementOutcome): string =>
  outcome.kind === 'credit' || outcome.kind === 'hold' ? outcome.kind : `${outcome.kind}:${outcome.reason}`;

/**
 * Settles `pix` for the charge; `undefined` if the charge does not exist. Idempotent per
 * end-to-end id. `incoming` may be a function giving the Pix once the charge is read, at each attempt:
 * a Pix whose time the service itself stamps (the sandbox's) arrives when it is settled, so one
 * settled after a transition that raced it (an expiry) arrived after that transition, never
 * before the time the charge records for it.
 */
export async function receivePix(
  scope: MerchantScope,
  chargeId: string,
  incoming: IncomingPix | (() => IncomingPix),
  settings: AccountSettings,
  provider: PixProvider,
  /** The charge as the caller just read it: the first attempt settles against it (the commit's conditions catch a change since). */
  knownCharge?: ChargeRecord,
): Promise<PixResult | undefined> {
  const pixNow = typeof incoming === 'function' ? incoming : () => incoming;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const charge = (attempt === 0 ? knownCharge : undefined) ?? (await getCharge(scope, chargeId));
    if (!charge) return undefined;
    const pix = pixNow();
    const plan = planSettlement(charge, pix, settings);
    const at = pix.receivedAt;
    // Made now, whatever the Pix's time: a Pix settled late is not a refund overdue at once.
    const returned =
      plan.devolution &&
      automaticReturn(charge, plan.devolution, newRefundId(Date.parse(at)), at, new Date().toISOString());
    const result = await transactRetryingConflicts({
      receipt: pixReceiptItem(scope, pix, chargeId, outcomeLabel(plan.outcome)),
      ...(plan.transition &&
        chargeTransitionItems(charge, plan.transition.trigger, plan.transition.next, at, {
          unexpiredAt: at,
        })),
      journal: journalItems(scope, plan.journal, at, newJournalId(), { shard: charge.walletShard }),
      tranche: plan.tranche && trancheItem(scope, chargeId, plan.tranche, charge.walletShard),
      devolution: returned && newRefundItems(returned, at),
    });
    if (result.committed) {
      if (returned) await requestRefund(returned, { provider });
      return { outcome: plan.outcome, charge: plan.transition?.next ?? charge, duplicate: false };
    }
    if (result.failed.includes('receipt'))
      return { outcome: plan.outcome, charge: (await getCharge(scope, chargeId)) ?? charge, duplicate: true };
    // The charge moved since it was read: read it again and plan again.
  }
  throw new Error(`Could not settle Pix ${pixNow().endToEndId} after ${MAX_ATTEMPTS} attempts`);
}
