/**
 * MED (Pix dispute) cases over HTTP as a merchant (Part 2, "MED case"): opening through the
 * sandbox (hold in `retained`, charge `disputed`, `metadata.med`, refunds and cancels refused),
 * appeal and accept, every sandbox decision's money path, the events stored, the list with every
 * filter and every 400, the `/v1/infractions` alias, tenant isolation and live keys.
 */

import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newKey } from '../helpers/accounts.ts';
import { balance, getCharge, merchant, newCharge, rawId, storedEvents } from '../helpers/charges.ts';
import { api, expectError } from '../helpers/http.ts';
import { decideMed, disputed, medEvents, openMed, paidCharge, requestEvidence } from '../helpers/med.ts';
import { putCharges, seededCharge } from '../helpers/payments.ts';
import { confirmedRefund } from '../helpers/refunds.ts';
import { receiverPool } from '../helpers/webhook-receiver.ts';
import { verifyAcmeSignature } from '../helpers/webhook-verifier.ts';

const receivers = receiverPool();

const MED_ID = /^med_[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const getCase = (apikey: string, id: string, prefix = '/v1/med/cases') => api(`${prefix}/${id}`, { apikey });
const appeal = (apikey: string, id: string, reason: unknown, prefix = '/v1/med/cases') =>
  api(`${prefix}/${id}/appeal`, { apikey, body: { reason } });
const accept = (apikey: string, id: string, prefix = '/v1/med/cases') =>
  api(`${prefix}/${id}/accept`, { apikey, method: 'POST' });
const payment = async (apikey: string, chargeId: string) =>
  (await api(`/v1/payments/${rawId(chargeId)}`, { apikey })).body;
const typesOf = (events: Record<string, any>[]) => events.map((e) => e.eventType).sort();

describe('opening a MED case (sandbox)', () => {
  it('waits for refunds in flight (400 refunds_in_flight), then holds what is left of the charge', async () => {
    const m = await merchant();
    const refund = async (chargeId: string, amount: number, strategy: 'cashout' | 'devolution') => {
      const reply = await api(`/v1/payments/${rawId(chargeId)}/refund`, {
        apikey: m.apikey,
        body: { idempotencyKey: `refund-${randomUUID()}`, amount, strategy },
      });
      expect(reply.status).toBe(201);
      return reply.body.id as string;
    };
    // A paid charge of its own first, so the refunds below are covered by the balance.
    await paidCharge(m.apikey, 10_000);
    const refundedInFull = await paidCharge(m.apikey, 800);
    const partly = await paidCharge(m.apikey, 1_050);
    // The acquirer down: a cashout (a Pix-out to the payer's document) stays in flight, since no
    // scheduler run can make it.
    expect((await api('/v1/sandbox/acquirer', { apikey: m.apikey, body: { status: 'down' } })).status).toBe(
      200,
    );
    await refund(refundedInFull, 800, 'cashout');
    const failing = await refund(partly, 500, 'cashout');
    for (const chargeId of [refundedInFull, partly]) {
      const refused = await openMed(m.apikey, chargeId);
      expectError(refused, 400, 'invalid_request_error', 'refunds_in_flight');
      expect(refused.body.error.param).toBe('id');
    }
    // Once the refund has failed, its reserve is back in available and the case holds all of it.
    const failed = await api(`/v1/sandbox/refunds/${failing}/fail`, { apikey: m.apikey, method: 'POST' });
    expect(failed.body.status).toBe('FAILED');
    const afterFailure = await openMed(m.apikey, partly);
    expect(afterFailure.status).toBe(201);
    expect(afterFailure.body.amount).toBe(1_050);
    await api('/v1/sandbox/acquirer', { apikey: m.apikey, body: { status: 'up' } });

    const chargeId = await paidCharge(m.apikey, 1_050);
    await confirmedRefund(m.apikey, rawId(chargeId), await refund(chargeId, 500, 'devolution'));
    const before = await balance(m.apikey);
    // The bank reports the charge's amount: no mismatch (Part 2), and what is left of it is held.
    const opened = await openMed(m.apikey, chargeId, { amount: 1_050 });
    expect(opened.status).toBe(201);
    expect(opened.body).toMatchObject({ status: 'open', amount: 550 });
    const after = await balance(m.apikey);
    expect(after.retained - before.retained).toBe(550);
    expect(before.available - after.available).toBe(550);
    expect((await payment(m.apikey, chargeId)).metadata.med.amountMismatch).toBe(false);
  });

  it('holds the amount in retained, marks the charge disputed and writes med_case.created', async () => {
    const m = await disputed(10_000, {
      method: 'scam',
      reason: 'Golpe do falso vendedor',
      payer_name: 'Maria Silva',
      payer_document: '52998224725',
      response_deadline: '2030-01-10T12:00:00Z',
    });
    expect(m.medCase).toEqual({
      id: expect.stringMatching(MED_ID),
      object: 'med_case',
      type: 'med',
      status: 'open',
      amount: 10_000,
      currency: 'BRL',
      charge_id: m.chargeId,
      reason: 'Golpe do falso vendedor',
      response_deadline: '2030-01-10T12:00:00.000Z',
      evidence_requested_at: null,
      appeal_reason: null,
      appealed_at: null,
      evidence_count: 0,
      money_outcome: null,
      opened_at: expect.any(String),
      closed_at: null,
      created_at: m.medCase.opened_at,
      updated_at: m.medCase.opened_at,
    });

    const after = await balance(m.apikey);
    expect(after.retained).toBe(10_000);
    // The merchant received the net amount (fees taken), so the hold of the gross amount overdraws.
    expect(after.available).toBe(m.before.available - 10_000);
    expect(after.available).toBeLessThan(0);
    expect((await getCharge(m.apikey, m.chargeId)).body.status).toBe('disputed');

    const tx = await payment(m.apikey, m.chargeId);
    expect(tx.status).toBe('DISPUTE');
    expect(tx.metadata.med).toEqual({
      referenceId: expect.any(String),
      status: 'created',
      method: 'scam',
      reason: 'Golpe do falso vendedor',
      payerName: 'Maria Silva',
      payerDocument: '52998224725',
      openedAt: m.medCase.opened_at,
      updatedAt: m.medCase.opened_at,
      closedAt: null,
      lastEventAt: m.medCase.opened_at,
      amountMismatch: false,
    });

    const [created, ...others] = await medEvents(m.accountId, m.chargeId);
    expect(others).toEqual([]);
    expect(created?.payload).toEqual({
      id: created?.id,
      object: 'event',
      api_version: expect.any(String),
      type: 'med_case.created',
      created_at: m.medCase.created_at,
      data: { object: m.medCase },
    });
    expect(created?.id).toMatch(/^evt_/);
    // No charge.* event because of a MED (the legacy payment.* ones follow the transaction).
    const all = await storedEvents(m.accountId, rawId(m.chargeId));
    expect(
      all
        .filter((e) => e.eventType.startsWith('charge.'))
        .map((e) => e.eventType)
        .sort(),
    ).toEqual(['charge.created', 'charge.paid']);
  });

  it('refuses refunds and cancels while the case is open or appealed', async () => {
    const m = await disputed();
    const refund = () =>
      api(`/v1/payments/${rawId(m.chargeId)}/refund`, {
        apikey: m.apikey,
        body: { idempotencyKey: `refund-${randomUUID()}` },
      });
    expectError(await refund(), 400, 'invalid_request_error', 'payment_disputed');
    const cancel = await api(`/v1/payments/${rawId(m.chargeId)}/cancel`, {
      apikey: m.apikey,
      method: 'POST',
    });
    expectError(cancel, 400, 'invalid_request_error', 'payment_not_cancellable');
    expect((await appeal(m.apikey, m.medCase.id, 'The goods were delivered')).status).toBe(200);
    expectError(await refund(), 400, 'invalid_request_error', 'payment_disputed');
  });

  it('refuses a charge that is not paid or already disputed, and bad values', async () => {
    const m = await merchant();
    const pending = await api('/v1/charges', {
      apikey: m.apikey,
      headers: { 'Idempotency-Key': `med-${randomUUID()}` },
      body: { amount: 500, payment_method: 'pix' },
    });
    const notPaid = await openMed(m.apikey, pending.body.id);
    expectError(notPaid, 400, 'invalid_request_error', 'invalid_request');
    expect(notPaid.body.error.param).toBe('id');

    const chargeId = await paidCharge(m.apikey, 700);
    const badAmount = await openMed(m.apikey, chargeId, { amount: 0 });
    expect(badAmount.body.error.param).toBe('amount');
    // Past the Pix maximum: a 400, not a 500 from a number the table cannot store.
    const hugeAmount = await openMed(m.apikey, chargeId, { amount: 2 ** 53 });
    expectError(hugeAmount, 400, 'invalid_request_error', 'invalid_request');
    expect(hugeAmount.body.error.param).toBe('amount');
    expect((await openMed(m.apikey, chargeId, { review: 'yes' })).body.error.param).toBe('review');
    const badMethod = await openMed(m.apikey, chargeId, { method: 'magic' });
    expect(badMethod.body.error.param).toBe('method');

    expect((await openMed(m.apikey, chargeId, { amount: 700, type: 'fraud' })).body.type).toBe('fraud');
    const again = await openMed(m.apikey, chargeId);
    expectError(again, 400, 'invalid_request_error', 'invalid_request');
    expectError(await openMed(m.apikey, `ch_${randomUUID()}`), 404, 'not_found_error', 'not_found');
  });

  it('opens one case when openings of one charge race, a reported amount or not (10 rounds)', async () => {
    const m = await merchant();
    for (let round = 0; round < 10; round++) {
      const chargeId = await paidCharge(m.apikey, 1_000);
      // Reported amounts other than the charge's (which leave its status as it was) and not.
      const replies = await Promise.all(
        [undefined, 500, 400, undefined, 300, 200].map((amount) =>
          openMed(m.apikey, chargeId, amount === undefined ? {} : { amount }),
        ),
      );
      expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
      for (const r of replies.filter((r) => r.status !== 201))
        expectError(r, 400, 'invalid_request_error', 'invalid_request');
      const cases = await api(`/v1/med/cases?charge_id=${chargeId}`, { apikey: m.apikey });
      expect(cases.body.data).toHaveLength(1);
    }
  });
});

describe('appeal and accept', () => {
  it('appeal: reason 5–2000 characters, only from open; med_case.updated', async () => {
    const m = await disputed();
    const short = await appeal(m.apikey, m.medCase.id, 'abcd');
    expectError(short, 400, 'invalid_request_error', 'invalid_request');
    expect(short.body.error.param).toBe('reason');
    expect((await appeal(m.apikey, m.medCase.id, 'x'.repeat(2001))).body.error.param).toBe('reason');
    expect((await appeal(m.apikey, m.medCase.id, 42)).body.error.param).toBe('reason');
    const missing = await api(`/v1/med/cases/${m.medCase.id}/appeal`, { apikey: m.apikey, body: {} });
    expectError(missing, 400, 'invalid_request_error', 'invalid_request');
    expect(missing.body.error).toMatchObject({ param: 'reason', message: 'reason is required.' });

    const reply = await appeal(m.apikey, m.medCase.id, 'x'.repeat(2000));
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      status: 'appealed',
      appeal_reason: 'x'.repeat(2000),
      money_outcome: null,
    });
    expect(reply.body.appealed_at).toBe(reply.body.updated_at);
    expect((await payment(m.apikey, m.chargeId)).metadata.med.status).toBe('delivered');

    expectError(
      await appeal(m.apikey, m.medCase.id, 'again please'),
      400,
      'invalid_request_error',
      'invalid_request',
    );
    const refused = await accept(m.apikey, m.medCase.id);
    expectError(refused, 400, 'invalid_request_error', 'invalid_request');
    // Not a field of the request: the case the path names is in the wrong status.
    expect(refused.body.error).toMatchObject({
      param: 'id',
      message: 'This MED case is appealed: accept is not allowed.',
    });
    expect(typesOf(await medEvents(m.accountId, m.chargeId))).toEqual([
      'med_case.created',
      'med_case.updated',
    ]);
    // The money stays held while appealed.
    expect((await balance(m.apikey)).retained).toBe(10_000);
  });

  it('appeal: reason counted in user-perceived characters, never blank, unknown fields refused', async () => {
    const m = await disputed();
    const face = '😀'; // two UTF-16 units, one character
    const family = '👨‍👩‍👧'; // five code points, eight units, one character
    const refusedReason = async (reason: unknown, message: RegExp) => {
      const reply = await appeal(m.apikey, m.medCase.id, reason);
      expectError(reply, 400, 'invalid_request_error', 'invalid_request');
      expect(reply.body.error.param).toBe('reason');
      expect(reply.body.error.message).toMatch(message);
    };
    await refusedReason(face.repeat(3), /at least 5 characters/); // 6 units: passed minLength(5)
    await refusedReason(family.repeat(4), /at least 5 characters/);
    await refusedReason('      ', /blank/);
    await refusedReason(' \n\t  \u00a0 ', /blank/);
    await refusedReason(`  abc${'\n'}  `, /at least 5 characters/); // 3 characters once trimmed
    await refusedReason(face.repeat(2001), /at most 2000 characters/);
    const unknown = await api(`/v1/med/cases/${m.medCase.id}/appeal`, {
      apikey: m.apikey,
      body: { reason: 'The goods were delivered', money_outcome: 'refunded_to_merchant' },
    });
    expectError(unknown, 400, 'invalid_request_error', 'invalid_request');
    expect(unknown.body.error.param).toBe('money_outcome');
    expect((await api(`/v1/med/cases/${m.medCase.id}`, { apikey: m.apikey })).body.status).toBe('open');

    // 2000 emoji: 4000 UTF-16 units, 2000 characters (maxLength(2000) refused it).
    const reply = await appeal(m.apikey, m.medCase.id, `  ${face.repeat(2000)} `);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ status: 'appealed', appeal_reason: face.repeat(2000) });
  });

  it('accept takes no body: a field is 400 on it and the case stays open', async () => {
    const m = await disputed(5_000);
    for (const [body, param] of [
      [{ money_outcome: 'refunded_to_merchant' }, 'money_outcome'],
      [{ reason: 'x', status: 'closed' }, 'reason'],
    ] as const) {
      const reply = await api(`/v1/med/cases/${m.medCase.id}/accept`, { apikey: m.apikey, body });
      expectError(reply, 400, 'invalid_request_error', 'invalid_request');
      expect(reply.body.error.param).toBe(param);
    }
    const notAnObject = await api(`/v1/med/cases/${m.medCase.id}/accept`, {
      apikey: m.apikey,
      rawBody: '[1]',
    });
    expectError(notAnObject, 400, 'invalid_request_error', 'invalid_request');
    expect((await api(`/v1/med/cases/${m.medCase.id}`, { apikey: m.apikey })).body.status).toBe('open');
    expect((await balance(m.apikey)).retained).toBe(5_000);
    // No body, or an empty object, is an accept.
    const reply = await api(`/v1/med/cases/${m.medCase.id}/accept`, { apikey: m.apikey, body: {} });
    expect(reply.status).toBe(200);
    expect(reply.body.status).toBe('accepted');
  });

  it('accept: → accepted, lost; the held amount leaves the books; the charge is charged back', async () => {
    const m = await disputed(5_000);
    const reply = await accept(m.apikey, m.medCase.id);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ status: 'accepted', money_outcome: 'lost' });
    expect(reply.body.closed_at).toEqual(expect.any(String));
    const after = await balance(m.apikey);
    expect(after.retained).toBe(0);
    expect(after.available).toBe(m.before.available - 5_000);
    const tx = await payment(m.apikey, m.chargeId);
    expect(tx.status).toBe('CHARGEBACK');
    expect(tx.metadata.med).toMatchObject({ status: 'closed', result: 'agreed' });
    expect((await getCharge(m.apikey, m.chargeId)).body.status).toBe('disputed');

    const events = await medEvents(m.accountId, m.chargeId);
    expect(typesOf(events)).toEqual(['med.resolved', 'med_case.created', 'med_case.updated']);
    expect(events.find((e) => e.eventType === 'med.resolved')?.payload.data.object).toEqual(reply.body);
    expectError(await accept(m.apikey, m.medCase.id), 400, 'invalid_request_error', 'invalid_request');
  });
});

