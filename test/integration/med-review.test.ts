/**
 * MED cases that wait for operations (Part 2: "some outcomes … first pass an operations review
 * and the case keeps its current status meanwhile"; `amountMismatch`): a reported amount other
 * than the charge's holds nothing until an operator applies it, a case opened with `review`
 * keeps its status until an operator applies or rejects the MED channel's decision, both through
 * `npm run admin -- med-review`. Every wallet equals its ledger after the file
 * (test/helpers/ledger-invariant.ts).
 */

import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { InvalidInput } from '../../shared/domain/errors.ts';
import { applyMedReview } from '../../shared/services/apply-med-review.ts';
import { rejectMedReview } from '../../shared/services/reject-med-review.ts';
import { admin, adminRefused } from '../helpers/admin.ts';
import { balance, getCharge, rawId } from '../helpers/charges.ts';
import { api, expectError } from '../helpers/http.ts';
import { decideMed, disputed, medEvents, openMed, paidCharge } from '../helpers/med.ts';

/** `npm run admin -- med-review …`; rejects with the exit code on refusal. */
const medReview = (...args: string[]) => admin('med-review', ...args);
const waiting = async (caseId: string) =>
  ((await medReview('list')) as Record<string, any>[]).find((c) => c.id === caseId);

const payment = async (apikey: string, chargeId: string) =>
  (await api(`/v1/payments/${rawId(chargeId)}`, { apikey })).body;
const accept = (apikey: string, id: string) => api(`/v1/med/cases/${id}/accept`, { apikey, method: 'POST' });
const appeal = (apikey: string, id: string) =>
  api(`/v1/med/cases/${id}/appeal`, { apikey, body: { reason: 'Goods were delivered' } });
const typesOf = (events: Record<string, any>[]) => events.map((e) => e.eventType).sort();

