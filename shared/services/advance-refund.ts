/**
 * A refund after its creation (Part 2: PENDING → IN_PROGRESS → REFUNDED or FAILED, "advancing
 * asynchronously as the acquirer confirms"). Each step is one guarded transaction:
 * - `requestRefund`: asks the acquirer (a devolution of the original Pix, or a Pix-out) with an
 *   id derived from the refund, so asking again is harmless; then PENDING → IN_PROGRESS;
 * - `settleRefund`: REFUNDED (the reserve leaves through the acquirer; the refund that completes
 *   the amount makes the transaction REFUNDED) or FAILED (the reserve goes back to `available`);
 * - `advanceDueRefunds`: the scheduler's pass over refunds whose next check is due: a PENDING one
 *   is requested again (the create's own attempt failed or never ran), an IN_PROGRESS one is
 *   asked about at the acquirer.
 * Every advance writes `payment.refunded` with the refund in its `data`.
 */

import { config } from '../config.ts';
import type { ChargeRecord } from '../domain/charges.ts';
import { refundEvents } from '../domain/events.ts';
import { returnFailedJournal } from '../domain/ledger.ts';
import { publicChargeId } from '../domain/pix-ids.ts';
import {
  canApplyRefund,
  devolutionIdOf,
  FIRST_CHECK_AFTER_MS,
  isFinalRefund,
  isOverdueRefund,
  REFUND_TRANSITIONS,
  type RefundRecord,
  type RefundTrigger,
  refundCheckIntervalMs,
  refundFailedJournal,
  refundPaidJournal,
} from '../domain/refunds.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { nextStatus, TRANSITIONS } from '../domain/transaction-status.ts';
import { newJournalId } from '../ids.ts';
import { log } from '../log.ts';
import { countMetric } from '../metrics.ts';
import { providerFor } from '../providers/index.ts';
import {
  DevolutionRefusedError,
  type DevolutionState,
  type PixProvider,
  ProviderRejectedError,
  ProviderUnavailableError,
} from '../providers/provider.ts';
import { observability } from '../resources.ts';
import { getAccount } from '../store/accounts.ts';
import { dueEntries, getCharge } from '../store/charges.ts';
import { transact, transactRetryingConflicts } from '../store/client.ts';
import { outboxItems } from '../store/events.ts';
import { journalItems } from '../store/ledger.ts';
import { chargeRefundTotalsChange, getRefund, replaceRefundItem } from '../store/refunds.ts';
import { injectFault } from '../testing/faults.ts';
import { eventContext } from './charge-transition.ts';

const MAX_ATTEMPTS = 8;

const later = (at: string, ms: number) => new Date(Date.parse(at) + ms).toISOString();

const scopeOfRefund = (refund: RefundRecord): MerchantScope => ({
  accountId: refund.accountId,
  mode: refund.mode,
});

/** The acquirer of a refund's scope (`undefined` for a live account without one). */
async function providerOf(scope: MerchantScope): Promise<PixProvider | undefined> {
  const account = await getAccount(scope.accountId);
  return account && providerFor(scope.mode, account);
}

/** Asks the acquirer to send the money; idempotent per refund (API Pix devolution id). */
async function askAcquirer(provider: PixProvider, refund: RefundRecord): Promise<void> {
  if (refund.strategy === 'devolution') {
    if (refund.endToEndId === undefined)
      throw new ProviderRejectedError('No end-to-end id', 'no_end_to_end_id');
    await provider.requestDevolution({
      endToEndId: refund.endToEndId,
      returnId: devolutionIdOf(refund.id),
      amount: refund.amount,
    });
    return;
  }
  if (!provider.payouts || refund.destinationKey === undefined)
    throw new ProviderRejectedError('The acquirer offers no Pix-out', 'payout_not_supported');
  await provider.payouts.requestPayout({
    payoutId: devolutionIdOf(refund.id),
    amount: refund.amount,
    pixKey: refund.destinationKey,
  });
}

