/**
 * A MED case opens against a settled charge (today the sandbox's
 * `POST /v1/sandbox/charges/{id}/med`; the acquirer's MED channel in live mode). ONE transaction:
 * the case (open), the charge → DISPUTE (`openDispute`: public `disputed`, refunds and cancels
 * refused) with its `metadata.med`, the hold journal (the contested amount from `available`,
 * which may go negative, to `retained`) and `med_case.created`. No `charge.*` event (Part 2).
 *
 * The case holds the charge's amount less its refunds paid, and waits while one is in flight. A reported amount other
 * than the charge's (Part 2, `amountMismatch`) opens the case without
 * any of that: nothing held, the charge keeps its status (only its `metadata.med` says so), and
 * the case waits for operations (`apply-med-review.ts`).
 */

import { NotFound } from '../domain/errors.ts';
import { medCaseEvents } from '../domain/events.ts';
import {
  disputableAmount,
  type MedCaseRecord,
  medEventTypesOf,
  medMetadataOf,
  type OpenMedCaseBody,
} from '../domain/med-cases.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { newMedCaseId } from '../ids.ts';
import { getCharge, replaceChargeItem } from '../store/charges.ts';
import { type NamedItems, type TransactItem, transactRetryingConflicts } from '../store/client.ts';
import { outboxItems } from '../store/events.ts';
import { newMedCaseItem } from '../store/med-cases.ts';
import { eventContext } from './charge-transition.ts';
import { disputeItems } from './med-case-change.ts';

const MAX_ATTEMPTS = 8;

export async function openMedCase(request: {
  scope: MerchantScope;
  chargeId: string;
  body: OpenMedCaseBody;
  /** A record committed in the case's own transaction (the acquirer's report it answers). */
  record?: (medCase: MedCaseRecord) => TransactItem;
}): Promise<MedCaseRecord> {
  const scope: MerchantScope = { accountId: request.scope.accountId, mode: request.scope.mode };
  const { chargeId, body } = request;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const charge = await getCharge(scope, chargeId);
    if (!charge) throw new NotFound('No such charge.');
    const contestable = disputableAmount(charge);
    const now = Date.now();
    const at = new Date(now).toISOString();
    // Part 2: a mismatch is a reported amount other than the charge's.
    const mismatch = body.amount !== undefined && body.amount !== charge.amount;
    const medCase: MedCaseRecord = {
      id: newMedCaseId(now),
      accountId: scope.accountId,
      mode: scope.mode,
      type: body.type ?? 'med',
      status: 'open',
      // After refunds a case holds only what the merchant still has of the charge.
      amount: mismatch ? (body.amount as number) : contestable,
      currency: charge.currency,
      chargeId,
      reason: body.reason ?? null,
      method: body.method ?? null,
      payerName: body.payer_name ?? null,
      payerDocument: body.payer_document ?? null,
      responseDeadline: body.response_deadline ?? null,
      evidenceRequestedAt: null,
      appealReason: null,
      appealedAt: null,
      moneyOutcome: null,
      openedAt: at,
      closedAt: null,
      createdAt: at,
      updatedAt: at,
      ...(body.review && { review: true }),
      ...(mismatch && {
        amountMismatch: true,
        pendingReview: { kind: 'amount_mismatch', reportedAmount: body.amount as number, since: at },
      }),
    };
    const created = outboxItems(scope, medCaseEvents(medEventTypesOf('open'), medCase, eventContext(at)));
    // A case opening commits only while the charge has no undecided case: another opening
    // (a mismatch one leaves the charge's status as it was) may have committed since the read.
    const opening = { noUndecidedCase: true };
    let items: NamedItems<'charge' | 'liveCounter' | 'wallet' | 'events'>;
    if (mismatch) {
      const med = medMetadataOf(medCase, charge.endToEndId, at);
      items = {
        charge: replaceChargeItem({ ...charge, med, updatedAt: at }, [charge.status], opening),
        events: created,
      };
    } else {
      const dispute = disputeItems(charge, medCase, at, opening);
      items = {
        charge: dispute.charge,
        liveCounter: dispute.liveCounter,
        wallet: dispute.wallet,
        events: [...dispute.events, ...created],
      };
    }
    const result = await transactRetryingConflicts({
      medCase: newMedCaseItem(medCase),
      ...items,
      record: request.record?.(medCase),
    });
    if (result.committed) return medCase;
    // The charge moved since it was read (a refund, another case): decide again.
    if (result.failed.includes('charge')) continue;
    throw new Error(`MED open failed on ${result.failed.join(', ')}`);
  }
  throw new Error(`Could not open a MED case on ${chargeId} after ${MAX_ATTEMPTS} attempts`);
}