describe('a reported amount other than the charge amount', () => {
  it('opens the case with nothing held and the charge untouched; decisions wait for the review', async () => {
    const m = await disputed(7_000, { amount: 6_000 });
    expect(m.medCase).toMatchObject({ status: 'open', amount: 6_000, money_outcome: null });
    expect(await balance(m.apikey)).toEqual(m.before);
    expect((await getCharge(m.apikey, m.chargeId)).body.status).toBe('paid');
    const tx = await payment(m.apikey, m.chargeId);
    expect(tx.status).toBe('PAID');
    expect(tx.metadata.med).toMatchObject({ status: 'created', amountMismatch: true });
    expect(typesOf(await medEvents(m.accountId, m.chargeId))).toEqual(['med_case.created']);

    // No step may decide where money goes that was never held; the merchant may still answer.
    const refusedAccept = await accept(m.apikey, m.medCase.id);
    expectError(refusedAccept, 400, 'invalid_request_error', 'med_case_under_review');
    expect(refusedAccept.body.error.param).toBe('id');
    expectError(
      await api(`/v1/infractions/${m.medCase.id}/accept`, { apikey: m.apikey, method: 'POST' }),
      400,
      'invalid_request_error',
      'med_case_under_review',
    );
    expectError(
      await decideMed(m.apikey, m.medCase.id, 'merchant_lost'),
      400,
      'invalid_request_error',
      'med_case_under_review',
    );
    // The charge carries an undecided case: no second one.
    expectError(await openMed(m.apikey, m.chargeId), 400, 'invalid_request_error', 'invalid_request');
    expect((await appeal(m.apikey, m.medCase.id)).body.status).toBe('appealed');

    expect(await waiting(m.medCase.id)).toMatchObject({
      account: m.accountId,
      mode: 'test',
      status: 'appealed',
      review: { kind: 'amount_mismatch', reportedAmount: 6_000 },
    });
  });

  it('apply: the reported amount is held as if the case had opened with it; then decided as usual', async () => {
    const m = await disputed(7_000, { amount: 6_000 });
    const applied = await medReview('apply', m.medCase.id);
    expect(applied).toMatchObject({ id: m.medCase.id, status: 'open', amount: 6_000, money_outcome: null });
    expect(await waiting(m.medCase.id)).toBeUndefined();
    expect(await balance(m.apikey)).toMatchObject({
      retained: 6_000,
      available: m.before.available - 6_000,
    });
    expect((await getCharge(m.apikey, m.chargeId)).body.status).toBe('disputed');
    expect((await payment(m.apikey, m.chargeId)).metadata.med).toMatchObject({ amountMismatch: true });
    expect(typesOf(await medEvents(m.accountId, m.chargeId))).toEqual([
      'med_case.created',
      'med_case.updated',
    ]);
    // Applied once: nothing waits any more.
    await expect(medReview('apply', m.medCase.id)).rejects.toMatchObject({ code: 2 });

    expect((await decideMed(m.apikey, m.medCase.id, 'merchant_won')).body.money_outcome).toBe(
      'refunded_to_merchant',
    );
    expect(await balance(m.apikey)).toEqual(m.before);
  });

  it('apply holds at most what the charge brought in', async () => {
    const m = await disputed(2_000, { amount: 9_000 });
    expect((await medReview('apply', m.medCase.id)).amount).toBe(2_000);
    expect((await balance(m.apikey)).retained).toBe(2_000);
  });

  it('apply waits for refunds in flight, as opening does, then holds what they left', async () => {
    const m = await disputed(7_000, { amount: 6_000 });
    // The acquirer down: the cashout stays in flight (no scheduler run can make it).
    await api('/v1/sandbox/acquirer', { apikey: m.apikey, body: { status: 'down' } });
    const refund = await api(`/v1/payments/${rawId(m.chargeId)}/refund`, {
      apikey: m.apikey,
      body: { idempotencyKey: `refund-${randomUUID()}`, amount: 1_500 },
    });
    expect(refund.status).toBe(201);
    // Refused for that reason (the CLI exits 2 for every refusal), and nothing applied.
    const refused = await adminRefused('med-review', 'apply', m.medCase.id);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/Refunds of this charge are still in flight/);
    expect(await waiting(m.medCase.id)).toBeDefined();

    const failed = await api(`/v1/sandbox/refunds/${refund.body.id}/fail`, {
      apikey: m.apikey,
      method: 'POST',
    });
    expect(failed.body.status).toBe('FAILED');
    await api('/v1/sandbox/acquirer', { apikey: m.apikey, body: { status: 'up' } });
    expect((await medReview('apply', m.medCase.id)).amount).toBe(6_000);
    expect((await balance(m.apikey)).retained).toBe(6_000);
  });

  it('reject: the report is dismissed, the case closes refunded_to_merchant and no money moves', async () => {
    const m = await disputed(7_000, { amount: 1_000 });
    const rejected = await medReview('reject', m.medCase.id);
    expect(rejected).toMatchObject({ status: 'closed', money_outcome: 'refunded_to_merchant' });
    expect(rejected.closed_at).toEqual(expect.any(String));
    expect(await balance(m.apikey)).toEqual(m.before);
    expect((await getCharge(m.apikey, m.chargeId)).body.status).toBe('paid');
    expect((await payment(m.apikey, m.chargeId)).metadata.med).toMatchObject({
      status: 'closed',
      result: 'disagreed',
      amountMismatch: true,
    });
    const events = await medEvents(m.accountId, m.chargeId);
    expect(typesOf(events)).toEqual(['med.resolved', 'med_case.created', 'med_case.updated']);
    expect(events.find((e) => e.eventType === 'med.resolved')?.payload.data.object).toEqual(rejected);
    // Closed: a new case may open against the charge.
    expect((await openMed(m.apikey, m.chargeId)).status).toBe(201);
  });
});

