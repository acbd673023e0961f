/**
 * Refunds over HTTP as a merchant would do them (Part 2, "Refund"; README, "Refunds"): the
 * create shape, the money (reserve, paid, failed), the transaction's own status, the events,
 * idempotency, every refusal, the sandbox's steering routes and the automatic returns.
 */

import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../shared/domain/account-settings.ts';
import { db, tableName } from '../../shared/store/client.ts';
import { idempotencyKey } from '../../shared/store/keys.ts';
import { getRefund } from '../../shared/store/refunds.ts';
import { newKey } from '../helpers/accounts.ts';
import {
  balance,
  merchant,
  newCharge,
  pay,
  payerLockedCharge,
  rawId,
  storedEvents,
} from '../helpers/charges.ts';
import { documentsAbout, emfDocuments, metricTotal } from '../helpers/emf.ts';
import { eventually } from '../helpers/eventually.ts';
import { api, expectError } from '../helpers/http.ts';
import { journalsOf } from '../helpers/ledger-invariant.ts';
import { testTimings } from '../helpers/local-env.ts';
import { decideMed, openMed } from '../helpers/med.ts';
import { runtimeLogRecords } from '../helpers/runtime-log.ts';

const UUID7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const CASHOUT_FEE = DEFAULT_SETTINGS.feePlan.cashoutFee;
const key = () => `refund-${randomUUID()}`;

/** A merchant with a paid payment of `amount` and enough other money in the wallet to refund it all. */
async function paidPayment(
  amount = 10_000,
  payBody: Record<string, unknown> = { payer_document: '52998224725' },
) {
  const m = await merchant();
  const funding = await newCharge(m.apikey, { amount: 50_000 });
  expect((await pay(m.apikey, funding.id)).body.outcome).toBe('paid');
  const charge = await newCharge(m.apikey, { amount });
  expect((await pay(m.apikey, charge.id, payBody)).body.outcome).toBe('paid');
  return { ...m, paymentId: rawId(charge.id), chargeId: charge.id as string };
}

const refund = (apikey: string, paymentId: string, body: Record<string, unknown>) =>
  api(`/v1/payments/${paymentId}/refund`, { apikey, body: { idempotencyKey: key(), ...body } });
const refunds = async (apikey: string, paymentId: string) =>
  (await api(`/v1/payments/${paymentId}/refunds`, { apikey })).body.data as Record<string, any>[];
const payment = async (apikey: string, paymentId: string) =>
  (await api(`/v1/payments/${paymentId}`, { apikey })).body;