describe('sandbox decisions and their money', () => {
  const cases: [string, boolean, string, string, string, boolean][] = [
    // outcome, appeal first, status, money_outcome, transaction status, money back
    ['merchant_won', false, 'closed', 'refunded_to_merchant', 'PAID', true],
    ['merchant_won', true, 'closed', 'refunded_to_merchant', 'PAID', true],
    ['merchant_lost', false, 'rejected', 'lost', 'CHARGEBACK', false],
    ['merchant_lost', true, 'rejected', 'lost', 'CHARGEBACK', false],
    ['withdrawn', false, 'closed', 'refunded_to_merchant', 'PAID', true],
    ['closed_without_refund', false, 'closed', 'closed_without_refund', 'CHARGEBACK', false],
    ['closed_without_refund', true, 'closed', 'closed_without_refund', 'CHARGEBACK', false],
  ];
  it.each(cases)(
    '%s (appealed first: %s) → %s, %s',
    async (outcome, appealFirst, status, money, txStatus, back) => {
      const m = await disputed(3_000);
      if (appealFirst) expect((await appeal(m.apikey, m.medCase.id, 'Delivered on time')).status).toBe(200);
      const reply = await decideMed(m.apikey, m.medCase.id, outcome);
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ status, money_outcome: money });
      const after = await balance(m.apikey);
      expect(after.retained).toBe(0);
      expect(after.available).toBe(back ? m.before.available : m.before.available - 3_000);
      expect((await payment(m.apikey, m.chargeId)).status).toBe(txStatus);
      expect((await getCharge(m.apikey, m.chargeId)).body.status).toBe(back ? 'paid' : 'disputed');

      const events = await medEvents(m.accountId, m.chargeId);
      const resolved = events.filter((e) => e.eventType === 'med.resolved');
      expect(resolved).toHaveLength(1);
      expect(resolved[0]?.payload.data.object).toMatchObject({ status, money_outcome: money });
      // The transaction's own legacy events: DISPUTE → PAID or CHARGEBACK (Part 2 lists
      // CHARGEBACK under payment.failed); never a charge.* event.
      const legacy = (await storedEvents(m.accountId, rawId(m.chargeId)))
        .filter((e) => e.payload.data?.previousStatus === 'DISPUTE')
        .map((e) => e.eventType)
        .sort();
      expect(legacy).toEqual(
        txStatus === 'CHARGEBACK' ? ['payment.failed', 'payment.status_changed'] : ['payment.status_changed'],
      );
      // A decided case is final.
      expectError(
        await decideMed(m.apikey, m.medCase.id, 'merchant_won'),
        400,
        'invalid_request_error',
        'invalid_request',
      );
    },
  );

  it.each(['merchant_won', 'merchant_lost', 'accept'])(
    '20 concurrent %s decisions of one case: one 200, the rest 400, the money moved once',
    async (decision) => {
      const m = await disputed(2_500);
      const replies = await Promise.all(
        Array.from({ length: 20 }, () =>
          decision === 'accept'
            ? accept(m.apikey, m.medCase.id)
            : decideMed(m.apikey, m.medCase.id, decision),
        ),
      );
      expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
      for (const r of replies.filter((r) => r.status !== 200))
        expectError(r, 400, 'invalid_request_error', 'invalid_request');
      const after = await balance(m.apikey);
      expect(after.retained).toBe(0);
      expect(after.available).toBe(
        decision === 'merchant_won' ? m.before.available : m.before.available - 2_500,
      );
    },
  );

  it('withdrawn is refused once appealed; an unknown outcome is a 400 on outcome', async () => {
    const m = await disputed(2_000);
    expect((await decideMed(m.apikey, m.medCase.id, 'nope')).body.error.param).toBe('outcome');
    // A field the decision does not read is named, not ignored (the case stays open).
    const extra = await api(`/v1/sandbox/med/cases/${m.medCase.id}/decide`, {
      apikey: m.apikey,
      body: { outcome: 'merchant_won', money_outcome: 'lost' },
    });
    expectError(extra, 400, 'invalid_request_error', 'invalid_request');
    expect(extra.body.error.param).toBe('money_outcome');
    expect((await appeal(m.apikey, m.medCase.id, 'Delivered on time')).status).toBe(200);
    expectError(
      await decideMed(m.apikey, m.medCase.id, 'withdrawn'),
      400,
      'invalid_request_error',
      'invalid_request',
    );
  });

  it('a won charge can be refunded again', async () => {
    const m = await disputed(4_000);
    expect((await decideMed(m.apikey, m.medCase.id, 'merchant_won')).status).toBe(200);
    const refund = await api(`/v1/payments/${rawId(m.chargeId)}/refund`, {
      apikey: m.apikey,
      body: { idempotencyKey: `refund-${randomUUID()}`, amount: 100, strategy: 'devolution' },
    });
    // Won: the retained amount is back in available (the net of this payment), which covers it.
    expect(refund.status).toBe(201);
  });

  it('request-evidence sets evidence_requested_at and writes med_case.updated; not on a decided case', async () => {
    const m = await disputed(1_500);
    const reply = await requestEvidence(m.apikey, m.medCase.id);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ status: 'open', evidence_requested_at: reply.body.updated_at });
    expect(typesOf(await medEvents(m.accountId, m.chargeId))).toEqual([
      'med_case.created',
      'med_case.updated',
    ]);
    expect((await accept(m.apikey, m.medCase.id)).status).toBe(200);
    expectError(
      await requestEvidence(m.apikey, m.medCase.id),
      400,
      'invalid_request_error',
      'invalid_request',
    );
  });

  it('live keys get 404 on the sandbox MED routes', async () => {
    const m = await disputed(1_000);
    const live = await newKey(m.accountId, 'live');
    expectError(await openMed(live, m.chargeId), 404, 'not_found_error', 'not_found');
    expectError(await requestEvidence(live, m.medCase.id), 404, 'not_found_error', 'not_found');
    expectError(await decideMed(live, m.medCase.id, 'merchant_won'), 404, 'not_found_error', 'not_found');
    // And a test case is not the live scope's.
    expectError(await getCase(live, m.medCase.id), 404, 'not_found_error', 'not_found');
  });
});

