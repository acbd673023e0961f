/**
 * `POST /v1/payments/{id}/cancel` (Part 2) over HTTP: WAITING_PAYMENT, PENDING or PROCESSING →
 * CANCELLED with `metadata.failure`, the acquirer's charge withdrawn first (503 with nothing
 * changed while it is down), the failure events, the live-charge counter released, and a Pix
 * arriving afterwards returned to the payer, never credited.
 */

import { beforeAll, describe, expect, it } from 'vitest';
import { listRefunds } from '../../shared/store/refunds.ts';
import {
  balance,
  createCharge,
  expire,
  getCharge,
  merchant,
  newCharge,
  newIdempotencyKey,
  pay,
  payerLockedCharge,
  rawId,
  setStoredCharge,
  storedEvents,
} from '../helpers/charges.ts';
import { eventually } from '../helpers/eventually.ts';
import { type ApiReply, api, expectError } from '../helpers/http.ts';
import { openMed } from '../helpers/med.ts';
import { requestLogRecord, runtimeLogRecords } from '../helpers/runtime-log.ts';
import { receiverPool } from '../helpers/webhook-receiver.ts';

const receiver = receiverPool().start;

const cancel = (apikey: string, id: string) => api(`/v1/payments/${id}/cancel`, { apikey, method: 'POST' });
const getPayment = (apikey: string, id: string) => api(`/v1/payments/${id}`, { apikey });

async function createPayment(apikey: string, body: Record<string, unknown> = {}) {
  const reply = await api('/v1/payments', {
    apikey,
    body: { amount: 3100, paymentMethods: ['PIX'], idempotencyKey: newIdempotencyKey(), ...body },
  });
  if (reply.status !== 201) throw new Error(JSON.stringify(reply.body));
  return reply.body as { id: string; createdAt: string };
}

const expectNotCancellable = (reply: ApiReply) =>
  expectError(reply, 400, 'invalid_request_error', 'payment_not_cancellable');

/** The charge's refunds: a returned Pix is an automatic devolution among them. */
const refundsOf = (accountId: string, id: string) => listRefunds({ accountId, mode: 'test' }, id);

let m: { accountId: string; apikey: string };
beforeAll(async () => {
  m = await merchant();
});