describe('POST /v1/payments/{id}/refund', () => {
  it('creates a partial cashout refund, reserves it from available at once, and completes it by itself', async () => {
    const m = await paidPayment();
    const before = (await balance(m.apikey)).available;

    const reply = await refund(m.apikey, m.paymentId, { amount: 2500, reason: 'Customer asked' });

    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      transactionId: m.paymentId,
      amount: 2500,
      currency: 'BRL',
      status: 'PENDING',
      reason: 'Customer asked',
      strategy: 'cashout',
      fee: 0,
    });
    expect(reply.body.id).toMatch(/^re_/);
    expect(reply.body.id.slice(3)).toMatch(UUID7);
    expect(Date.parse(reply.body.createdAt)).not.toBeNaN();
    expect((await balance(m.apikey)).available).toBe(before - 2500);

    // PENDING → IN_PROGRESS → REFUNDED, as the (sandbox) acquirer confirms.
    const done = await eventually(
      async () => {
        const [only] = await refunds(m.apikey, m.paymentId);
        expect(only?.status).toBe('REFUNDED');
        return only;
      },
      { message: 'the refund confirmed' },
    );
    expect(done?.completedAt).toEqual(expect.any(String));
    expect((await balance(m.apikey)).available).toBe(before - 2500);
    // A partial refund leaves the payment PAID.
    expect((await payment(m.apikey, m.paymentId)).status).toBe('PAID');

    const statuses = (await storedEvents(m.accountId, m.paymentId))
      .filter((e) => e.eventType === 'payment.refunded')
      .map((e) => e.payload.data.refund.status);
    expect(statuses).toEqual(['PENDING', 'IN_PROGRESS', 'REFUNDED']);
  });

  it('refunds the remaining amount by default and makes the payment REFUNDED (publicly refunded)', async () => {
    const m = await paidPayment(8000);
    expect((await refund(m.apikey, m.paymentId, { amount: 3000 })).status).toBe(201);

    const rest = await refund(m.apikey, m.paymentId, { strategy: 'devolution' });

    expect(rest.status).toBe(201);
    expect(rest.body).toMatchObject({ amount: 5000, strategy: 'devolution' });
    await eventually(async () => expect((await payment(m.apikey, m.paymentId)).status).toBe('REFUNDED'), {
      message: 'the payment refunded in full',
    });
    expect((await api(`/v1/charges/${m.chargeId}`, { apikey: m.apikey })).body.status).toBe('refunded');
    // The payment list's status filter follows (its status cell moved with the status).
    const ids = async (status: string) =>
      (await api(`/v1/payments?status=${status}`, { apikey: m.apikey })).body.data.map((p: any) => p.id);
    expect(await ids('REFUNDED')).toEqual([m.paymentId]);
    expect(await ids('PAID')).not.toContain(m.paymentId);
    const events = await storedEvents(m.accountId, m.paymentId);
    const last = events.filter((e) => e.eventType === 'payment.status_changed').at(-1);
    expect(last?.payload.data).toMatchObject({ status: 'REFUNDED', previousStatus: 'PAID' });
    // Every refund of the transaction, newest first.
    expect((await refunds(m.apikey, m.paymentId)).map((r) => r.amount)).toEqual([5000, 3000]);
  });

  it('refuses more than the remaining refundable amount, and anything once refunded in full', async () => {
    const m = await paidPayment(4000);
    const over = await refund(m.apikey, m.paymentId, { amount: 4001 });
    expectError(over, 400, 'invalid_request_error', 'refund_exceeds_remaining');
    expect(over.body.error.param).toBe('amount');

    expect((await refund(m.apikey, m.paymentId, {})).status).toBe(201);
    expectError(
      await refund(m.apikey, m.paymentId, { amount: 1 }),
      400,
      'invalid_request_error',
      'refund_exceeds_remaining',
    );
  });

  it('refuses a payment that is not settled (payment_not_refundable)', async () => {
    const m = await merchant();
    const pending = await newCharge(m.apikey);
    expectError(
      await refund(m.apikey, rawId(pending.id), { amount: 100 }),
      400,
      'invalid_request_error',
      'payment_not_refundable',
    );
  });

  it('refuses a disputed payment (payment_disputed)', async () => {
    const m = await paidPayment(1000);
    // The payer's bank opens a MED case (sandbox): the transaction is DISPUTE while it is open.
    const opened = await openMed(m.apikey, m.chargeId);
    expect(opened.status).toBe(201);
    const whileOpen = await refund(m.apikey, m.paymentId, { amount: 100 });
    expectError(whileOpen, 400, 'invalid_request_error', 'payment_disputed');
    expect(whileOpen.body.error.message).toMatch(/case is open/);
    // Lost: charged back, and the message says so.
    expect((await decideMed(m.apikey, opened.body.id, 'merchant_lost')).status).toBe(200);
    const chargedBack = await refund(m.apikey, m.paymentId, { amount: 100 });
    expectError(chargedBack, 400, 'invalid_request_error', 'payment_disputed');
    expect(chargedBack.body.error.message).toMatch(/charged back/);
  });

  it('refuses a refund the available balance does not cover (insufficient_balance), writing nothing', async () => {
    const m = await merchant();
    const charge = await newCharge(m.apikey, { amount: 10_000 });
    await pay(m.apikey, charge.id, { payer_document: '52998224725' });
    const before = await balance(m.apikey); // the net amount only: fees were taken

    const reply = await refund(m.apikey, rawId(charge.id), {});

    expectError(reply, 400, 'invalid_request_error', 'insufficient_balance');
    expect(reply.body.error.param).toBe('amount');
    expect(await balance(m.apikey)).toEqual(before);
    expect(await refunds(m.apikey, rawId(charge.id))).toEqual([]);
    // What the balance covers goes through.
    expect((await refund(m.apikey, rawId(charge.id), { amount: before.available })).status).toBe(201);
  });

  it('debits the Pix-out fee with passFeeToTenant, and gives both back when the refund fails', async () => {
    const m = await paidPayment();
    const before = (await balance(m.apikey)).available;
    // The acquirer down while the refund is requested: the scheduler cannot confirm it before this
    // test fails it (the sandbox route settles without the acquirer).
    await api('/v1/sandbox/acquirer', { apikey: m.apikey, body: { status: 'down' } });
    const reply = await refund(m.apikey, m.paymentId, { amount: 1000, passFeeToTenant: true });
    expect(reply.body).toMatchObject({ fee: CASHOUT_FEE, status: 'PENDING' });
    expect((await balance(m.apikey)).available).toBe(before - 1000 - CASHOUT_FEE);

    const failed = await api(`/v1/sandbox/refunds/${reply.body.id}/fail`, {
      apikey: m.apikey,
      method: 'POST',
    });

    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({ id: reply.body.id, status: 'FAILED' });
    expect(failed.body.failureReason).toEqual(expect.any(String));
    expect((await balance(m.apikey)).available).toBe(before);
    const last = (await storedEvents(m.accountId, m.paymentId))
      .filter((e) => e.eventType === 'payment.refunded')
      .at(-1);
    expect(last?.payload.data.refund).toEqual({ id: reply.body.id, amount: 1000, status: 'FAILED' });
    // A failed refund no longer counts: the whole amount is refundable again.
    await api('/v1/sandbox/acquirer', { apikey: m.apikey, body: { status: 'up' } });
    expect((await refund(m.apikey, m.paymentId, { amount: 10_000 })).status).toBe(201);
  });

  it('flags a refund the acquirer has not resolved when it is overdue (8 s in the tests): a warning in test mode, and RefundsOverdue', async () => {
    const m = await paidPayment();
    await api('/v1/sandbox/acquirer', { apikey: m.apikey, body: { status: 'down' } });
    const made = (await refund(m.apikey, m.paymentId, { amount: 1000 })).body;
    const reports = () =>
      runtimeLogRecords().filter(
        (r) => r.message === 'refund overdue: the acquirer has not resolved it' && r.refundId === made.id,
      );
    try {
      const [first] = await eventually(
        () => {
          const found = reports();
          expect(found).not.toEqual([]);
          return found;
        },
        { timeoutMs: 45_000, message: 'the refund reported overdue' },
      );
      expect(first).toMatchObject({
        level: 'WARN',
        chargeId: m.chargeId,
        accountId: m.accountId,
        status: 'PENDING',
        amount: 1000,
        createdAt: made.createdAt,
      });
      // Not before it was due.
      expect(Date.parse(first?.timestamp)).toBeGreaterThanOrEqual(
        Date.parse(made.createdAt) + Number(testTimings.REFUND_OVERDUE_SECONDS) * 1000,
      );
      const documents = () =>
        documentsAbout(emfDocuments(join(inject('dataDir'), 'metrics.jsonl')), 'accountIds', m.accountId);
      await eventually(() =>
        expect(metricTotal(documents(), 'RefundsOverdue', 'test')).toBeGreaterThanOrEqual(1),
      );
    } finally {
      await api('/v1/sandbox/acquirer', { apikey: m.apikey, body: { status: 'up' } });
    }
  });

  it('gives each advance of two refunds moved by one scheduler pass its own time', async () => {
    const m = await paidPayment();
    // Both requested while the acquirer is down: the scheduler retries them in step, so the pass
    // after it comes back requests both, and a later one confirms both.
    await api('/v1/sandbox/acquirer', { apikey: m.apikey, body: { status: 'down' } });
    const ids = [
      (await refund(m.apikey, m.paymentId, { amount: 1000 })).body.id,
      (await refund(m.apikey, m.paymentId, { amount: 2000 })).body.id,
    ];
    await api('/v1/sandbox/acquirer', { apikey: m.apikey, body: { status: 'up' } });
    await eventually(
      async () =>
        expect((await refunds(m.apikey, m.paymentId)).map((r) => r.status)).toEqual(['REFUNDED', 'REFUNDED']),
      // A few scheduler passes (request, then the first check after FIRST_CHECK_AFTER_MS).
      { timeoutMs: 30_000, message: 'both refunds confirmed' },
    );

    const advances = (await storedEvents(m.accountId, m.paymentId))
      .filter((e) => e.eventType === 'payment.refunded')
      .map((e) => `${e.payload.data.refund.status} ${e.payload.data.occurredAt}`);
    expect(advances).toHaveLength(6);
    for (const status of ['IN_PROGRESS', 'REFUNDED']) {
      const times = advances.filter((a) => a.startsWith(`${status} `));
      expect(times, `the ${status} events of ${ids.join(' and ')}`).toHaveLength(2);
      expect(new Set(times).size).toBe(2);
    }
  });

  it('pays a cashout to the payer document, or to a destinationKey, and needs one of them', async () => {
    const m = await paidPayment(5000, {}); // the payer's bank reported no document
    const noKey = await refund(m.apikey, m.paymentId, { amount: 100 });
    expectError(noKey, 400, 'invalid_request_error', 'invalid_request');
    expect(noKey.body.error.param).toBe('destinationKey');

    for (const destinationKey of [
      '52998224725',
      '11222333000181',
      'ana@example.com',
      '+5511987654321',
      randomUUID(),
    ]) {
      const reply = await refund(m.apikey, m.paymentId, { amount: 100, destinationKey });
      expect(reply.status, destinationKey).toBe(201);
      expect(reply.body.destinationKey).toBe(destinationKey);
    }
  });

  it('pays a cashout without destinationKey to the payer’s document, which it shows masked, never in full', async () => {
    const m = await paidPayment(5000, { payer_document: '52998224725' });

    const reply = await refund(m.apikey, m.paymentId, { amount: 100 });

    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ strategy: 'cashout', destinationKey: '***.982.247-**' });
    expect((await refunds(m.apikey, m.paymentId))[0]?.destinationKey).toBe('***.982.247-**');
    expect(JSON.stringify(reply.body)).not.toContain('52998224725');
    // The Pix-out itself goes to the whole document.
    const stored = await getRefund({ accountId: m.accountId, mode: 'test' }, m.paymentId, reply.body.id);
    expect(stored?.destinationKey).toBe('52998224725');
  });

  it('answers REFUND_NOT_SUPPORTED (422) for a cashout when the acquirer offers no Pix-out, and defaults to a devolution there', async () => {
    const m = await paidPayment();
    await api('/v1/sandbox/acquirer', { apikey: m.apikey, body: { payouts: 'unsupported' } });

    const reply = await refund(m.apikey, m.paymentId, { amount: 100, strategy: 'cashout' });

    expectError(reply, 422, 'invalid_request_error', 'REFUND_NOT_SUPPORTED');
    expect(reply.body.error.param).toBe('strategy');
    // A devolution does not need Pix-out.
    expect((await refund(m.apikey, m.paymentId, { amount: 100, strategy: 'devolution' })).status).toBe(201);
    // Without a strategy the refund is one the acquirer can make, unless a cashout's own field says otherwise.
    const unspecified = await refund(m.apikey, m.paymentId, { amount: 100 });
    expect(unspecified.status).toBe(201);
    expect(unspecified.body.strategy).toBe('devolution');
    const toKey = await refund(m.apikey, m.paymentId, { amount: 100, destinationKey: 'pagador@example.com' });
    expectError(toKey, 422, 'invalid_request_error', 'REFUND_NOT_SUPPORTED');
    expect(toKey.body.error.param).toBe('strategy');
  });

  it('replays the original refund for the same key and body, and answers 409 for another body or payment', async () => {
    const m = await paidPayment();
    const body = { idempotencyKey: key(), amount: 700 };
    const first = await api(`/v1/payments/${m.paymentId}/refund`, { apikey: m.apikey, body });
    const again = await api(`/v1/payments/${m.paymentId}/refund`, { apikey: m.apikey, body });

    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await refunds(m.apikey, m.paymentId)).toHaveLength(1);

    const other = await api(`/v1/payments/${m.paymentId}/refund`, {
      apikey: m.apikey,
      body: { ...body, amount: 701 },
    });
    expectError(other, 409, 'conflict_error', 'idempotency_key_reused');
    expect(other.body.error.param).toBe('idempotencyKey');
    const second = await newCharge(m.apikey, { amount: 1000 });
    await pay(m.apikey, second.id);
    expectError(
      await api(`/v1/payments/${rawId(second.id)}/refund`, { apikey: m.apikey, body }),
      409,
      'conflict_error',
      'idempotency_key_reused',
    );
  });

  it('after 24 h still replays the same request with its key, and takes another body as new', async () => {
    const m = await paidPayment();
    const body = { idempotencyKey: key(), amount: 700 };
    const first = await api(`/v1/payments/${m.paymentId}/refund`, { apikey: m.apikey, body });
    expect(first.status).toBe(201);
    // The key's record, first used a day and a second ago (the key schema's item, still in the table).
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: idempotencyKey({ accountId: m.accountId, mode: 'test' }, 'refundPayment', body.idempotencyKey),
        UpdateExpression: 'SET createdAt = :then',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':then': new Date(Date.now() - 24 * 3600_000 - 1_000).toISOString() },
      }),
    );
    // A late retry of the same request never refunds twice.
    const retried = await api(`/v1/payments/${m.paymentId}/refund`, { apikey: m.apikey, body });
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.body).toEqual(first.body);
    // Another body with the key, past its 24 h, is a new refund (within them it is 409).
    const other = await api(`/v1/payments/${m.paymentId}/refund`, {
      apikey: m.apikey,
      body: { ...body, amount: 300 },
    });
    expect(other.status).toBe(201);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect((await refunds(m.apikey, m.paymentId)).map((r) => r.amount).sort()).toEqual([300, 700]);
    // The new record answers for the key from now on.
    expect(
      (await api(`/v1/payments/${m.paymentId}/refund`, { apikey: m.apikey, body: { ...body, amount: 300 } }))
        .body.id,
    ).toBe(other.body.id);
  });

  it('refuses an Idempotency-Key header that differs from the body key, writing nothing; the same key in both is accepted', async () => {
    const m = await paidPayment(1000);
    const body = { idempotencyKey: key(), amount: 100 };
    const path = `/v1/payments/${m.paymentId}/refund`;
    const differ = await api(path, { apikey: m.apikey, body, headers: { 'idempotency-key': key() } });
    expectError(differ, 400, 'invalid_request_error', 'invalid_request');
    expect(differ.body.error).toMatchObject({
      param: 'Idempotency-Key',
      message:
        "The Idempotency-Key header differs from the body's idempotencyKey: this route reads its key from the body only. Send the same key in both, or only idempotencyKey.",
    });
    // Nothing was written: the body's key alone makes the refund, not a replay.
    const bodyOnly = await api(path, { apikey: m.apikey, body });
    expect(bodyOnly.status).toBe(201);
    expect(bodyOnly.headers.get('idempotent-replayed')).toBeNull();
    expect((await refunds(m.apikey, m.paymentId)).map((r) => r.id)).toEqual([bodyOnly.body.id]);

    const same = { idempotencyKey: key(), amount: 100 };
    const both = await api(path, {
      apikey: m.apikey,
      body: same,
      headers: { 'idempotency-key': same.idempotencyKey },
    });
    expect(both.status).toBe(201);
    expect(both.body.id).not.toBe(bodyOnly.body.id);
  });

  it.each([
    [{ amount: 100 }, 'idempotencyKey'],
    [{ idempotencyKey: 'short77', amount: 100 }, 'idempotencyKey'],
    [{ idempotencyKey: 'k'.repeat(129), amount: 100 }, 'idempotencyKey'],
    [{ amount: 0 }, 'amount'],
    [{ amount: -5 }, 'amount'],
    [{ amount: 10.5 }, 'amount'],
    [{ amount: '100' }, 'amount'],
    [{ reason: 'r'.repeat(501) }, 'reason'],
    [{ strategy: 'chargeback' }, 'strategy'],
    [{ strategy: 'devolution', passFeeToTenant: true }, 'passFeeToTenant'],
    [{ strategy: 'devolution', destinationKey: 'ana@example.com' }, 'destinationKey'],
    [{ passFeeToTenant: 'yes' }, 'passFeeToTenant'],
    [{ destinationKey: '12345678900' }, 'destinationKey'], // a CPF with wrong check digits
    [{ destinationKey: '+15551234567' }, 'destinationKey'], // not a Brazilian phone
    [{ destinationKey: 'not a key' }, 'destinationKey'],
    [{ currency: 'USD' }, 'currency'],
  ])('answers 400 for %j with param %s, writing nothing', async (body, param) => {
    const m = await paidPayment(1000);
    const before = await balance(m.apikey);
    const reply = await api(`/v1/payments/${m.paymentId}/refund`, {
      apikey: m.apikey,
      body:
        'idempotencyKey' in body || param === 'idempotencyKey' ? body : { idempotencyKey: key(), ...body },
    });
    // A bad amount has the specific code, as on the creates (Part 1's `invalid_amount`).
    expectError(
      reply,
      400,
      'invalid_request_error',
      param === 'amount' ? 'invalid_amount' : 'invalid_request',
    );
    expect(reply.body.error.param).toBe(param);
    expect(await balance(m.apikey)).toEqual(before);
    expect(await refunds(m.apikey, m.paymentId)).toEqual([]);
  });

  it('answers 400 without a JSON body, and 404 for an unknown, malformed or other tenant payment', async () => {
    const m = await paidPayment(1000);
    const other = await merchant();
    expectError(
      await api(`/v1/payments/${m.paymentId}/refund`, { apikey: m.apikey, method: 'POST' }),
      400,
      'invalid_request_error',
      'invalid_request',
    );
    for (const id of ['0190a3f2-1d2e-7f00-8a1b-2c3d4e5f6071', 'nope', `ch_${m.paymentId}x`]) {
      expectError(await refund(m.apikey, id, { amount: 1 }), 404, 'not_found_error', 'not_found');
    }
    expectError(await refund(other.apikey, m.paymentId, { amount: 1 }), 404, 'not_found_error', 'not_found');
    expectError(
      await refund(await newKey(m.accountId, 'live'), m.paymentId, { amount: 1 }),
      404,
      'not_found_error',
      'not_found',
    );
  });
});