describe('MED webhooks', () => {
  it('delivers the MED events to an endpoint subscribed to them, signed t=…,v1=…, and no charge.* event', async () => {
    const m = await merchant();
    const { receiver, url } = await receivers.start();
    const endpoint = await api('/v1/webhooks/endpoints', {
      apikey: m.apikey,
      body: { url, events: ['med_case.created', 'med_case.updated', 'med.resolved', 'charge.failed'] },
    });
    expect(endpoint.status).toBe(201);
    const chargeId = await paidCharge(m.apikey, 2_500);
    const opened = await openMed(m.apikey, chargeId);
    const decided = await decideMed(m.apikey, opened.body.id, 'merchant_lost');
    const received = await receiver.waitFor(3);
    for (const r of received) {
      expect(r.headers['x-acme-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(verifyAcmeSignature(r.headers['x-acme-signature'] as string, r.body, endpoint.body.secret)).toBe(
        true,
      );
    }
    const bodies = received.map((r) => JSON.parse(r.body));
    expect(bodies.map((b) => b.type).sort()).toEqual([
      'med.resolved',
      'med_case.created',
      'med_case.updated',
    ]);
    expect(bodies.find((b) => b.type === 'med.resolved').data.object).toEqual(decided.body);
    expect(bodies.find((b) => b.type === 'med_case.created').data.object).toEqual(opened.body);
    // Positive control: a later cancelled charge's charge.failed arrives; it is the only charge.* one.
    const later = await newCharge(m.apikey, { amount: 300 });
    const cancelled = await api(`/v1/payments/${rawId(later.id)}/cancel`, {
      apikey: m.apikey,
      method: 'POST',
    });
    expect(cancelled.status).toBe(200);
    const all = (await receiver.waitFor(4)).map((r) => JSON.parse(r.body));
    const chargeEvents = all.filter((b) => String(b.type).startsWith('charge.'));
    expect(chargeEvents.map((b) => [b.type, b.data.object.id])).toEqual([['charge.failed', later.id]]);
  });
});

describe('GET /v1/med/cases and /v1/infractions', () => {
  it('reads a case; the alias answers the same; another account gets 404', async () => {
    const m = await disputed(1_200);
    const read = await getCase(m.apikey, m.medCase.id);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(m.medCase);
    expect((await getCase(m.apikey, m.medCase.id, '/v1/infractions')).body).toEqual(m.medCase);
    const other = await merchant();
    expectError(await getCase(other.apikey, m.medCase.id), 404, 'not_found_error', 'not_found');
    expectError(await appeal(other.apikey, m.medCase.id, 'not my case'), 404, 'not_found_error', 'not_found');
    expectError(await accept(other.apikey, m.medCase.id), 404, 'not_found_error', 'not_found');
    expectError(
      await decideMed(other.apikey, m.medCase.id, 'merchant_won'),
      404,
      'not_found_error',
      'not_found',
    );
    expectError(await getCase(m.apikey, 'med_nope'), 404, 'not_found_error', 'not_found');
    // The alias's appeal is the same route.
    const viaAlias = await appeal(m.apikey, m.medCase.id, 'Delivered on time', '/v1/infractions');
    expect(viaAlias.body.status).toBe('appealed');
  });

  it('pages 60 cases newest first with every filter, and answers 400 for every bad value', async () => {
    const m = await merchant();
    const scope = { accountId: m.accountId, mode: 'test' as const };
    const t0 = Date.now() - 60_000;
    const charges = Array.from({ length: 60 }, (_, n) =>
      seededCharge(scope, t0 + n, {
        status: 'PAID',
        amount: 100 + n,
        paidAt: new Date(t0 + n).toISOString(),
      }),
    );
    await putCharges(charges);
    const opened: Record<string, any>[] = [];
    for (const [n, charge] of charges.entries()) {
      const type = n % 3 === 0 ? 'fraud' : 'med';
      const reply = await openMed(m.apikey, `ch_${charge.id}`, { type });
      expect(reply.status).toBe(201);
      opened.push(reply.body);
    }
    // Some decided: every 5th accepted.
    for (const c of opened.filter((_, n) => n % 5 === 0)) {
      const reply = await accept(m.apikey, c.id);
      Object.assign(c, reply.body);
    }
    const newestFirst = [...opened].reverse();
    const list = (query: string, prefix = '/v1/med/cases') => api(`${prefix}?${query}`, { apikey: m.apikey });
    async function all(query: string): Promise<Record<string, any>[]> {
      const seen: Record<string, any>[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 20; page++) {
        const reply = await list(`${query}&limit=7${cursor ? `&starting_after=${cursor}` : ''}`);
        expect(reply.status).toBe(200);
        expect(reply.body.object).toBe('list');
        seen.push(...reply.body.data);
        if (!reply.body.has_more) {
          expect(reply.body.next_cursor).toBeNull();
          return seen;
        }
        expect(reply.body.data).toHaveLength(7);
        cursor = reply.body.next_cursor;
        expect(cursor).toBe(reply.body.data.at(-1).id);
      }
      throw new Error('too many pages');
    }
    const ids = (list: Record<string, any>[]) => list.map((c) => c.id);

    const first = await list('');
    expect(first.body.data).toHaveLength(25);
    expect(first.body.has_more).toBe(true);
    expect(ids(await all(''))).toEqual(ids(newestFirst));
    expect(await all('')).toEqual(newestFirst);
    expect(ids(await all('status=accepted'))).toEqual(
      ids(newestFirst.filter((c) => c.status === 'accepted')),
    );
    expect(ids(await all('status=open'))).toEqual(ids(newestFirst.filter((c) => c.status === 'open')));
    expect(await all('status=closed')).toEqual([]);
    expect(ids(await all('type=fraud'))).toEqual(ids(newestFirst.filter((c) => c.type === 'fraud')));
    expect(ids(await all('type=fraud&status=open'))).toEqual(
      ids(newestFirst.filter((c) => c.type === 'fraud' && c.status === 'open')),
    );
    const target = opened[12] as Record<string, any>;
    expect(ids(await all(`charge_id=${target.charge_id}`))).toEqual([target.id]);
    // Dates are exclusive; the cases' creation times are distinct milliseconds apart or more.
    const after = (opened[9] as Record<string, any>).created_at;
    const before = (opened[45] as Record<string, any>).created_at;
    const inWindow = newestFirst.filter((c) => c.created_at > after && c.created_at < before);
    expect(ids(await all(`created_after=${after}&created_before=${before}`))).toEqual(ids(inWindow));
    expect(ids(await all(`created_after=${after}`))).toEqual(
      ids(newestFirst.filter((c) => c.created_at > after)),
    );
    expect(ids(await all(`created_before=${before}`))).toEqual(
      ids(newestFirst.filter((c) => c.created_at < before)),
    );
    // Reversed dates are a mistake (as on the charge and payment lists); equal ones an empty window.
    const reversed = await list(`created_after=${before}&created_before=${after}`);
    expectError(reversed, 400, 'invalid_request_error', 'invalid_request');
    // Either bound may be the wrong one: no `param`.
    expect(reversed.body.error).toMatchObject({ message: 'created_after must not be after created_before.' });
    expect(reversed.body.error.param).toBeUndefined();
    expect((await list(`created_after=${after}&created_before=${after}`)).body).toEqual({
      object: 'list',
      data: [],
      has_more: false,
      next_cursor: null,
    });
    // Empty too: a cursor older than created_after.
    const oldest = (opened[0] as Record<string, any>).id;
    expect((await list(`created_after=${after}&starting_after=${oldest}`)).body.data).toEqual([]);
    // The alias lists the same.
    expect((await list('limit=100', '/v1/infractions')).body.data).toEqual(newestFirst);

    const param = async (query: string) => {
      const reply = await list(query);
      expectError(reply, 400, 'invalid_request_error', 'invalid_request');
      return reply.body.error.param;
    };
    expect(await param('limit=0')).toBe('limit');
    expect(await param('limit=101')).toBe('limit');
    expect(await param('limit=abc')).toBe('limit');
    expect(await param('status=won')).toBe('status');
    expect(await param('type=pix')).toBe('type');
    expect((await list('status=won')).body.error.message).toBe(
      'Invalid status: Must be one of open, appealed, accepted, rejected, closed.',
    );
    expect((await list('type=pix')).body.error.message).toBe(
      'Invalid type: Must be one of med, chargeback, dispute, fraud.',
    );
    expect(await param('charge_id=123')).toBe('charge_id');
    expect(await param('created_after=yesterday')).toBe('created_after');
    expect(await param('created_before=2026-02-31T99:00:00Z')).toBe('created_before');
    // Sub-millisecond bounds: Date.parse dropped the 4th digit, so before=<a case's time>9 (later
    // than that case) listed without it. Refused instead of misread.
    expect(await param(`created_before=${before.replace('Z', '9Z')}`)).toBe('created_before');
    expect(await param('created_after=2026-01-01T00:00:00.0001Z')).toBe('created_after');
    expect(await param('created_before=2026-01-01T00:00:00.123456789%2B00:00')).toBe('created_before');
    expect(await param('starting_after=nope')).toBe('starting_after');
    expect(await param(`starting_after=med_${'0'.repeat(8)}-0000-7000-8000-${'0'.repeat(12)}`)).toBe(
      'starting_after',
    );
    expect(await param('order=asc')).toBe('order');

    // Another account's case as a cursor: 400, never its page.
    const other = await disputed(900);
    expect(
      (await api(`/v1/med/cases?starting_after=${target.id}`, { apikey: other.apikey })).body.error.param,
    ).toBe('starting_after');
    expect((await api('/v1/med/cases', { apikey: other.apikey })).body.data).toEqual([other.medCase]);
  });
});
