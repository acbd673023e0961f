/**
 * A payment's `webhookUrl`: its legacy events go there too, signed with the account's override
 * secret, through the same outbox, queue and dispatcher as endpoint deliveries.
 */

import { beforeAll, describe, expect, it } from 'vitest';
import { merchant, newIdempotencyKey, pay } from '../helpers/charges.ts';
import { eventually } from '../helpers/eventually.ts';
import { api } from '../helpers/http.ts';
import { type Receiver, receiverPool } from '../helpers/webhook-receiver.ts';
import { verifyAcmeSignature } from '../helpers/webhook-verifier.ts';

const receiver = receiverPool().start;

const rotateOverrideSecret = async (apikey: string): Promise<string> =>
  (await api('/v1/webhooks/override-secret/rotate', { apikey, method: 'POST' })).body.secret;

async function createPayment(apikey: string, body: Record<string, unknown>) {
  const reply = await api('/v1/payments', {
    apikey,
    body: { amount: 4200, paymentMethods: ['PIX'], idempotencyKey: newIdempotencyKey(), ...body },
  });
  if (reply.status !== 201) throw new Error(JSON.stringify(reply.body));
  return reply.body as { id: string };
}

const eventOf = (r: { body: string }) => JSON.parse(r.body).event ?? JSON.parse(r.body).type;
const deliveriesOf = async (apikey: string, query = '') =>
  (await api(`/v1/webhooks/deliveries?limit=100${query}`, { apikey })).body.data as any[];

describe('a payment with webhookUrl', () => {
  let m: { accountId: string; apikey: string };
  let override: Receiver;
  let overrideUrl: string;
  let endpointReceiver: Receiver;
  let secret: string;
  let endpointSecret: string;
  let payment: { id: string };

  beforeAll(async () => {
    m = await merchant();
    secret = await rotateOverrideSecret(m.apikey);
    const made = await receiver();
    override = made.receiver;
    overrideUrl = made.url;
    const other = await receiver();
    endpointReceiver = other.receiver;
    endpointSecret = (
      await api('/v1/webhooks/endpoints', {
        apikey: m.apikey,
        body: { url: other.url, events: ['payment.created', 'payment.completed', 'charge.paid'] },
      })
    ).body.secret;
    payment = await createPayment(m.apikey, { webhookUrl: made.url, customerId: 'user-7' });
    expect((await pay(m.apikey, `ch_${payment.id}`)).status).toBe(200);
  });

  it('receives only its legacy events, sha256-signed with the override secret, echoing customerId', async () => {
    // payment.status_changed too: the catch-all legacy alias of every status change.
    const got = await override.waitFor(3);
    // Positive control before "nothing else arrives (no charge.* events)". The outbox fans events
    // out in stream order, creating all of an event's deliveries before enqueuing any. The
    // endpoint's charge.paid and payment.completed deliveries come from the payment's last write
    // (paying it; charge.created was written before, at creation), so once both are stored every
    // event of the payment has been fanned out and no delivery of it can appear any more. Once
    // all of them are DELIVERED (terminal), every request they make has reached its receiver.
    const settled = await eventually(
      async () => {
        const all = await deliveriesOf(m.apikey);
        const atEndpoint = all.filter((d) => d.endpointId !== null).map((d) => d.eventType);
        expect(atEndpoint).toEqual(expect.arrayContaining(['charge.paid', 'payment.completed']));
        expect(all.filter((d) => d.status !== 'DELIVERED')).toEqual([]);
        return all;
      },
      { message: "the payment's deliveries all delivered" },
    );
    expect(
      settled
        .filter((d) => d.endpointId === null)
        .map((d) => d.eventType)
        .sort(),
    ).toEqual(['payment.completed', 'payment.created', 'payment.status_changed']);
    expect(override.received.map(eventOf).sort()).toEqual([
      'payment.completed',
      'payment.created',
      'payment.status_changed',
    ]);
    for (const request of override.received) {
      expect(request.headers['x-acme-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(verifyAcmeSignature(request.headers['x-acme-signature'] as string, request.body, secret)).toBe(
        true,
      );
      expect(
        verifyAcmeSignature(request.headers['x-acme-signature'] as string, request.body, endpointSecret),
      ).toBe(false);
      const body = JSON.parse(request.body);
      expect(body.data).toMatchObject({ transactionId: payment.id, customerId: 'user-7' });
      expect(request.headers['x-acme-event-type']).toBe(body.event);
    }
    expect(got.find((r) => eventOf(r) === 'payment.completed')).toBeDefined();
  });

  it('leaves the subscribed endpoint its own deliveries, with their own ids', async () => {
    const atEndpoint = await endpointReceiver.waitFor(3);
    expect(atEndpoint.map(eventOf).sort()).toEqual(['charge.paid', 'payment.completed', 'payment.created']);
    const overrideIds = new Set(override.received.map((r) => r.headers['x-acme-delivery-id']));
    for (const r of atEndpoint) expect(overrideIds.has(r.headers['x-acme-delivery-id'])).toBe(false);
  });

  it('lists the override deliveries with endpointId null and their url', async () => {
    const listed = await eventually(async () => {
      const toOverride = (await deliveriesOf(m.apikey)).filter((d) => d.endpointId === null);
      expect(toOverride).toHaveLength(3);
      for (const d of toOverride) expect(d.status).toBe('DELIVERED');
      return toOverride;
    });
    for (const d of listed) {
      expect(d.url).toBe(overrideUrl);
      expect(d.payload.data.transactionId).toBe(payment.id);
    }
  });

  it('signs with the new secret right after a rotation', async () => {
    const next = await createPayment(m.apikey, { webhookUrl: overrideUrl });
    const rotated = await rotateOverrideSecret(m.apikey);
    expect((await pay(m.apikey, `ch_${next.id}`)).status).toBe(200);
    const completed = await override.waitFor(
      1,
      15_000,
      (r) => JSON.parse(r.body).data.transactionId === next.id && eventOf(r) === 'payment.completed',
    );
    const request = completed[0] as { headers: Record<string, unknown>; body: string };
    expect(verifyAcmeSignature(request.headers['x-acme-signature'] as string, request.body, rotated)).toBe(
      true,
    );
    expect(verifyAcmeSignature(request.headers['x-acme-signature'] as string, request.body, secret)).toBe(
      false,
    );
  });
});
