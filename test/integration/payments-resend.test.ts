/**
 * `POST /v1/payments/{id}/resend-webhook` (Part 2) over HTTP: the transaction's current status
 * re-emitted as a NEW event (new event id, so a new delivery id) through the real outbox, queue
 * and dispatcher, to the subscribed endpoints and to the payment's `webhookUrl`.
 */

import { beforeAll, describe, expect, it } from 'vitest';
import { deliveryIdFor } from '../../shared/domain/webhook-deliveries.ts';
import { merchant, newIdempotencyKey, pay, storedEvents } from '../helpers/charges.ts';
import { eventually } from '../helpers/eventually.ts';
import { api, expectError } from '../helpers/http.ts';
import { type Received, receiverPool } from '../helpers/webhook-receiver.ts';
import { verifyAcmeSignature } from '../helpers/webhook-verifier.ts';

const receiver = receiverPool().start;

const resend = (apikey: string, id: string) =>
  api(`/v1/payments/${id}/resend-webhook`, { apikey, method: 'POST' });

async function createPayment(apikey: string, body: Record<string, unknown> = {}) {
  const reply = await api('/v1/payments', {
    apikey,
    body: { amount: 5150, paymentMethods: ['PIX'], idempotencyKey: newIdempotencyKey(), ...body },
  });
  if (reply.status !== 201) throw new Error(JSON.stringify(reply.body));
  return reply.body as { id: string };
}

async function endpoint(apikey: string, url: string, events: string[]) {
  const reply = await api('/v1/webhooks/endpoints', { apikey, body: { url, events } });
  if (reply.status !== 201) throw new Error(JSON.stringify(reply.body));
  return reply.body as { id: string; secret: string };
}

const bodyOf = (r: Received) => JSON.parse(r.body);
const deliveryIdOf = (r: Received) => String(r.headers['x-acme-delivery-id']);

/** The stored ids of the payment's `type` events, oldest first. */
const eventIds = async (accountId: string, id: string, type: string) =>
  (await storedEvents(accountId, id)).filter((e) => e.eventType === type).map((e) => String(e.id));

describe('resending a paid payment to a subscribed endpoint', () => {
  let m: { accountId: string; apikey: string };
  let ep: { id: string; secret: string };
  let payment: { id: string };
  let received: Received[];

  beforeAll(async () => {
    m = await merchant();
    const made = await receiver();
    ep = await endpoint(m.apikey, made.url, ['payment.created', 'payment.completed']);
    payment = await createPayment(m.apikey, { customerId: 'user-9' });
    expect((await pay(m.apikey, `ch_${payment.id}`)).body.outcome).toBe('paid');
    // The original deliveries first, so the resend's is told apart by arriving after them.
    await made.receiver.waitFor(2);
    received = made.receiver.received;
  });

  it('answers resent true with the status, and a new delivery of a new event arrives', async () => {
    const [original] = await eventIds(m.accountId, payment.id, 'payment.completed');
    const originalRequest = received.find((r) => bodyOf(r).event === 'payment.completed');
    expect(originalRequest && deliveryIdOf(originalRequest)).toBe(
      deliveryIdFor(String(original), { endpointId: ep.id }),
    );

    const reply = await resend(m.apikey, payment.id);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ resent: true, status: 'PAID' });

    const request = await eventually(
      () => {
        const [again] = received.slice(2);
        expect(again).toBeDefined();
        return again as Received;
      },
      { message: 'the resent delivery' },
    );
    const ids = await eventIds(m.accountId, payment.id, 'payment.completed');
    expect(ids).toHaveLength(2);
    const fresh = ids.find((id) => id !== original);
    expect(fresh).toBeDefined();
    // A new event: a new delivery id (derived from event and endpoint), the same signing.
    expect(deliveryIdOf(request)).toBe(deliveryIdFor(String(fresh), { endpointId: ep.id }));
    expect(deliveryIdOf(request)).not.toBe(deliveryIdOf(originalRequest as Received));
    expect(request.headers['x-acme-event-type']).toBe('payment.completed');
    expect(verifyAcmeSignature(String(request.headers['x-acme-signature']), request.body, ep.secret)).toBe(
      true,
    );
    expect(bodyOf(request)).toMatchObject({
      event: 'payment.completed',
      data: {
        transactionId: payment.id,
        status: 'PAID',
        previousStatus: 'PAID',
        paidWith: 'PIX',
        customerId: 'user-9',
      },
    });
    expect(bodyOf(request).data.netAmount).toBe(bodyOf(originalRequest as Received).data.netAmount);
  });

  it('creates a new delivery on every call', async () => {
    const before = (await eventIds(m.accountId, payment.id, 'payment.completed')).length;
    expect((await resend(m.apikey, payment.id)).body.resent).toBe(true);
    const ids = await eventIds(m.accountId, payment.id, 'payment.completed');
    expect(ids).toHaveLength(before + 1);
    await eventually(() =>
      expect(new Set(received.map(deliveryIdOf))).toContain(
        deliveryIdFor(String(ids.at(-1)), { endpointId: ep.id }),
      ),
    );
    expect(new Set(received.map(deliveryIdOf)).size).toBe(received.length);
  });
});