describe('a case opened with review', () => {
  it('an apply and a reject of the waiting decision sent together: exactly one takes effect (10 rounds)', async () => {
    const m = await disputed(1_000 * 10, { review: true });
    for (let round = 0; round < 10; round++) {
      const chargeId = await paidCharge(m.apikey, 1_000);
      const opened = (await openMed(m.apikey, chargeId, { review: true })).body;
      expect((await decideMed(m.apikey, opened.id, 'merchant_lost')).status).toBe(202);
      const scope = { accountId: m.accountId, mode: 'test' } as const;
      const [applied, rejected] = await Promise.allSettled([
        applyMedReview(scope, opened.id),
        rejectMedReview(scope, opened.id),
      ]);
      expect([applied.status, rejected.status].filter((s) => s === 'fulfilled')).toHaveLength(1);
      const loser = applied.status === 'rejected' ? applied : rejected;
      expect((loser as PromiseRejectedResult).reason).toBeInstanceOf(InvalidInput);
      const after = (await api(`/v1/med/cases/${opened.id}`, { apikey: m.apikey })).body;
      expect(after.status).toBe(applied.status === 'fulfilled' ? 'rejected' : 'open');
    }
  });

  it('keeps its status and money until an operator applies the decision', async () => {
    const m = await disputed(4_000, { review: true });
    const held = await balance(m.apikey);
    expect(held.retained).toBe(4_000);

    const decided = await decideMed(m.apikey, m.medCase.id, 'merchant_lost');
    expect(decided.status).toBe(202);
    expect(decided.body).toMatchObject({ status: 'open', money_outcome: null });
    expect(await balance(m.apikey)).toEqual(held);
    // Stored with the case's own transaction: no event for a decision that only waits.
    expect(typesOf(await medEvents(m.accountId, m.chargeId))).toEqual(['med_case.created']);
    const again = await decideMed(m.apikey, m.medCase.id, 'merchant_won');
    expectError(again, 400, 'invalid_request_error', 'med_case_under_review');
    expect(again.body.error.param).toBe('outcome');
    expect(await waiting(m.medCase.id)).toMatchObject({
      review: { kind: 'decision', outcome: 'merchant_lost' },
    });

    const applied = await medReview('apply', m.medCase.id);
    expect(applied).toMatchObject({ status: 'rejected', money_outcome: 'lost' });
    expect((await api(`/v1/med/cases/${m.medCase.id}`, { apikey: m.apikey })).body).toEqual(applied);
    expect(await balance(m.apikey)).toMatchObject({ retained: 0, available: m.before.available - 4_000 });
    expect((await payment(m.apikey, m.chargeId)).status).toBe('CHARGEBACK');
    expect(typesOf(await medEvents(m.accountId, m.chargeId))).toEqual([
      'med.resolved',
      'med_case.created',
      'med_case.updated',
    ]);
    expect(await waiting(m.medCase.id)).toBeUndefined();
  });

  it('reject drops the decision: same status, decided again later', async () => {
    const m = await disputed(4_000, { review: true });
    expect((await decideMed(m.apikey, m.medCase.id, 'closed_without_refund')).status).toBe(202);
    expect(await medReview('reject', m.medCase.id)).toMatchObject({ status: 'open', money_outcome: null });
    expect(await waiting(m.medCase.id)).toBeUndefined();
    expect((await balance(m.apikey)).retained).toBe(4_000);
    expect((await decideMed(m.apikey, m.medCase.id, 'merchant_won')).status).toBe(202);
    expect((await medReview('apply', m.medCase.id)).money_outcome).toBe('refunded_to_merchant');
    expect(await balance(m.apikey)).toEqual(m.before);
  });

  it("the merchant's own accept ends the review; a decision the case no longer allows is refused", async () => {
    const accepted = await disputed(3_000, { review: true });
    expect((await decideMed(accepted.apikey, accepted.medCase.id, 'merchant_won')).status).toBe(202);
    expect((await accept(accepted.apikey, accepted.medCase.id)).body).toMatchObject({ status: 'accepted' });
    expect(await waiting(accepted.medCase.id)).toBeUndefined();

    const appealed = await disputed(3_000, { review: true });
    expect((await decideMed(appealed.apikey, appealed.medCase.id, 'withdrawn')).status).toBe(202);
    expect((await appeal(appealed.apikey, appealed.medCase.id)).body.status).toBe('appealed');
    // Withdrawn only leaves `open`: the operator is told, nothing changes, and can reject it.
    await expect(medReview('apply', appealed.medCase.id)).rejects.toMatchObject({ code: 2 });
    expect((await balance(appealed.apikey)).retained).toBe(3_000);
    expect(await medReview('reject', appealed.medCase.id)).toMatchObject({ status: 'appealed' });
  });
});