/** Where the money is, as the acquirer says. */
function askStatus(provider: PixProvider, refund: RefundRecord): Promise<DevolutionState> {
  if (refund.strategy === 'devolution' && refund.endToEndId !== undefined)
    return provider.getDevolution({ endToEndId: refund.endToEndId, returnId: devolutionIdOf(refund.id) });
  if (provider.payouts) return provider.payouts.getPayout(devolutionIdOf(refund.id));
  return Promise.resolve({ status: 'NAO_REALIZADO', reason: 'The acquirer offers no Pix-out' });
}

/** The events of a refund advance, from the charge as it stands (or as this advance leaves it). */
function advanceEvents(
  scope: MerchantScope,
  charge: ChargeRecord,
  before: ChargeRecord,
  refund: RefundRecord,
  at: string,
) {
  // An automatic return is not a refund the merchant asked for: the transition that made it
  // (payer lock → REFUNDED, a cancel, a late or second Pix) already said so. Its failure is news,
  // though, whatever the payment's status: the payer's money is still at the acquirer.
  if (refund.automatic && refund.status !== 'FAILED') return undefined;
  return outboxItems(scope, refundEvents(charge, before.status, refund, eventContext(at)));
}

/**
 * PENDING → IN_PROGRESS once the acquirer accepted the request. An unavailable acquirer leaves
 * the refund PENDING for the scheduler to ask again; a refusal fails it. Returns the refund as
 * it now stands.
 */
export async function requestRefund(
  refund: RefundRecord,
  options: {
    provider?: PixProvider;
    /** The charge as the caller just wrote it (saves reading it again; re-read on a lost race). */
    charge?: ChargeRecord;
    headers?: Record<string, string>;
    now?: Date;
  } = {},
): Promise<RefundRecord> {
  if (refund.status !== 'PENDING') return refund;
  const scope = scopeOfRefund(refund);
  const provider = options.provider ?? (await providerOf(scope));
  if (!provider) return settleRefund(refund, 'fail', 'No acquirer is configured for this account');
  try {
    await askAcquirer(provider, refund);
  } catch (error) {
    // A live acquirer's refused devolution (API Pix 4xx on PUT …/devolucao/{id}) fails it too.
    if (error instanceof ProviderRejectedError || error instanceof DevolutionRefusedError)
      return settleRefund(refund, 'fail', error.message);
    if (error instanceof ProviderUnavailableError) {
      log.info('refund request deferred: acquirer unavailable', { refundId: refund.id });
      return refund;
    }
    throw error;
  }
  injectFault('refund-after-provider', options.headers ?? {});
  return (await moveRefund(refund, 'request', undefined, options.now, options.charge)).refund;
}

/** → REFUNDED (through IN_PROGRESS) or FAILED, with the money moves and the charge's totals. */
export async function settleRefund(
  refund: RefundRecord,
  trigger: Extract<RefundTrigger, 'confirm' | 'fail'>,
  failureReason?: string,
  now = new Date(),
): Promise<RefundRecord> {
  return (await trySettleRefund(refund, trigger, failureReason, now)).refund;
}

/** `settleRefund`, also saying whether this call made the move (`false`: it was made, or ended otherwise, meanwhile). */
export async function trySettleRefund(
  refund: RefundRecord,
  trigger: Extract<RefundTrigger, 'confirm' | 'fail'>,
  failureReason?: string,
  now = new Date(),
): Promise<Moved> {
  if (trigger === 'confirm' && refund.status === 'PENDING') {
    // Part 2's order, PENDING → IN_PROGRESS → REFUNDED: a confirmation that arrives before the
    // request was recorded (the sandbox's confirm, a callback that beat it) records it first.
    const { refund: requested } = await moveRefund(refund, 'request', undefined, now);
    return moveRefund(requested, trigger, failureReason, new Date(Math.max(Date.now(), now.getTime() + 1)));
  }
  return moveRefund(refund, trigger, failureReason, now);
}

/** A refund after an advance, and whether this advance committed it. */
interface Moved {
  refund: RefundRecord;
  moved: boolean;
}