describe('cancelling a payment awaiting payment', () => {
  it('answers 200 with the cancelled transaction in the GET shape, with metadata.failure', async () => {
    const created = await createPayment(m.apikey, { metadata: { orderId: 'C-1' } });
    const reply = await cancel(m.apikey, created.id);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual((await getPayment(m.apikey, created.id)).body);
    expect(reply.body).toMatchObject({
      id: created.id,
      status: 'CANCELLED',
      paidAt: null,
      paidWith: null,
      metadata: {
        orderId: 'C-1',
        failure: {
          reason: expect.any(String),
          providerErrorCode: 'canceled',
          ttlSeconds: expect.any(Number),
          at: expect.any(String),
        },
      },
    });
    expect(Date.parse(reply.body.metadata.failure.at)).toBeGreaterThanOrEqual(Date.parse(created.createdAt));
    expect((await getCharge(m.apikey, `ch_${created.id}`)).body.status).toBe('cancelled');
  });

  it('withdraws the charge at the acquirer (PATCH /cob/{txid})', async () => {
    const charge = await newCharge(m.apikey);
    expect((await cancel(m.apikey, rawId(charge.id))).status).toBe(200);
    await eventually(
      () =>
        expect(
          runtimeLogRecords().filter((r) => r.message === 'provider.cancelCob' && r.txid === charge.pix.txid),
        ).toHaveLength(1),
      { message: 'the cancelCob call in the runtime log' },
    );
  });

  it('emits charge.failed, payment.failed and payment.status_changed, delivered to subscribers', async () => {
    const fresh = await merchant();
    const { receiver: r, url } = await receiver();
    await api('/v1/webhooks/endpoints', {
      apikey: fresh.apikey,
      body: { url, events: ['charge.failed', 'payment.failed', 'payment.status_changed'] },
    });
    const created = await createPayment(fresh.apikey);
    expect((await cancel(fresh.apikey, created.id)).status).toBe(200);
    const types = (await storedEvents(fresh.accountId, created.id)).map((e) => e.eventType).sort();
    expect(types).toEqual([
      'charge.created',
      'charge.failed',
      'payment.created',
      'payment.failed',
      'payment.status_changed',
    ]);
    const got = await r.waitFor(3);
    const bodies = got.map((g) => JSON.parse(g.body));
    expect(bodies.find((b) => b.type === 'charge.failed')?.data.object).toMatchObject({
      id: `ch_${created.id}`,
      status: 'cancelled',
    });
    for (const event of ['payment.failed', 'payment.status_changed'])
      expect(bodies.find((b) => b.event === event)?.data).toMatchObject({
        transactionId: created.id,
        status: 'CANCELLED',
        previousStatus: 'WAITING_PAYMENT',
      });
  });

  it('frees its place under the live-charge limit', async () => {
    const fresh = await merchant({ settings: { velocity: { accountMaxPending: 1 } } });
    const first = await newCharge(fresh.apikey);
    expectError(await createCharge(fresh.apikey), 403, 'permission_error', 'fraud.account_velocity_exceeded');
    expect((await cancel(fresh.apikey, rawId(first.id))).status).toBe(200);
    expect((await createCharge(fresh.apikey)).status).toBe(201);
  });

  it('returns a Pix that arrives after the cancel to the payer, never crediting it', async () => {
    const fresh = await merchant();
    const created = await createPayment(fresh.apikey, { amount: 4321 });
    expect((await cancel(fresh.apikey, created.id)).status).toBe(200);
    const late = await pay(fresh.apikey, `ch_${created.id}`);
    expect(late.status).toBe(200);
    expect(late.body).toMatchObject({ outcome: 'returned', return_reason: 'not_payable' });
    expect(late.body.charge.status).toBe('cancelled');
    expect((await getPayment(fresh.apikey, created.id)).body.status).toBe('CANCELLED');
    expect(await balance(fresh.apikey)).toMatchObject({ available: 0, pending: 0 });
    expect(await refundsOf(fresh.accountId, created.id)).toEqual([
      expect.objectContaining({
        automatic: true,
        strategy: 'devolution',
        amount: 4321,
        endToEndId: late.body.end_to_end_id,
        reason: 'not_payable',
      }),
    ]);
  });
});

describe('cancelling a payment held for review (PROCESSING)', () => {
  it('cancels it and returns the held Pix to the payer by devolution, never crediting it', async () => {
    const fresh = await merchant();
    const charge = await payerLockedCharge(fresh.apikey);
    const held = await pay(fresh.apikey, charge.id);
    expect(held.body.outcome).toBe('held_for_review');
    const reply = await cancel(fresh.apikey, rawId(charge.id));
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      status: 'CANCELLED',
      metadata: { failure: { providerErrorCode: 'canceled' } },
    });
    expect(await balance(fresh.apikey)).toMatchObject({ available: 0, pending: 0 });
    expect(await refundsOf(fresh.accountId, rawId(charge.id))).toEqual([
      expect.objectContaining({
        automatic: true,
        strategy: 'devolution',
        amount: 2000,
        endToEndId: held.body.end_to_end_id,
        reason: 'cancelled',
      }),
    ]);
    // The devolution was requested; a paid cob is not withdrawn (the money already arrived). The
    // request's own log record is written after every line the request logged: once it is there,
    // a cancelCob line of this request would be too.
    await requestLogRecord(String(reply.headers.get('x-request-id')));
    const records = runtimeLogRecords();
    expect(
      records.filter(
        (r) => r.message === 'provider.requestDevolution' && r.endToEndId === held.body.end_to_end_id,
      ),
    ).toHaveLength(1);
    expect(records.filter((r) => r.message === 'provider.cancelCob' && r.txid === charge.pix.txid)).toEqual(
      [],
    );
  });
});

