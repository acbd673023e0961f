/**
 * `POST /v1/payments/{id}/cancel`: a WAITING_PAYMENT, PENDING or PROCESSING transaction becomes
 * CANCELLED (`planCancel` decides, and refuses anything else with `payment_not_cancellable`).
 *
 * Order: the acquirer first, then the commit.
 * 1. `PATCH /cob/{txid}` withdraws the QR at the acquirer. It is idempotent, so it may be sent
 *    again by a retry or a re-planned attempt. Unavailable → 503 and nothing was changed here:
 *    the charge still awaits payment, exactly as before, and the merchant may retry.
 * 2. ONE transaction, guarded by the status the cancel was planned from (and, while awaiting
 *    payment, by the window still being open), writes the CANCELLED charge, the live-charge
 *    counter and the events (`chargeTransitionItems`).
 * Every outcome leaves money and state right:
 * - the acquirer down: nothing anywhere changed (503);
 * - a Pix wins the race (committed between our read and our commit): our guard fails, we read
 *   again and answer by the new state, PAID → 400 `payment_not_cancellable` (refund it); the
 *   Pix is credited once and the withdrawal at the acquirer came too late to matter;
 * - the cancel wins: a Pix arriving afterwards finds the charge not payable and is returned to
 *   the payer automatically by `receivePix` (an automatic devolution refund), never credited;
 * - a crash between the two steps: the QR is withdrawn but the charge still reads
 *   WAITING_PAYMENT; no Pix can settle a withdrawn cob, a retried cancel completes it (the PATCH
 *   again is harmless), and otherwise it expires at its time.
 * - the cob paid at the acquirer before its Pix reached us (the PATCH is refused): its Pix are
 *   settled as reconciliation does, and the cancel answers by the new state (`payment_not_cancellable`).
 * The other order (commit, then the acquirer) would answer 503 after the status had changed,
 * or leave a live QR behind a CANCELLED charge.
 *
 * A PROCESSING transaction (a Pix held for review: the payer lock was set and the bank did not
 * report the payer) was paid already: there is no QR to withdraw, and the held money goes back to
 * the payer in the same transaction (its journal and an automatic devolution refund record);
 * the devolution is requested from the acquirer after the commit, as `receivePix` does.
 */

import type { ChargeRecord } from '../domain/charges.ts';
import { NotFound, ProviderUnavailable, Unprocessable } from '../domain/errors.ts';
import { automaticReturn, type RefundRecord } from '../domain/refunds.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { planCancel } from '../domain/settlement.ts';
import { newJournalId, newRefundId } from '../ids.ts';
import { errorFields, log } from '../log.ts';
import { providerFor } from '../providers/index.ts';
import {
  acquirerNotServing,
  acquirerRetryAfterSeconds,
  type PixProvider,
  ProviderRefusal,
  ProviderRejectedError,
  ProviderUnavailableError,
} from '../providers/provider.ts';
import { getAccount } from '../store/accounts.ts';
import { getCharge } from '../store/charges.ts';
import { transactRetryingConflicts } from '../store/client.ts';
import { journalItems } from '../store/ledger.ts';
import { newRefundItems } from '../store/refunds.ts';
import { requestRefund } from './advance-refund.ts';
import { chargeTransitionItems } from './charge-transition.ts';
import { settleConcludedCob } from './settle-concluded-cob.ts';

const MAX_ATTEMPTS = 5;

/** The scope's acquirer (read fresh: the sandbox's up/down switch must apply at once). */
async function acquirerOf(scope: MerchantScope): Promise<PixProvider> {
  const account = await getAccount(scope.accountId);
  const provider = account && providerFor(scope.mode, account);
  if (!provider) throw new Unprocessable('No Pix provider is configured for this account in this mode.');
  return provider;
}

/** Not "nothing changed": a withdrawal whose answer timed out may have been done at the acquirer. */
const UNAVAILABLE =
  'The acquirer did not confirm; the payment is unchanged here, though its QR code may already be withdrawn. Retry the cancel later.';

