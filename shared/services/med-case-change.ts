/**
 * What every change of a MED case writes, whatever caused it (the merchant's appeal or accept,
 * the sandbox's decisions, an evidence request): the case in its next state (only if unchanged
 * since it was read), the charge's `metadata.med` (and, when the money's destination becomes
 * final, its transition: won → PAID, lost → CHARGEBACK), the journal that moves the held amount
 * (back to `available`, or out of the merchant's books) and the MED events, in ONE transaction.
 * Not a use case itself: the use cases (`appeal-med-case.ts`, …) say which change. Also what
 * holding a case's amount writes (`disputeItems`), for the opening and the operators' review.
 */

import type { ChargeRecord } from '../domain/charges.ts';
import { InvalidInput, NotFound } from '../domain/errors.ts';
import { medCaseEvents } from '../domain/events.ts';
import { medHoldJournal, medLossJournal, medReleaseJournal } from '../domain/ledger.ts';
import {
  applyMedStep,
  canApplyMedStep,
  chargeTriggerOf,
  isUndecided,
  MED_CASE_UNDER_REVIEW,
  MED_STEPS,
  type MedCaseRecord,
  type MedDecision,
  type MedStep,
  medDecisions,
  medEventTypesOf,
  medMetadataOf,
} from '../domain/med-cases.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { canApply, nextStatus } from '../domain/transaction-status.ts';
import { newJournalId } from '../ids.ts';
import { type ChargeWriteGuards, getCharge, replaceChargeItem } from '../store/charges.ts';
import { transactRetryingConflicts } from '../store/client.ts';
import { outboxItems } from '../store/events.ts';
import { journalItems } from '../store/ledger.ts';
import { getMedCase, replaceMedCaseItem } from '../store/med-cases.ts';
import { chargeTransitionItems, eventContext } from './charge-transition.ts';

/**
 * What holding a case's amount writes: the charge → DISPUTE with the case's `metadata.med` (and
 * the transition's events), and the hold journal of `medCase.amount`.
 */
export function disputeItems(
  charge: ChargeRecord,
  medCase: MedCaseRecord,
  at: string,
  guards: ChargeWriteGuards = {},
) {
  const scope: MerchantScope = { accountId: medCase.accountId, mode: medCase.mode };
  const after = {
    ...charge,
    status: nextStatus('openDispute', charge.status),
    med: medMetadataOf(medCase, charge.endToEndId, at),
    disputedAmount: medCase.amount,
    updatedAt: at,
  };
  const transition = chargeTransitionItems(charge, 'openDispute', after, at, guards);
  return {
    ...transition,
    wallet: journalItems(
      scope,
      medHoldJournal(charge.id, medCase.currency, medCase.amount),
      at,
      newJournalId(),
      // May take `available` below zero on this shard: only the sum is the merchant's balance.
      { shard: charge.walletShard },
    ),
  };
}

const MAX_ATTEMPTS = 8;

/**
 * A step of the case table (`reviewed`: an operator applies a decision that waited for review),
 * or an evidence request.
 */
type MedCaseChange =
  | { step: MedStep; appealReason?: string; reviewed?: boolean }
  | { step: 'requestEvidence' };

const isDecision = (step: MedCaseChange['step']): step is MedDecision =>
  (medDecisions as readonly string[]).includes(step);

/** An operator is applying a decision that waited for review. */
const isReviewed = (change: MedCaseChange): boolean => 'reviewed' in change && change.reviewed === true;

/** 400 when the case's status does not allow the change (Part 2: appeal/accept only from open). */
function assertAllowed(medCase: MedCaseRecord, change: MedCaseChange): void {
  // An operator applies the decision that waits, as it is now: one a reject dropped, or another
  // that replaced it, since the operator's command read the case is not this one.
  if (isReviewed(change)) {
    const waiting = medCase.pendingReview;
    if (waiting?.kind !== 'decision' || waiting.outcome !== change.step)
      throw new InvalidInput('Nothing of this MED case waits for review.', { param: 'id' });
  }
  const allowed =
    change.step === 'requestEvidence'
      ? isUndecided(medCase.status)
      : canApplyMedStep(change.step, medCase.status);
  if (!allowed)
    throw new InvalidInput(`This MED case is ${medCase.status}: ${change.step} is not allowed.`, {
      param: 'id',
    });
  // A reported amount under review holds nothing yet: no step may decide where that money goes.
  const decides = change.step !== 'requestEvidence' && MED_STEPS[change.step].outcome !== null;
  if (medCase.pendingReview?.kind === 'amount_mismatch' && decides)
    throw new InvalidInput('This MED case waits for an operations review of its amount.', {
      param: 'id',
      code: MED_CASE_UNDER_REVIEW,
    });
  if (isDecision(change.step) && medCase.pendingReview?.kind === 'decision' && !isReviewed(change))
    throw new InvalidInput('A decision on this MED case already waits for an operations review.', {
      param: 'outcome',
      code: MED_CASE_UNDER_REVIEW,
    });
}