describe('GET /v1/payments/{id}/refunds', () => {
  it('lists the automatic devolution of a Pix returned to a mismatched payer', async () => {
    const m = await merchant();
    const charge = await payerLockedCharge(m.apikey);
    const paid = await pay(m.apikey, charge.id, { payer_document: '11144477735' });
    expect(paid.body.outcome).toBe('refunded');

    const [only] = await eventually(async () => {
      const list = await refunds(m.apikey, rawId(charge.id));
      expect(list[0]?.status).toBe('REFUNDED');
      return list;
    });

    expect(only).toMatchObject({
      amount: 2000,
      strategy: 'devolution',
      automatic: true,
      reason: 'payer_mismatch',
    });
    expect((await balance(m.apikey)).available).toBe(0);
  });

  it('a failed automatic return is news: payment.refunded with the FAILED refund, and the ledger owes the payer', async () => {
    const m = await merchant();
    const charge = await payerLockedCharge(m.apikey);
    // The acquirer down: the return is asked for, but no scheduler run can learn it was made.
    await api('/v1/sandbox/acquirer', { apikey: m.apikey, body: { status: 'down' } });
    expect((await pay(m.apikey, charge.id, { payer_document: '11144477735' })).body.outcome).toBe('refunded');
    const [automatic] = await refunds(m.apikey, rawId(charge.id));
    expect(automatic).toMatchObject({ automatic: true, status: 'IN_PROGRESS' });

    const failed = await api(`/v1/sandbox/refunds/${automatic?.id}/fail`, {
      apikey: m.apikey,
      method: 'POST',
    });
    await api('/v1/sandbox/acquirer', { apikey: m.apikey, body: { status: 'up' } });

    expect(failed.body).toMatchObject({ status: 'FAILED', automatic: true });
    const news = (await storedEvents(m.accountId, rawId(charge.id))).filter(
      (e) => e.eventType === 'payment.refunded' && e.payload.data.refund,
    );
    expect(news.map((e) => e.payload.data.refund)).toEqual([
      { id: automatic?.id, amount: 2000, status: 'FAILED' },
    ]);
    // Never the merchant's money: the wallet does not move; the acquirer's account holds it, owed to the payer.
    expect(await balance(m.apikey)).toMatchObject({ available: 0, pending: 0, retained: 0 });
    const kinds = (await journalsOf(m.accountId)).map((j) => j.kind);
    expect(kinds).toEqual(expect.arrayContaining(['payment_returned', 'return_failed']));
    // Ops hear of it: an error log naming the refund, and the metric RefundMoneyAlarm watches.
    await eventually(() =>
      expect(runtimeLogRecords()).toContainEqual(
        expect.objectContaining({
          level: 'ERROR',
          message: 'automatic return to the payer failed',
          refundId: automatic?.id,
        }),
      ),
    );
    // Counted in a document naming this (new) account.
    const documents = () =>
      documentsAbout(emfDocuments(join(inject('dataDir'), 'metrics.jsonl')), 'accountIds', m.accountId);
    await eventually(() =>
      expect(metricTotal(documents(), 'AutomaticReturnsFailed', 'test')).toBeGreaterThanOrEqual(1),
    );
  });

  it('is empty for a payment never refunded, and 404 for another tenant', async () => {
    const m = await paidPayment(1000);
    expect(await api(`/v1/payments/${m.paymentId}/refunds`, { apikey: m.apikey })).toMatchObject({
      status: 200,
      body: { data: [] },
    });
    expectError(
      await api(`/v1/payments/${m.paymentId}/refunds`, { apikey: (await merchant()).apikey }),
      404,
      'not_found_error',
      'not_found',
    );
  });
});