describe('resending a payment with a webhookUrl', () => {
  it('delivers it there, signed with the override secret, even with no endpoint', async () => {
    const m = await merchant();
    const secret = (await api('/v1/webhooks/override-secret/rotate', { apikey: m.apikey, method: 'POST' }))
      .body.secret as string;
    const { receiver: r, url } = await receiver();
    const payment = await createPayment(m.apikey, { webhookUrl: url });
    const [original] = await r.waitFor(1);
    expect(bodyOf(original as Received).event).toBe('payment.created');

    expect((await resend(m.apikey, payment.id)).body).toEqual({ resent: true, status: 'WAITING_PAYMENT' });
    const [, again] = await r.waitFor(2);
    const request = again as Received;
    expect(deliveryIdOf(request)).not.toBe(deliveryIdOf(original as Received));
    expect(verifyAcmeSignature(String(request.headers['x-acme-signature']), request.body, secret)).toBe(true);
    expect(bodyOf(request)).toMatchObject({
      event: 'payment.created',
      data: { transactionId: payment.id, status: 'WAITING_PAYMENT', previousStatus: 'WAITING_PAYMENT' },
    });
  });

  it('re-emits a cancelled payment as payment.failed', async () => {
    const m = await merchant();
    await api('/v1/webhooks/override-secret/rotate', { apikey: m.apikey, method: 'POST' });
    const { receiver: r, url } = await receiver();
    const payment = await createPayment(m.apikey, { webhookUrl: url });
    expect(
      (await api(`/v1/payments/${payment.id}/cancel`, { apikey: m.apikey, method: 'POST' })).status,
    ).toBe(200);
    // payment.created, then the cancel's payment.failed and payment.status_changed.
    await r.waitFor(3);
    expect((await resend(m.apikey, payment.id)).body).toEqual({ resent: true, status: 'CANCELLED' });
    const got = await r.waitFor(2, 15_000, (req) => bodyOf(req).event === 'payment.failed');
    expect(new Set(got.map(deliveryIdOf)).size).toBe(2);
    expect(bodyOf(got[1] as Received).data).toMatchObject({
      status: 'CANCELLED',
      previousStatus: 'CANCELLED',
    });
  });
});

describe('a payment with nowhere to send', () => {
  it('answers resent false and writes nothing, with no endpoint and no webhookUrl', async () => {
    const m = await merchant();
    const payment = await createPayment(m.apikey);
    const before = await storedEvents(m.accountId, payment.id);
    expect((await resend(m.apikey, payment.id)).body).toEqual({ resent: false, status: 'WAITING_PAYMENT' });
    expect(await storedEvents(m.accountId, payment.id)).toEqual(before);
  });

  it('answers resent false when no endpoint subscribes to the status’s event', async () => {
    const m = await merchant();
    const { url } = await receiver();
    await endpoint(m.apikey, url, ['charge.paid', 'payment.completed']);
    const payment = await createPayment(m.apikey);
    expect((await resend(m.apikey, payment.id)).body).toEqual({ resent: false, status: 'WAITING_PAYMENT' });
    expect((await storedEvents(m.accountId, payment.id)).map((e) => e.eventType).sort()).toEqual([
      'charge.created',
      'payment.created',
    ]);
  });
});

describe('an unknown payment', () => {
  it('answers 404 for an unknown id, a malformed id and another account’s payment', async () => {
    const m = await merchant();
    const other = await merchant();
    const payment = await createPayment(m.apikey);
    for (const [apikey, id] of [
      [m.apikey, '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b'],
      [m.apikey, 'nope'],
      [other.apikey, payment.id],
    ] as const)
      expectError(await resend(apikey, id), 404, 'not_found_error', 'not_found');
  });
});
