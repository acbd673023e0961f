/**
 * `POST /v1/payments` and `GET /v1/payments/{id}` (Part 2, transaction format) over HTTP: the
 * same charges as `/v1/charges`, in the transaction wire format.
 */

import { beforeAll, describe, expect, it } from 'vitest';
import { expire, getCharge, merchant, newCharge, newIdempotencyKey, pay, rawId } from '../helpers/charges.ts';
import { type ApiReply, api, expectError } from '../helpers/http.ts';

const createPayment = (apikey: string, body: Record<string, unknown>) =>
  api('/v1/payments', { apikey, body });
const validPayment = (overrides: Record<string, unknown> = {}) => ({
  amount: 2590,
  paymentMethods: ['PIX'],
  idempotencyKey: newIdempotencyKey(),
  ...overrides,
});

function expectParam(reply: ApiReply, status: number, code: string, param: string): void {
  expectError(reply, status, 'invalid_request_error', code);
  expect(reply.body.error.param).toBe(param);
}

let m: { accountId: string; apikey: string };
beforeAll(async () => {
  m = await merchant();
});

describe('POST /v1/payments', () => {
  it('creates a Pix charge and answers with exactly the create shape', async () => {
    const reply = await createPayment(
      m.apikey,
      validPayment({
        currency: 'brl',
        customerId: 'user-42',
        customerName: 'Maria Silva',
        customerDocument: '529.982.247-25',
        customerEmail: 'maria@example.com',
        metadata: { orderId: 'A-1', returnUrl: 'https://shop.example/back' },
      }),
    );
    expect(reply.status).toBe(201);
    expect(Object.keys(reply.body).sort()).toEqual(
      [
        'id',
        'status',
        'amount',
        'currency',
        'paymentMethods',
        'customerName',
        'customerDocument',
        'customerEmail',
        'metadata',
        'createdAt',
      ].sort(),
    );
    expect(reply.body).toMatchObject({
      status: 'WAITING_PAYMENT',
      amount: 2590,
      currency: 'BRL',
      paymentMethods: ['PIX'],
      customerName: 'Maria Silva',
      customerDocument: '52998224725',
      customerEmail: 'maria@example.com',
      metadata: { orderId: 'A-1', returnUrl: 'https://shop.example/back' },
    });
    expect(reply.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/); // a UUIDv7
    // The same charge, in the charge format.
    const charge = await getCharge(m.apikey, `ch_${reply.body.id}`);
    expect(charge.status).toBe(200);
    expect(charge.body).toMatchObject({ amount: 2590, status: 'pending', customer: { name: 'Maria Silva' } });
  });

  it('replays the original for the same idempotencyKey and body, and refuses another body', async () => {
    const body = validPayment({ customerName: 'Ana' });
    const first = await createPayment(m.apikey, body);
    const again = await createPayment(m.apikey, body);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const other = await createPayment(m.apikey, { ...body, amount: 2591 });
    expectError(other, 409, 'conflict_error', 'idempotency_key_reused');
    // The key came in the body here, not in a header.
    expect(other.body.error.param).toBe('idempotencyKey');
  });

  it('refuses an Idempotency-Key header that differs from the body key, writing nothing; the same key in both is accepted', async () => {
    const body = validPayment();
    const headerKey = newIdempotencyKey();
    const differ = await api('/v1/payments', {
      apikey: m.apikey,
      body,
      headers: { 'idempotency-key': headerKey },
    });
    expectParam(differ, 400, 'invalid_request', 'Idempotency-Key');
    const message =
      "The Idempotency-Key header differs from the body's idempotencyKey: this route reads its key from the body only. Send the same key in both, or only idempotencyKey.";
    expect(differ.body.error.message).toBe(message);
    expect(differ.body.error.details).toEqual([{ param: 'Idempotency-Key', message }]);
    // Nothing was stored under either key: each creates its own payment, neither a replay.
    const bodyOnly = await createPayment(m.apikey, body);
    expect(bodyOnly.status).toBe(201);
    expect(bodyOnly.headers.get('idempotent-replayed')).toBeNull();
    const headerAsBody = await createPayment(m.apikey, { ...body, idempotencyKey: headerKey });
    expect(headerAsBody.status).toBe(201);
    expect(headerAsBody.headers.get('idempotent-replayed')).toBeNull();
    expect(headerAsBody.body.id).not.toBe(bodyOnly.body.id);

    const same = validPayment();
    const both = await api('/v1/payments', {
      apikey: m.apikey,
      body: same,
      headers: { 'idempotency-key': same.idempotencyKey },
    });
    expect(both.status).toBe(201);
    // The one key it was stored under: the body's alone replays it.
    const replay = await createPayment(m.apikey, same);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.id).toBe(both.body.id);
  });

  it('keeps a tax id that is not a CPF or CNPJ as sent, and nulls what was not sent', async () => {
    const reply = await createPayment(m.apikey, validPayment({ customerDocument: 'PT 123456789' }));
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      customerDocument: 'PT 123456789',
      customerName: null,
      customerEmail: null,
    });
    expect(reply.body.metadata).toEqual({});
  });

  it.each([
    ['idempotencyKey', { idempotencyKey: undefined }],
    ['idempotencyKey', { idempotencyKey: 'short' }],
    ['paymentMethods', { paymentMethods: [] }],
    ['paymentMethods.0', { paymentMethods: ['PAYPAL'] }],
    ['currency', { currency: 'EU' }],
    ['customerEmail', { customerEmail: 'not an e-mail' }],
    ['metadata.phone', { paymentMethods: ['PIX', 'MBWAY'] }],
    ['metadata.phone', { paymentMethods: ['MBWAY'], metadata: { phone: '912345678' } }],
    ['metadata', { metadata: ['a', 'b'] }],
    ['webhookUrl', { webhookUrl: 'http://10.0.0.7/hook' }],
    ['webhookUrl', { webhookUrl: 'not a url' }],
    ['surprise', { surprise: true }],
  ])('answers 400 on %s for %j', async (param, overrides) => {
    const reply = await createPayment(m.apikey, validPayment(overrides));
    expectParam(reply, 400, 'invalid_request', param);
  });

  it('says a missing idempotencyKey is required', async () => {
    const reply = await createPayment(m.apikey, validPayment({ idempotencyKey: undefined }));
    expectParam(reply, 400, 'invalid_request', 'idempotencyKey');
    expect(reply.body.error.message).toBe('idempotencyKey is required.');
  });

  it.each([0, 10.5, '100'])('answers 400 invalid_amount for amount %j', async (amount) => {
    expectParam(await createPayment(m.apikey, validPayment({ amount })), 400, 'invalid_amount', 'amount');
  });

  it('answers 422 when the payment methods do not include PIX, or the currency is not BRL', async () => {
    expectParam(
      await createPayment(m.apikey, validPayment({ paymentMethods: ['CREDIT_CARD', 'BOLETO'] })),
      422,
      'unprocessable_entity',
      'paymentMethods',
    );
    expectParam(
      await createPayment(m.apikey, validPayment({ currency: 'EUR' })),
      422,
      'unprocessable_entity',
      'currency',
    );
  });

  it('needs the override signing secret before it accepts a webhookUrl', async () => {
    const fresh = await merchant();
    const url = 'http://127.0.0.1:9/hook';
    expectParam(
      await createPayment(fresh.apikey, validPayment({ webhookUrl: url })),
      400,
      'invalid_request',
      'webhookUrl',
    );
    const rotated = await api('/v1/webhooks/override-secret/rotate', {
      apikey: fresh.apikey,
      method: 'POST',
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^[0-9a-f]{64}$/);
    const again = await api('/v1/webhooks/override-secret/rotate', { apikey: fresh.apikey, method: 'POST' });
    expect(again.body.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(again.body.secret).not.toBe(rotated.body.secret);
    expect((await createPayment(fresh.apikey, validPayment({ webhookUrl: url }))).status).toBe(201);
  });

  it('requires an API key', async () => {
    expectError(
      await api('/v1/payments', { body: validPayment() }),
      401,
      'authentication_error',
      'unauthorized',
    );
  });
});

