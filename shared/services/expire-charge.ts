/**
 * Expiry: a charge whose window closed unpaid becomes EXPIRED, one guarded transaction each
 * (the scheduler's run over the expiry queue, or the sandbox's "expire now"). A run that
 * overlaps another, or a Pix that lands first, makes the transition's condition fail: nothing
 * is written twice.
 */

import type { ChargeRecord } from '../domain/charges.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { planExpiry } from '../domain/settlement.ts';
import { awaitingPayment, txStatuses } from '../domain/transaction-status.ts';
import { errorFields, log } from '../log.ts';
import { dueEntries, getCharge } from '../store/charges.ts';
import { transactRetryingConflicts } from '../store/client.ts';
import { readPaymentIds } from '../store/payment-list.ts';
import { chargeTransitionItems } from './charge-transition.ts';
import { settleCobBeforeExpiry } from './settle-concluded-cob.ts';

const MAX_ATTEMPTS = 5;

/**
 * Expires the charge if its window has closed (or now, with `force`). The expired charge, or
 * `undefined` when it was not awaiting payment or its window is still open.
 */
export async function expireCharge(
  scope: MerchantScope,
  chargeId: string,
  now: Date,
  force = false,
): Promise<ChargeRecord | undefined> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const charge = await getCharge(scope, chargeId);
    const next = charge && planExpiry(charge, now, force);
    if (!charge || !next) return undefined;
    const result = await transactRetryingConflicts(
      chargeTransitionItems(charge, 'expire', next, now.toISOString()),
    );
    if (result.committed) return next;
  }
  return undefined;
}

/**
 * Scheduler: expires every charge on the expiry queue whose time has come. Returns how many. A
 * live charge's cob is read at the acquirer first: a Pix whose callback was lost is settled
 * instead (and the charge stays due while the acquirer cannot be asked).
 */
export async function expireDueCharges(now: Date): Promise<number> {
  let expired = 0;
  for (const entry of await dueEntries('EXPIRY', now)) {
    try {
      if (await expireDue(entry.scope, entry.id, now)) expired++;
    } catch (error) {
      // One charge's trouble (its acquirer, a settlement) must not stop every other account's
      // expiries: it stays due and is tried next run.
      log.error('charge expiry failed; retried next run', { chargeId: entry.id, ...errorFields(error) });
    }
  }
  return expired;
}

/**
 * The scheduler's expiry for one scope, at once: expires the scope's charges still stored
 * awaiting payment whose window has closed (no scheduler run has reached them yet). Returns how
 * many. A create at the account's live-charge limit runs it first: the limit counts a charge
 * until its expiry is recorded, and Part 1 ignores expired charges. Reads only the scope's
 * awaiting-status cells, as the payment list does for the same charges (at most its live ones).
 */
export async function expireOverdueCharges(scope: MerchantScope, now: Date): Promise<number> {
  const expiredAt = now.toISOString();
  const overdue = await Promise.all(
    txStatuses
      .filter(awaitingPayment)
      .map((cell) => readPaymentIds(scope, { cell, span: {}, expiredAt }, 'asc', Number.POSITIVE_INFINITY)),
  );
  let expired = 0;
  for (const id of overdue.flat()) if (await expireDue(scope, id, now)) expired++;
  return expired;
}

/** A due charge expired, unless a Pix whose callback was lost settled it at the acquirer. */
async function expireDue(scope: MerchantScope, chargeId: string, now: Date): Promise<boolean> {
  if (!(await settleCobBeforeExpiry(scope, chargeId, now))) return false;
  return (await expireCharge(scope, chargeId, now)) !== undefined;
}
