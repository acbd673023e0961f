/**
 * A merchant's integration written only with the SDK (`sdk/`), against the local runtime:
 * charge → sandbox Pix → webhooks verified with `webhooks.verify` (both schemes, across a secret
 * rotation) → refund → MED case with an evidence upload through `medCases.uploadEvidence`.
 * The only other helpers are the webhook receiver (a merchant's HTTP server), `eventually`, and
 * a fresh dashboard user for the key audit log (whose events no other file adds to).
 */

import { afterAll, describe, expect, it } from 'vitest';
import {
  type CanonicalEvent,
  InvalidRequestError,
  type LegacyEvent,
  NotFoundError,
  PixClient,
  responseOf,
  WebhookSignatureError,
} from '../../sdk/src/index.ts';
import { newMember } from '../helpers/accounts.ts';
import { eventually } from '../helpers/eventually.ts';
import { demo } from '../helpers/http.ts';
import { testBaseUrl } from '../helpers/local-env.ts';
import { type Received, receiverPool } from '../helpers/webhook-receiver.ts';

const pool = receiverPool();
const pix = () => new PixClient({ baseUrl: testBaseUrl, apiKey: demo().test_api_key });
const endpointsToDelete: string[] = [];

afterAll(async () => {
  await Promise.all(endpointsToDelete.map((id) => pix().webhookEndpoints.del(id)));
});

const eventType = (r: Received) => r.headers['x-acme-event-type'];
const json = (r: Received) => JSON.parse(r.body) as Record<string, any>;