/** A decision of the MED channel on a case opened with `review` waits for an operator. */
const waitsForReview = (medCase: MedCaseRecord, change: MedCaseChange): change is { step: MedDecision } =>
  isDecision(change.step) && medCase.review === true && !isReviewed(change);

/** The case after the change: a step that decides the case ends any review, and so does applying it. */
function nextCase(medCase: MedCaseRecord, change: MedCaseChange, at: string): MedCaseRecord {
  if (change.step === 'requestEvidence') return { ...medCase, evidenceRequestedAt: at, updatedAt: at };
  const { pendingReview, ...next } = applyMedStep(medCase, change.step, at, change.appealReason);
  const keepsReview = pendingReview && !change.reviewed && next.moneyOutcome === null;
  return keepsReview ? { ...next, pendingReview } : next;
}

export async function changeMedCase(
  scope: MerchantScope,
  caseId: string,
  change: MedCaseChange,
): Promise<MedCaseRecord> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const medCase = await getMedCase(scope, caseId);
    if (!medCase) throw new NotFound('No such MED case.');
    assertAllowed(medCase, change);
    const at = new Date().toISOString();
    if (waitsForReview(medCase, change)) {
      // Same status and money, no event, until an operator applies it (the case's `version`
      // moves, so a change read before this one decides again).
      const waiting = {
        ...medCase,
        pendingReview: { kind: 'decision' as const, outcome: change.step, since: at },
        updatedAt: at,
      };
      const result = await transactRetryingConflicts({
        medCase: replaceMedCaseItem(waiting, medCase.status, medCase),
      });
      if (result.committed) return waiting;
      continue;
    }
    const charge = await getCharge(scope, medCase.chargeId);
    if (!charge) throw new Error(`MED case ${caseId} names a missing charge ${medCase.chargeId}`);
    const next = nextCase(medCase, change, at);
    const step = change.step === 'requestEvidence' ? undefined : change.step;
    const med = medMetadataOf(next, charge.endToEndId, at, step);
    const outcome = next.moneyOutcome;
    const events = outboxItems(scope, medCaseEvents(medEventTypesOf(change.step), next, eventContext(at)));

    let chargeItems:
      | ReturnType<typeof chargeTransitionItems>
      | { charge: ReturnType<typeof replaceChargeItem> };
    let wallet: ReturnType<typeof journalItems> | undefined;
    if (outcome !== null && medCase.moneyOutcome === null) {
      const trigger = chargeTriggerOf(outcome);
      // The charge already left DISPUTE: another decision committed between the two reads, and
      // a fresh read of the case refuses this one.
      if (!canApply(trigger, charge.status)) continue;
      const after: ChargeRecord = {
        ...charge,
        status: nextStatus(trigger, charge.status),
        med,
        updatedAt: at,
      };
      chargeItems = chargeTransitionItems(charge, trigger, after, at);
      const journal =
        outcome === 'refunded_to_merchant'
          ? medReleaseJournal(charge.id, medCase.currency, medCase.amount)
          : medLossJournal(charge.id, medCase.currency, medCase.amount);
      wallet = journalItems(scope, journal, at, newJournalId(), { shard: charge.walletShard });
    } else {
      chargeItems = { charge: replaceChargeItem({ ...charge, med, updatedAt: at }, [charge.status]) };
    }
    const result = await transactRetryingConflicts({
      medCase: replaceMedCaseItem(next, medCase.status, medCase),
      ...chargeItems,
      events: [...('events' in chargeItems ? chargeItems.events : []), ...events],
      wallet,
    });
    if (result.committed) return next;
    // The case or its charge moved since they were read: decide again on a fresh read.
    if (result.failed.includes('medCase') || result.failed.includes('charge')) continue;
    throw new Error(`MED case change failed on ${result.failed.join(', ')}`);
  }
  throw new Error(`Could not change MED case ${caseId} after ${MAX_ATTEMPTS} attempts`);
}