async function moveRefund(
  refund: RefundRecord,
  trigger: RefundTrigger,
  failureReason: string | undefined,
  now = new Date(),
  knownCharge?: ChargeRecord,
): Promise<Moved> {
  const scope = scopeOfRefund(refund);
  let current = refund;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (!canApplyRefund(trigger, current.status)) return { refund: current, moved: false };
    const charge = (attempt === 0 ? knownCharge : undefined) ?? (await getCharge(scope, current.chargeId));
    if (!charge) throw new Error(`Refund ${current.id} names a missing charge`);
    const at = now.toISOString();
    const next: RefundRecord = {
      ...current,
      status: REFUND_TRANSITIONS[trigger].to,
      updatedAt: at,
      ...(trigger === 'request' && { requestedAt: at }),
      ...(trigger !== 'request' && { completedAt: at }),
      ...(failureReason !== undefined && { failureReason }),
    };
    const plan = chargeSide(charge, next, trigger, at);
    const result = await transactRetryingConflicts({
      refund: replaceRefundItem(
        next,
        current.status,
        trigger === 'request' ? later(at, FIRST_CHECK_AFTER_MS) : undefined,
      ),
      charge: plan.chargeItem,
      journal:
        plan.journal && journalItems(scope, plan.journal, at, newJournalId(), { shard: charge.walletShard }),
      events: advanceEvents(scope, plan.after, charge, next, at),
    });
    if (result.committed) {
      log.info('refund advanced', { refundId: next.id, status: next.status });
      if (next.automatic && next.status === 'FAILED') {
        // Nobody else will act on it: the payer's money stays at the acquirer until ops return it
        // (counted here, where the fact is known: RefundMoneyAlarm).
        log.error('automatic return to the payer failed', {
          refundId: next.id,
          chargeId: next.chargeId,
          amount: next.amount,
          reason: next.failureReason,
        });
        countMetric(
          next.mode,
          { [observability.metrics.automaticReturnsFailed]: 1 },
          { accountIds: next.accountId },
        );
      }
      return { refund: next, moved: true };
    }
    // Another advance won (the sandbox's fail against the scheduler's confirm, say), or the
    // charge moved: read both again.
    const reread = await getRefund(scope, current.chargeId, current.id);
    if (!reread) throw new Error(`Refund ${current.id} vanished`);
    current = reread;
  }
  throw new Error(`Could not ${trigger} refund ${refund.id} after ${MAX_ATTEMPTS} attempts`);
}

/** What an advance does to the charge: its refund totals, its status when fully refunded, the journal. */
function chargeSide(charge: ChargeRecord, refund: RefundRecord, trigger: RefundTrigger, at: string) {
  const scope = scopeOfRefund(refund);
  if (trigger === 'request') return { after: charge, chargeItem: undefined, journal: undefined };
  // A Pix the service returned by itself never reached the merchant: the charge's totals and the
  // wallet are not the refund's business, and its journal was written when the Pix arrived; a
  // failed return puts the money back in the acquirer's account, owed to the payer.
  if (refund.automatic)
    return {
      after: charge,
      chargeItem: undefined,
      journal:
        trigger === 'fail' ? returnFailedJournal(refund.chargeId, refund.currency, refund.amount) : undefined,
    };
  if (trigger === 'fail') {
    return {
      after: { ...charge, refundedAmount: (charge.refundedAmount ?? 0) - refund.amount },
      chargeItem: chargeRefundTotalsChange(
        scope,
        charge.id,
        { refunded: -refund.amount, at },
        { from: [charge.status] },
      ),
      journal: refundFailedJournal(refund),
    };
  }
  const settledBefore = charge.refundedSettled ?? 0;
  // Only the confirmation that settles the last of the amount moves the status, so only it
  // needs the settled total to be exactly what it read; any other adds on condition that it
  // still leaves some of the amount unsettled, so concurrent confirmations of one charge do not
  // refuse each other (a stale read of the last one fails that condition and reads again).
  const last = settledBefore + refund.amount === charge.amount;
  const completes = last && (TRANSITIONS.refundInFull.from as readonly string[]).includes(charge.status);
  const status = completes ? nextStatus('refundInFull', charge.status) : charge.status;
  return {
    after: { ...charge, status, refundedSettled: settledBefore + refund.amount, updatedAt: at },
    chargeItem: chargeRefundTotalsChange(
      scope,
      charge.id,
      { settled: refund.amount, at, ...(completes && { status }) },
      last
        ? { from: [charge.status], settledBefore }
        : { from: [charge.status], settledBelow: charge.amount - refund.amount },
    ),
    journal: refundPaidJournal(refund),
  };
}

