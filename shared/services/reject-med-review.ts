/**
 * An operator rejects what waits for review on a MED case (`npm run admin -- med-review reject`):
 * - a decision of the MED channel: dropped; the case keeps its status and may be decided again;
 * - a reported amount other than the charge's: the report is dismissed. Nothing was ever held,
 *   so the money stays with the merchant: the case closes `refunded_to_merchant` (the charge keeps
 *   its status, its `metadata.med` closes), with `med_case.updated` and `med.resolved`.
 */

import { InvalidInput, NotFound } from '../domain/errors.ts';
import { medCaseEvents } from '../domain/events.ts';
import { type MedCaseRecord, medMetadataOf } from '../domain/med-cases.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { getCharge, replaceChargeItem } from '../store/charges.ts';
import { type NamedItems, transactRetryingConflicts } from '../store/client.ts';
import { outboxItems } from '../store/events.ts';
import { getMedCase, replaceMedCaseItem } from '../store/med-cases.ts';
import { eventContext } from './charge-transition.ts';

const MAX_ATTEMPTS = 8;

export async function rejectMedReview(scope: MerchantScope, caseId: string): Promise<MedCaseRecord> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const medCase = await getMedCase(scope, caseId);
    if (!medCase) throw new NotFound('No such MED case.');
    const { pendingReview, ...rest } = medCase;
    if (!pendingReview) throw new InvalidInput('Nothing of this MED case waits for review.', { param: 'id' });
    const at = new Date().toISOString();
    let next: MedCaseRecord = { ...rest, updatedAt: at };
    let items: NamedItems<'charge' | 'events'> = {};
    if (pendingReview.kind === 'amount_mismatch') {
      next = { ...next, status: 'closed', moneyOutcome: 'refunded_to_merchant', closedAt: at };
      const charge = await getCharge(scope, medCase.chargeId);
      if (!charge) throw new Error(`MED case ${caseId} names a missing charge ${medCase.chargeId}`);
      const med = medMetadataOf(next, charge.endToEndId, at);
      items = {
        charge: replaceChargeItem({ ...charge, med, updatedAt: at }, [charge.status]),
        events: outboxItems(
          scope,
          medCaseEvents(['med_case.updated', 'med.resolved'], next, eventContext(at)),
        ),
      };
    }
    const result = await transactRetryingConflicts({
      medCase: replaceMedCaseItem(next, medCase.status, medCase),
      ...items,
    });
    if (result.committed) return next;
    if (result.failed.includes('medCase') || result.failed.includes('charge')) continue;
    throw new Error(`MED review reject failed on ${result.failed.join(', ')}`);
  }
  throw new Error(`Could not reject the review of MED case ${caseId} after ${MAX_ATTEMPTS} attempts`);
}