describe('a payment that cannot be cancelled', () => {
  it('refuses a PAID payment with payment_not_cancellable, pointing to a refund', async () => {
    const created = await createPayment(m.apikey);
    expect((await pay(m.apikey, `ch_${created.id}`)).body.outcome).toBe('paid');
    const reply = await cancel(m.apikey, created.id);
    expectNotCancellable(reply);
    expect(reply.body.error.message).toMatch(/refund/i);
    expect((await getPayment(m.apikey, created.id)).body.status).toBe('PAID');
  });

  it('refuses an EXPIRED payment and an already CANCELLED one', async () => {
    const expired = await createPayment(m.apikey);
    expect((await expire(m.apikey, `ch_${expired.id}`)).status).toBe(200);
    expectNotCancellable(await cancel(m.apikey, expired.id));
    expect((await getPayment(m.apikey, expired.id)).body.status).toBe('EXPIRED');

    const cancelled = await createPayment(m.apikey);
    expect((await cancel(m.apikey, cancelled.id)).status).toBe(200);
    expectNotCancellable(await cancel(m.apikey, cancelled.id));
  });

  it('refuses a WAITING_PAYMENT payment past its expiry (it reads EXPIRED) before the scheduler records it', async () => {
    const created = await createPayment(m.apikey);
    // The window closed a second ago; the scheduler has not run over it (its queue entry keeps
    // the original time), so only the read decides.
    await setStoredCharge(m.accountId, created.id, { expiresAt: new Date(Date.now() - 1000).toISOString() });
    const reply = await cancel(m.apikey, created.id);
    expectNotCancellable(reply);
    expect(reply.body.error.message).toMatch(/EXPIRED/);
  });

  it('refuses a disputed payment', async () => {
    const created = await createPayment(m.apikey);
    await pay(m.apikey, `ch_${created.id}`);
    // The payer's bank opens a MED case (sandbox): the transaction is DISPUTE while it is open.
    expect((await openMed(m.apikey, `ch_${created.id}`)).status).toBe(201);
    const reply = await cancel(m.apikey, created.id);
    expectNotCancellable(reply);
    expect(reply.body.error.message).toMatch(/disputed/i);
  });

  it('answers 404 for an unknown id, a malformed id and another account’s payment', async () => {
    const created = await createPayment(m.apikey);
    const other = await merchant();
    for (const [apikey, id] of [
      [m.apikey, '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b'],
      [m.apikey, 'not-an-id'],
      [other.apikey, created.id],
    ] as const)
      expectError(await cancel(apikey, id), 404, 'not_found_error', 'not_found');
    expect((await getPayment(m.apikey, created.id)).body.status).toBe('WAITING_PAYMENT');
  });
});

describe('while the acquirer is down', () => {
  it('answers 503 service_unavailable and changes nothing; the cancel succeeds once it is up', async () => {
    const fresh = await merchant();
    const created = await createPayment(fresh.apikey);
    await api('/v1/sandbox/acquirer', { apikey: fresh.apikey, body: { status: 'down' } });
    const reply = await cancel(fresh.apikey, created.id);
    expect(reply.status).toBe(503);
    expect(reply.body.error.code).toBe('service_unavailable');
    expect((await getPayment(fresh.apikey, created.id)).body).toMatchObject({
      status: 'WAITING_PAYMENT',
      metadata: {},
    });
    expect((await storedEvents(fresh.accountId, created.id)).map((e) => e.eventType).sort()).toEqual([
      'charge.created',
      'payment.created',
    ]);

    await api('/v1/sandbox/acquirer', { apikey: fresh.apikey, body: { status: 'up' } });
    expect((await cancel(fresh.apikey, created.id)).body.status).toBe('CANCELLED');
  });
});