/** Asks the acquirer again later (still in flight), backing off. */
async function checkLater(refund: RefundRecord, now: Date): Promise<void> {
  const interval = refundCheckIntervalMs(refund, now);
  await transact({ refund: replaceRefundItem(refund, refund.status, later(now.toISOString(), interval)) });
}

/**
 * A refund the acquirer has not resolved long after it was made: an error in live mode (the
 * RefundMoneyAlarm watches the metric), a warning in test mode (a sandbox acquirer set down).
 */
function reportIfOverdue(refund: RefundRecord): void {
  if (!isOverdueRefund(refund, new Date(), config.refundOverdueSeconds * 1000)) return;
  (refund.mode === 'live' ? log.error : log.warn)('refund overdue: the acquirer has not resolved it', {
    refundId: refund.id,
    // The id the merchant and the API use (`ch_…`).
    chargeId: publicChargeId(refund.chargeId),
    accountId: refund.accountId,
    status: refund.status,
    amount: refund.amount,
    createdAt: refund.createdAt,
  });
  countMetric(refund.mode, { [observability.metrics.refundsOverdue]: 1 }, { accountIds: refund.accountId });
}

/** Scheduler: every refund whose next check is due. Returns how many it moved. */
export async function advanceDueRefunds(now: Date): Promise<number> {
  let moved = 0;
  for (const { scope, item } of await dueEntries('REFUND', now)) {
    const refund = await getRefund(scope, String(item.chargeId), String(item.id));
    if (!refund || isFinalRefund(refund.status)) continue;
    try {
      // Each advance at its own time, not the pass's: two refunds of a payment moved in one pass
      // would otherwise share `updatedAt` and their events' `occurredAt`, and a receiver could
      // not order them.
      const after = await advanceOne(refund, new Date());
      if (after.status !== refund.status) moved++;
      reportIfOverdue(after);
    } catch (error) {
      reportIfOverdue(refund);
      // One refund's trouble (credentials refused, say) must not stop the others, nor be asked
      // again every run: it is checked later, backing off as an unanswered one is.
      log.error('refund advance failed', { refundId: refund.id, error: String(error) });
      await checkLater(refund, new Date()).catch((later: unknown) =>
        log.error('refund check not postponed', { refundId: refund.id, error: String(later) }),
      );
    }
  }
  return moved;
}

async function advanceOne(refund: RefundRecord, now: Date): Promise<RefundRecord> {
  if (refund.status === 'PENDING') {
    const after = await requestRefund(refund, { now });
    if (after.status === 'PENDING') await checkLater(after, now);
    return after;
  }
  const provider = await providerOf(scopeOfRefund(refund));
  if (!provider) return settleRefund(refund, 'fail', 'No acquirer is configured for this account', now);
  let state: DevolutionState;
  try {
    state = await askStatus(provider, refund);
  } catch (error) {
    if (!(error instanceof ProviderUnavailableError)) throw error;
    await checkLater(refund, now);
    return refund;
  }
  if (state.status === 'DEVOLVIDO') return settleRefund(refund, 'confirm', undefined, now);
  if (state.status === 'NAO_REALIZADO')
    return settleRefund(refund, 'fail', state.reason ?? 'The acquirer could not return the money', now);
  await checkLater(refund, now);
  return refund;
}