describe('GET /v1/payments/{id}', () => {
  it('shows the Pix fields while waiting, and settlement and fees once paid', async () => {
    const created = (await createPayment(m.apikey, validPayment({ amount: 10_000 }))).body;
    const waiting = await api(`/v1/payments/${created.id}`, { apikey: m.apikey });
    expect(waiting.status).toBe(200);
    const charge = (await getCharge(m.apikey, `ch_${created.id}`)).body;
    expect(waiting.body).toMatchObject({
      ...created,
      paidWith: null,
      providerFee: null,
      platformFee: null,
      netAmount: null,
      paidAt: null,
      pixCopyPaste: charge.pix.br_code,
      pixExpiresAt: charge.pix.expires_at,
      cardRedirectUrl: null,
      mbEntity: null,
      boletoBarcode: null,
      cryptoAddress: null,
    });
    expect(waiting.body.pixQrCode).toBe(`data:image/png;base64,${charge.pix.qr_code_base64}`);

    expect((await pay(m.apikey, `ch_${created.id}`)).status).toBe(200);
    const paid = (await api(`/v1/payments/${created.id}`, { apikey: m.apikey })).body;
    expect(paid).toMatchObject({ status: 'PAID', paidWith: 'PIX' });
    expect(paid.providerFee + paid.platformFee).toBeGreaterThan(0);
    expect(paid.netAmount).toBe(10_000 - paid.providerFee - paid.platformFee);
    expect(Date.parse(paid.paidAt)).toBeGreaterThanOrEqual(Date.parse(created.createdAt));
  });

  it('shows a charge created through /v1/charges, by its raw id', async () => {
    const charge = await newCharge(m.apikey, { amount: 777 });
    const reply = await api(`/v1/payments/${rawId(charge.id)}`, { apikey: m.apikey });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      id: rawId(charge.id),
      amount: 777,
      status: 'WAITING_PAYMENT',
      paymentMethods: ['PIX'],
    });
  });

  it('reports why an expired payment failed in metadata.failure', async () => {
    const created = (await createPayment(m.apikey, validPayment({ metadata: { orderId: 'B-2' } }))).body;
    expect((await expire(m.apikey, `ch_${created.id}`)).status).toBe(200);
    const reply = await api(`/v1/payments/${created.id}`, { apikey: m.apikey });
    expect(reply.body.status).toBe('EXPIRED');
    expect(reply.body.metadata).toMatchObject({
      orderId: 'B-2',
      failure: { providerErrorCode: 'expired', reason: expect.any(String), at: expect.any(String) },
    });
  });

  it("answers 404 for another account's payment and for a malformed id", async () => {
    const created = (await createPayment(m.apikey, validPayment())).body;
    const other = await merchant();
    expectError(
      await api(`/v1/payments/${created.id}`, { apikey: other.apikey }),
      404,
      'not_found_error',
      'not_found',
    );
    expectError(
      await api('/v1/payments/not-an-id', { apikey: m.apikey }),
      404,
      'not_found_error',
      'not_found',
    );
  });
});
