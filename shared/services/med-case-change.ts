/**
 * What every change of a MED case writes, whatever caused it (the merchant's appeal or accept,
 * the sandbox's decisions, an evidence request): the case in its next state (only if unchanged
 * since it was read), the charge's `metadata.med` (and, when the money's destination becomes
 * final, its transition: won → PAID, lost → CHARGEBACK), the journal that moves the held amount
 * (back to `available`, or out of the merchant's books) and the MED events, in ONE transaction.
 * Not a use case itself: the use cases (`appeal-med-case.ts`, …) say which change.
 */

import type { ChargeRecord } from '../domain/charges.ts';
import { InvalidInput, NotFound } from '../domain/errors.ts';
import { medCaseEvents } from '../domain/events.ts';
import { medLossJournal, medReleaseJournal } from '../domain/ledger.ts';
import {
  applyMedStep,
  canApplyMedStep,
  chargeTriggerOf,
  isUndecided,
  type MedCaseRecord,
  type MedStep,
  medEventTypesOf,
  medMetadataOf,
} from '../domain/med-cases.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { nextStatus } from '../domain/transaction-status.ts';
import { newJournalId } from '../ids.ts';
import { getCharge, replaceChargeItem } from '../store/charges.ts';
import { transactRetryingConflicts } from '../store/client.ts';
import { outboxItems } from '../store/events.ts';
import { journalItems } from '../store/ledger.ts';
import { getMedCase, replaceMedCaseItem } from '../store/med-cases.ts';
import { chargeTransitionItems, eventContext } from './charge-transition.ts';

const MAX_ATTEMPTS = 8;

export type MedCaseChange = { step: MedStep; appealReason?: string } | { step: 'requestEvidence' };

/** 400 when the case's status does not allow the change (Part 2: appeal/accept only from open). */
function assertAllowed(medCase: MedCaseRecord, change: MedCaseChange): void {
  const allowed =
    change.step === 'requestEvidence'
      ? isUndecided(medCase.status)
      : canApplyMedStep(change.step, medCase.status);
  if (!allowed)
    throw new InvalidInput(`This MED case is ${medCase.status}: ${change.step} is not allowed.`, {
      param: 'status',
    });
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
    const charge = await getCharge(scope, medCase.chargeId);
    if (!charge) throw new Error(`MED case ${caseId} names a missing charge ${medCase.chargeId}`);
    const at = new Date().toISOString();
    const next: MedCaseRecord =
      change.step === 'requestEvidence'
        ? { ...medCase, evidenceRequestedAt: at, updatedAt: at }
        : applyMedStep(medCase, change.step, at, 'appealReason' in change ? change.appealReason : undefined);
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
      medCase: replaceMedCaseItem(next, medCase.status, medCase.updatedAt),
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
