/**
 * A MED case opens against a settled charge (today the sandbox's
 * `POST /v1/sandbox/charges/{id}/med`; the acquirer's MED channel in live mode). ONE transaction:
 * the case (open), the charge → DISPUTE (`openDispute`: public `disputed`, refunds and cancels
 * refused) with its `metadata.med`, the hold journal (the contested amount from `available`,
 * which may go negative, to `retained`) and `med_case.created`. No `charge.*` event (Part 2).
 */

import { InvalidInput, NotFound } from '../domain/errors.ts';
import { medCaseEvents } from '../domain/events.ts';
import { medHoldJournal } from '../domain/ledger.ts';
import {
  type MedCaseRecord,
  medEventTypesOf,
  medMetadataOf,
  type OpenMedCaseBody,
} from '../domain/med-cases.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { canApply, nextStatus } from '../domain/transaction-status.ts';
import { newJournalId, newMedCaseId } from '../ids.ts';
import { getCharge } from '../store/charges.ts';
import { transactRetryingConflicts } from '../store/client.ts';
import { outboxItems } from '../store/events.ts';
import { journalItems } from '../store/ledger.ts';
import { newMedCaseItem } from '../store/med-cases.ts';
import { chargeTransitionItems, eventContext } from './charge-transition.ts';

const MAX_ATTEMPTS = 8;

export async function openMedCase(request: {
  scope: MerchantScope;
  chargeId: string;
  body: OpenMedCaseBody;
}): Promise<MedCaseRecord> {
  const scope: MerchantScope = { accountId: request.scope.accountId, mode: request.scope.mode };
  const { chargeId, body } = request;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const charge = await getCharge(scope, chargeId);
    if (!charge) throw new NotFound('No such charge.');
    if (!canApply('openDispute', charge.status))
      throw new InvalidInput(
        charge.status === 'DISPUTE' || charge.status === 'CHARGEBACK'
          ? 'This charge is already disputed.'
          : `A MED case needs a paid charge; this one is ${charge.status}.`,
        { param: 'id' },
      );
    // A reported amount other than the charge's waits for operations (Part 2, amountMismatch):
    // not built yet, so it is refused rather than half-applied.
    if (body.amount !== undefined && body.amount !== charge.amount)
      throw new InvalidInput('A MED amount different from the charge amount is not supported yet.', {
        param: 'amount',
      });
    const now = Date.now();
    const at = new Date(now).toISOString();
    const medCase: MedCaseRecord = {
      id: newMedCaseId(now),
      accountId: scope.accountId,
      mode: scope.mode,
      type: body.type ?? 'med',
      status: 'open',
      amount: charge.amount,
      currency: charge.currency,
      chargeId,
      reason: body.reason ?? null,
      method: body.method ?? null,
      payerName: body.payer_name ?? null,
      payerDocument: body.payer_document ?? null,
      responseDeadline:
        body.response_deadline === undefined ? null : new Date(body.response_deadline).toISOString(),
      evidenceRequestedAt: null,
      appealReason: null,
      appealedAt: null,
      moneyOutcome: null,
      openedAt: at,
      closedAt: null,
      createdAt: at,
      updatedAt: at,
    };
    const after = {
      ...charge,
      status: nextStatus('openDispute', charge.status),
      med: medMetadataOf(medCase, charge.endToEndId, at),
      updatedAt: at,
    };
    const transition = chargeTransitionItems(charge, 'openDispute', after, at);
    const result = await transactRetryingConflicts({
      medCase: newMedCaseItem(medCase),
      charge: transition.charge,
      liveCounter: transition.liveCounter,
      wallet: journalItems(
        scope,
        medHoldJournal(chargeId, charge.currency, charge.amount),
        at,
        newJournalId(),
        // May take `available` below zero on this shard: only the sum is the merchant's balance.
        { shard: charge.walletShard },
      ),
      events: [
        ...transition.events,
        ...outboxItems(scope, medCaseEvents(medEventTypesOf('open'), medCase, eventContext(at))),
      ],
    });
    if (result.committed) return medCase;
    // The charge moved since it was read (a refund, another case): decide again.
    if (result.failed.includes('charge')) continue;
    throw new Error(`MED open failed on ${result.failed.join(', ')}`);
  }
  throw new Error(`Could not open a MED case on ${chargeId} after ${MAX_ATTEMPTS} attempts`);
}