/**
 * `PATCH /cob/{txid}` (idempotent): unavailable → 503, nothing changed. `false` when the acquirer
 * refused it (a cob no longer ATIVA is refused; the caller reads which it is).
 */
async function withdrawCob(provider: PixProvider, txid: string): Promise<boolean> {
  try {
    await provider.cancelCob(txid);
    return true;
  } catch (error) {
    if (acquirerNotServing(error))
      throw new ProviderUnavailable(UNAVAILABLE, error, acquirerRetryAfterSeconds(error));
    if (error instanceof ProviderRejectedError) return false;
    throw error;
  }
}

/** Cancels the payment; the cancelled charge. Throws `NotFound` or `payment_not_cancellable`. */
export async function cancelPayment(
  scope: MerchantScope,
  chargeId: string,
  clock: () => Date = () => new Date(),
): Promise<ChargeRecord> {
  let provider: PixProvider | undefined;
  const acquirer = async () => {
    provider ??= await acquirerOf(scope);
    return provider;
  };
  let withdrawn: string | undefined;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const charge = await getCharge(scope, chargeId);
    if (!charge) throw new NotFound('No such payment.');
    const now = clock();
    const plan = planCancel(charge, now);
    if (plan.withdrawTxid !== undefined && plan.withdrawTxid !== withdrawn) {
      const removed = await withdrawCob(await acquirer(), plan.withdrawTxid);
      withdrawn = plan.withdrawTxid;
      if (!removed) {
        // Paid at the acquirer before its Pix reached us: settle them as reconciliation does,
        // then read again (PAID → payment_not_cancellable). A cob removed by the PSP has no QR
        // left; one still ATIVA would stay payable behind a CANCELLED charge: nothing is changed.
        const status = await settleConcludedCob(scope, charge).catch((error: unknown) => {
          // Unreachable, or refusing to show the cob (credentials, a cob it no longer knows):
          // whether it was paid is unknown, so nothing is changed.
          if (error instanceof ProviderUnavailableError || error instanceof ProviderRefusal)
            throw new ProviderUnavailable(UNAVAILABLE);
          throw error;
        });
        if (status === 'ATIVA')
          throw new ProviderUnavailable(
            'The acquirer refused to withdraw the QR code, which is still payable; nothing was changed. Retry the cancel later.',
          );
        continue;
      }
    }
    // The acquirer that will return a held Pix, known before anything is committed.
    if (plan.heldReturn) await acquirer();
    const at = now.toISOString();
    const returned =
      plan.heldReturn && automaticReturn(charge, plan.heldReturn.devolution, newRefundId(now.getTime()), at);
    const result = await transactRetryingConflicts({
      ...chargeTransitionItems(charge, 'cancel', plan.next, at, {
        ...(plan.withdrawTxid !== undefined && { unexpiredAt: at }),
      }),
      journal:
        plan.heldReturn &&
        journalItems(scope, plan.heldReturn.journal, at, newJournalId(), { shard: charge.walletShard }),
      devolution: returned && newRefundItems(returned, at),
    });
    if (result.committed) {
      if (returned) await requestReturn(returned, await acquirer());
      return plan.next;
    }
    // The charge moved since it was read (a Pix, an expiry, another cancel): read it again; a
    // status no longer cancellable is refused by `planCancel`.
    log.info('cancel lost a race, reading the payment again', { chargeId, failed: result.failed });
  }
  throw new Error(`Could not cancel payment ${chargeId} after ${MAX_ATTEMPTS} attempts`);
}

/**
 * Asks the acquirer to return a held Pix (idempotent per refund). The cancel is committed
 * already: a failure here leaves the refund PENDING on the refund queue for the scheduler to
 * request again; the merchant's answer stays the cancelled payment.
 */
async function requestReturn(refund: RefundRecord, provider: PixProvider) {
  try {
    await requestRefund(refund, { provider });
  } catch (error) {
    log.warn('cancel: devolution request failed, left to the refund queue', {
      refundId: refund.id,
      ...errorFields(error),
    });
  }
}