/** A small real PNG (1×1), as a merchant would upload a screenshot. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

describe('the SDK against the local runtime', () => {
  it('charges, receives verified webhooks, refunds and answers a MED case with evidence', async () => {
    const client = pix();
    const { receiver, url } = await pool.start();
    const endpoint = await client.webhookEndpoints.create({
      url,
      events: ['charge.paid', 'payment.completed', 'payment.refunded', 'med_case.created'],
    });
    endpointsToDelete.push(endpoint.id);
    expect(endpoint.secret).toMatch(/^[0-9a-f]{64}$/);

    // Charge and pay it in the sandbox.
    const charge = await client.charges.create({ amount: 10_000, description: 'SDK flow' });
    expect(charge).toMatchObject({
      object: 'charge',
      status: 'pending',
      metadata: { description: 'SDK flow' },
    });
    const payment = await client.sandbox.pay(charge.id, { payer_document: '52998224725' });
    expect(payment).toMatchObject({ outcome: 'paid', charge: { id: charge.id, status: 'paid' } });

    // Both signature schemes verify with the endpoint's secret.
    const paidDelivery = (
      await receiver.waitFor(
        1,
        20_000,
        (r) => eventType(r) === 'charge.paid' && json(r).data.object.id === charge.id,
      )
    )[0] as Received;
    const paidEvent = client.webhooks.verify(paidDelivery.body, paidDelivery.headers, [endpoint.secret]);
    expect(paidEvent as CanonicalEvent).toMatchObject({
      type: 'charge.paid',
      data: { object: { status: 'paid' } },
    });
    const rawId = charge.id.replace(/^ch_/, '');
    const completedDelivery = (
      await receiver.waitFor(
        1,
        20_000,
        (r) => eventType(r) === 'payment.completed' && json(r).data.transactionId === rawId,
      )
    )[0] as Received;
    expect(completedDelivery.headers['x-acme-signature']).toMatch(/^sha256=/);
    const completed = client.webhooks.verify(
      completedDelivery.body,
      completedDelivery.headers,
      endpoint.secret,
    );
    expect((completed as LegacyEvent).data.status).toBe('PAID');
    expect(() => client.webhooks.verify(paidDelivery.body, paidDelivery.headers, ['0'.repeat(64)])).toThrow(
      WebhookSignatureError,
    );

    // Rotate the secret; later deliveries verify with the old and new secrets together, not the old alone.
    const rotated = await client.webhookEndpoints.rotateSecret(endpoint.id);
    const secrets = [endpoint.secret, rotated.secret];

    // A partial refund; the same idempotency key replays the same refund.
    const refundKey = `sdk-flow-refund-${rawId}`;
    const refund = await client.payments.refunds.create(charge.id, {
      amount: 2_500,
      reason: 'SDK flow partial refund',
      idempotencyKey: refundKey,
    });
    expect(refund).toMatchObject({ transactionId: rawId, amount: 2_500, currency: 'BRL' });
    const replay = await client.payments.refunds.create(charge.id, {
      amount: 2_500,
      reason: 'SDK flow partial refund',
      idempotencyKey: refundKey,
    });
    expect(replay.id).toBe(refund.id);
    await eventually(
      async () => {
        const { data } = await client.payments.refunds.list(charge.id);
        expect(data.find((r) => r.id === refund.id)?.status).toBe('REFUNDED');
      },
      { timeoutMs: 20_000, message: 'the sandbox refund to complete' },
    );
    const refundedDelivery = (
      await receiver.waitFor(
        1,
        20_000,
        (r) =>
          eventType(r) === 'payment.refunded' &&
          json(r).data.transactionId === rawId &&
          json(r).data.refund?.status === 'REFUNDED',
      )
    )[0] as Received;
    const refundedEvent = client.webhooks.verify(refundedDelivery.body, refundedDelivery.headers, secrets);
    expect((refundedEvent as LegacyEvent).data).toMatchObject({
      transactionId: rawId,
      refund: { id: refund.id },
    });
    expect(() =>
      client.webhooks.verify(refundedDelivery.body, refundedDelivery.headers, [endpoint.secret]),
    ).toThrow(WebhookSignatureError);
    expect((await client.payments.retrieve(rawId)).status).toBe('PAID');

    // The payer's bank opens a MED case; the merchant sends evidence in one call.
    const medCase = await client.sandbox.openMedCase(charge.id, {
      method: 'scam',
      reason: 'Payer reports a scam',
    });
    expect(medCase).toMatchObject({
      object: 'med_case',
      status: 'open',
      charge_id: charge.id,
      evidence_count: 0,
    });
    const medDelivery = (
      await receiver.waitFor(
        1,
        20_000,
        (r) => eventType(r) === 'med_case.created' && json(r).data.object.id === medCase.id,
      )
    )[0] as Received;
    expect(
      (client.webhooks.verify(medDelivery.body, medDelivery.headers, secrets) as CanonicalEvent).type,
    ).toBe('med_case.created');
    expect((await client.charges.retrieve(charge.id)).status).toBe('disputed');

    const evidence = await client.medCases.uploadEvidence(medCase.id, PNG, {
      fileName: 'pix-receipt.png',
      mimeType: 'image/png',
    });
    expect(evidence).toMatchObject({
      object: 'med_case_evidence',
      file_name: 'pix-receipt.png',
      file_size: PNG.length,
      mime_type: 'image/png',
      uploaded_by: 'merchant',
    });
    expect(evidence.uploaded_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const download = await fetch(evidence.view_url);
    expect(Buffer.from(await download.arrayBuffer()).equals(PNG)).toBe(true);
    expect((await client.medCases.retrieve(medCase.id)).evidence_count).toBe(1);
    expect((await client.medCases.listEvidence(medCase.id)).data.map((e) => e.id)).toEqual([evidence.id]);

    const appealed = await client.medCases.appeal(
      medCase.id,
      'The payer received the goods; receipt attached.',
    );
    expect(appealed).toMatchObject({ status: 'appealed', evidence_count: 1 });
    const listed = [];
    for await (const c of client.medCases.listAll({ charge_id: charge.id })) listed.push(c.id);
    expect(listed).toEqual([medCase.id]);
  }, 120_000);

  it('raises the typed error of the envelope, with its code, param and request id', async () => {
    const client = pix();
    const missing = await client.charges.retrieve('ch_01936f4e-0000-7000-8000-000000000000').catch((e) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({
      statusCode: 404,
      code: 'not_found',
      requestId: expect.stringMatching(/\S/),
    });

    const invalid = await client.charges.create({ amount: -1 }).catch((e) => e);
    expect(invalid).toBeInstanceOf(InvalidRequestError);
    expect(invalid).toMatchObject({ statusCode: 400, param: 'amount' });
  });

  it('walks the key audit log with auditLogAll, page by page, each event once', async () => {
    const owner = await newMember('OWNER');
    const client = new PixClient({ baseUrl: testBaseUrl, token: owner.token });
    for (let i = 0; i < 5; i++) await client.apiKeys.create({ test: true, label: `audit ${i}` });
    const walked = [];
    for await (const event of client.apiKeys.auditLogAll({ limit: 2 })) walked.push(event);
    expect(walked).toHaveLength(5);
    expect(walked).toEqual((await client.apiKeys.auditLog({ limit: 100 })).data);
  });

  it('reuses an idempotency key given by the caller: the same charge comes back, marked replayed', async () => {
    const client = pix();
    const key = `sdk-flow-${Date.now()}`;
    const first = await client.charges.create({ amount: 1_234 }, { idempotencyKey: key });
    const again = await client.charges.create({ amount: 1_234 }, { idempotencyKey: key });
    expect(again.id).toBe(first.id);
    // The answers' headers, through responseOf: the first did the work, the second replayed it.
    expect(responseOf(first)).toMatchObject({ statusCode: 201, idempotentReplayed: false, retries: 0 });
    expect(responseOf(again)).toMatchObject({ statusCode: 201, idempotentReplayed: true });
    expect(responseOf(again)?.requestId).toMatch(/\S/);
    expect(responseOf(again)?.requestId).not.toBe(responseOf(first)?.requestId);
    const conflict = await client.charges.create({ amount: 4_321 }, { idempotencyKey: key }).catch((e) => e);
    expect(conflict).toMatchObject({ name: 'ConflictError', code: 'idempotency_key_reused' });
  });
});
