/**
 * An operator applies what waits for review on a MED case (`npm run admin -- med-review apply`):
 * - a decision of the MED channel: applied now, exactly as it would have been without review
 *   (`med-case-change.ts`; 400 if the case has since moved where the table no longer allows it);
 * - a reported amount other than the charge's: the case is held as if it had opened with it.
 *   ONE transaction: the case (its amount the contestable one, the review ended), the charge →
 *   DISPUTE, the hold journal, and `med_case.updated` with the amount now held.
 */

import { InvalidInput, NotFound } from '../domain/errors.ts';
import { medCaseEvents } from '../domain/events.ts';
import { heldOnReview, type MedCaseRecord } from '../domain/med-cases.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { canApply } from '../domain/transaction-status.ts';
import { getCharge } from '../store/charges.ts';
import { transactRetryingConflicts } from '../store/client.ts';
import { outboxItems } from '../store/events.ts';
import { getMedCase, replaceMedCaseItem } from '../store/med-cases.ts';
import { eventContext } from './charge-transition.ts';
import { changeMedCase, disputeItems } from './med-case-change.ts';

const MAX_ATTEMPTS = 8;

export async function applyMedReview(scope: MerchantScope, caseId: string): Promise<MedCaseRecord> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const medCase = await getMedCase(scope, caseId);
    if (!medCase) throw new NotFound('No such MED case.');
    const pending = medCase.pendingReview;
    if (!pending) throw new InvalidInput('Nothing of this MED case waits for review.', { param: 'id' });
    if (pending.kind === 'decision')
      return changeMedCase(scope, caseId, { step: pending.outcome, reviewed: true });

    const charge = await getCharge(scope, medCase.chargeId);
    if (!charge) throw new Error(`MED case ${caseId} names a missing charge ${medCase.chargeId}`);
    const amount = heldOnReview(pending.reportedAmount, charge);
    if (!canApply('openDispute', charge.status) || amount <= 0)
      throw new InvalidInput(
        `The charge is ${charge.status} with ${charge.refundedAmount ?? 0} refunded: nothing to hold. Reject the review instead.`,
        { param: 'id' },
      );
    const at = new Date().toISOString();
    const { pendingReview: _ended, ...rest } = medCase;
    const next: MedCaseRecord = { ...rest, amount, updatedAt: at };
    const dispute = disputeItems(charge, next, at);
    const updated = outboxItems(scope, medCaseEvents(['med_case.updated'], next, eventContext(at)));
    const result = await transactRetryingConflicts({
      medCase: replaceMedCaseItem(next, medCase.status, medCase),
      charge: dispute.charge,
      liveCounter: dispute.liveCounter,
      wallet: dispute.wallet,
      events: [...dispute.events, ...updated],
    });
    if (result.committed) return next;
    if (result.failed.includes('medCase') || result.failed.includes('charge')) continue;
    throw new Error(`MED review apply failed on ${result.failed.join(', ')}`);
  }
  throw new Error(`Could not apply the review of MED case ${caseId} after ${MAX_ATTEMPTS} attempts`);
}