describe('sandbox refund routes', () => {
  it('confirm completes a refund at once; fail and confirm refuse a final refund', async () => {
    const m = await paidPayment();
    // The acquirer down while the refund is requested: the scheduler cannot advance it on its
    // own, so only this test's confirm can end it (the route settles without the acquirer).
    await api('/v1/sandbox/acquirer', { apikey: m.apikey, body: { status: 'down' } });
    const created = await refund(m.apikey, m.paymentId, { amount: 500 });
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('PENDING');

    const confirmed = await api(`/v1/sandbox/refunds/${created.body.id}/confirm`, {
      apikey: m.apikey,
      method: 'POST',
    });

    expect(confirmed.status).toBe(200);
    expect(confirmed.body.status).toBe('REFUNDED');
    // Part 2's order, even when the confirmation comes before the request was recorded.
    const advances = (await storedEvents(m.accountId, m.paymentId))
      .filter((e) => e.eventType === 'payment.refunded')
      .map((e) => e.payload.data.refund.status);
    expect(advances).toEqual(['PENDING', 'IN_PROGRESS', 'REFUNDED']);
    for (const action of ['fail', 'confirm']) {
      const final = await api(`/v1/sandbox/refunds/${created.body.id}/${action}`, {
        apikey: m.apikey,
        method: 'POST',
      });
      expectError(final, 400, 'invalid_request_error', 'refund_final');
      expect(final.body.error.param).toBe('refund_id');
    }
    await api('/v1/sandbox/acquirer', { apikey: m.apikey, body: { status: 'up' } });
  });

  it.each(['confirm', 'fail'])(
    '%s sent twice at once: one makes the refund final, the other is refund_final',
    async (action) => {
      const m = await paidPayment();
      await api('/v1/sandbox/acquirer', { apikey: m.apikey, body: { status: 'down' } });
      const before = await balance(m.apikey);
      const created = await refund(m.apikey, m.paymentId, { amount: 500 });
      const replies = await Promise.all(
        [1, 2].map(() =>
          api(`/v1/sandbox/refunds/${created.body.id}/${action}`, { apikey: m.apikey, method: 'POST' }),
        ),
      );
      expect(replies.map((r) => r.status).sort()).toEqual([200, 400]);
      const [loser] = replies.filter((r) => r.status === 400);
      if (loser) expectError(loser, 400, 'invalid_request_error', 'refund_final');
      // The money moved once: a failed refund gives the 500 back, a confirmed one keeps it spent.
      expect((await balance(m.apikey)).available).toBe(before.available - (action === 'confirm' ? 500 : 0));
      await api('/v1/sandbox/acquirer', { apikey: m.apikey, body: { status: 'up' } });
    },
  );

  it('answers 404 for a live key, an unknown refund and another tenant’s refund', async () => {
    const m = await paidPayment();
    const created = await refund(m.apikey, m.paymentId, { amount: 500 });
    const live = await newKey(m.accountId, 'live');
    for (const [apikey, id] of [
      [live, created.body.id],
      [m.apikey, 're_0190a3f2-1d2e-7f00-8a1b-2c3d4e5f6071'],
      [m.apikey, 'nope'],
      // Longer than a DynamoDB key may be: refused as no refund, never sent to the table (not a 500).
      [m.apikey, `re_${'a'.repeat(1100)}`],
      [(await merchant()).apikey, created.body.id],
    ] as const) {
      expectError(
        await api(`/v1/sandbox/refunds/${id}/fail`, { apikey, method: 'POST' }),
        404,
        'not_found_error',
        'not_found',
      );
    }
  });
});
