import { beforeAll, describe, expect, it } from 'vitest';
import { parseCreateCharge, requestFingerprint } from '../../shared/domain/charge-input.ts';
import { retentionPeriodOf } from '../../shared/domain/idempotency.ts';
import { deriveTxid } from '../../shared/domain/pix-ids.ts';
import {
  type CreateChargeRequest,
  createCharge as createChargeService,
} from '../../shared/services/create-charge.ts';
import { setWalletShards } from '../../shared/store/accounts.ts';
import { readLiveCounters } from '../../shared/store/charges.ts';
import { newKey } from '../helpers/accounts.ts';
import {
  createCharge,
  expire,
  merchant,
  newCharge,
  newIdempotencyKey,
  pay,
  rawId,
  storedCharge,
  storedEvents,
} from '../helpers/charges.ts';
import { api, demo, expectError } from '../helpers/http.ts';
import { testBaseUrl } from '../helpers/local-env.ts';
import { requestLogRecord, runtimeLogRecords } from '../helpers/runtime-log.ts';
import { scopeItems } from '../helpers/scope-items.ts';

const CHARGE_FIELDS = [
  'amount',
  'checkout_url',
  'created_at',
  'currency',
  'customer',
  'id',
  'metadata',
  'object',
  'payment_method',
  'pix',
  'settlement',
  'status',
];

let m: { accountId: string; apikey: string };
beforeAll(async () => {
  m = await merchant();
});

const invalid = async (body: unknown, param: string | RegExp, code = 'invalid_request') => {
  const reply = await createCharge(m.apikey, body);
  expectError(reply, 400, 'invalid_request_error', code);
  if (typeof param === 'string') expect(reply.body.error.param).toBe(param);
  else expect(reply.body.error.param).toMatch(param);
  return reply;
};

/** The create use case itself, on a clock of the test's choosing. */
const createChargeAt = (now: Date, request: CreateChargeRequest) => createChargeService({ ...request, now });

describe('POST /v1/charges: the created charge', () => {
  it('answers 201 with exactly the public Charge fields', async () => {
    const before = Date.now();
    const reply = await createCharge(m.apikey, {
      amount: 1050,
      payment_method: 'pix',
      description: 'Pedido 42',
      customer: {
        name: 'Maria Silva',
        document: '529.982.247-25',
        email: 'maria@example.com',
        phone: '+55 11 99999-0000',
      },
      metadata: {
        order_id: '42',
        _internal: 'x',
        description: 'spoofed',
        provider: 'spoofed',
        failure: 'x',
        flag: true,
        constructor: 'x',
        prototype: 'x',
      },
    });
    expect(reply.status).toBe(201);
    const charge = reply.body;
    expect(Object.keys(charge).sort()).toEqual(CHARGE_FIELDS);
    expect(charge).toMatchObject({
      object: 'charge',
      amount: 1050,
      currency: 'BRL',
      status: 'pending',
      payment_method: 'pix',
      settlement: {},
    });
    expect(charge.id).toMatch(/^ch_[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/); // ch_<UUIDv7>
    expect(charge.customer).toEqual({ name: 'Maria Silva', document: '52998224725' });
    expect(charge.metadata).toEqual({ order_id: '42', flag: true, description: 'Pedido 42' });
    expect(Object.keys(charge.pix).sort()).toEqual([
      'br_code',
      'expires_at',
      'qr_code_base64',
      'qr_code_url',
      'txid',
    ]);
    expect(charge.pix.txid).toMatch(/^[a-zA-Z0-9]{26,35}$/);
    expect(charge.pix.txid).not.toBe(charge.id);
    expect(charge.pix.txid).not.toBe(rawId(charge.id));
    expect(charge.checkout_url).toBe(`${testBaseUrl}/checkout/${rawId(charge.id)}`);
    const expiresIn = (Date.parse(charge.pix.expires_at) - Date.parse(charge.created_at)) / 1000;
    expect(expiresIn).toBe(3600);
    expect(Date.parse(charge.created_at)).toBeGreaterThanOrEqual(before - 1000);
    const text = JSON.stringify(charge);
    for (const leak of [
      'maria@example.com',
      '99999-0000',
      'sandbox',
      'providerFee',
      'netAmount',
      'idempotency',
      'accountId',
    ]) {
      expect(text).not.toContain(leak);
    }
  });

  it('is readable as created and has its charge.created and payment.created events in the outbox', async () => {
    const charge = await newCharge(m.apikey);
    const read = await api(`/v1/charges/${charge.id}`, { apikey: m.apikey });
    expect(read.body).toEqual(charge);
    const events = await storedEvents(m.accountId, rawId(charge.id));
    expect(events.map((e) => e.eventType).sort()).toEqual(['charge.created', 'payment.created']);
    const canonical = events.find((e) => e.eventType === 'charge.created');
    expect(canonical?.payload).toEqual({
      id: canonical?.id,
      object: 'event',
      api_version: '2026-11-01',
      type: 'charge.created',
      created_at: charge.created_at,
      data: { object: charge },
    });
    expect(canonical?.id).toMatch(/^evt_/);
    const legacy = events.find((e) => e.eventType === 'payment.created');
    expect(legacy?.payload).toEqual({
      event: 'payment.created',
      data: {
        transactionId: rawId(charge.id),
        amount: 1050,
        status: 'WAITING_PAYMENT',
        previousStatus: null,
        occurredAt: charge.created_at,
      },
    });
  });

  it('accepts /v1/pix/charges without payment_method, with the same Charge', async () => {
    const reply = await api('/v1/pix/charges', {
      apikey: m.apikey,
      body: { amount: 500 },
      headers: { 'idempotency-key': newIdempotencyKey() },
    });
    expect(reply.status).toBe(201);
    expect(reply.body.payment_method).toBe('pix');
    const other = await api('/v1/pix/charges', {
      apikey: m.apikey,
      body: { amount: 500, payment_method: 'card' },
      headers: { 'idempotency-key': newIdempotencyKey() },
    });
    expectError(other, 400, 'invalid_request_error', 'invalid_request');
    expect(other.body.error.param).toBe('payment_method');
    // The same key rule as POST /v1/charges: none is 400 on the header.
    const keyless = await api('/v1/pix/charges', { apikey: m.apikey, body: { amount: 500 } });
    expectError(keyless, 400, 'invalid_request_error', 'invalid_request');
    expect(keyless.body.error.param).toBe('Idempotency-Key');
  });

  it('caps expires_in at 86400 and honours smaller windows', async () => {
    const capped = await newCharge(m.apikey, { expires_in: 200_000 });
    expect((Date.parse(capped.pix.expires_at) - Date.parse(capped.created_at)) / 1000).toBe(86_400);
    const short = await newCharge(m.apikey, { expires_in: 60 });
    expect((Date.parse(short.pix.expires_at) - Date.parse(short.created_at)) / 1000).toBe(60);
  });

  it('uses the account’s default window when expires_in is omitted', async () => {
    const custom = await merchant({ settings: { defaultExpiresIn: 900 } });
    const charge = await newCharge(custom.apikey);
    expect((Date.parse(charge.pix.expires_at) - Date.parse(charge.created_at)) / 1000).toBe(900);
  });

  it('returns expected_payer_tax_id when set, alphanumeric CNPJ included', async () => {
    const cpf = await newCharge(m.apikey, {
      customer: { name: 'Maria' },
      expected_payer_tax_id: '529.982.247-25',
    });
    expect(cpf.expected_payer_tax_id).toBe('52998224725');
    const cnpj = await newCharge(m.apikey, {
      customer: { name: 'ACME', document: '12.ABC.345/01DE-35' },
      expected_payer_tax_id: '12ABC34501DE35',
    });
    expect(cnpj.expected_payer_tax_id).toBe('12ABC34501DE35');
  });
});

describe('POST /v1/charges: validation (400, nothing written)', () => {
  it('requires an integer amount above 0, up to the Pix maximum, with invalid_amount', async () => {
    for (const amount of [0, -5, 10.5, '1050', null, 1_000_000_000_000]) {
      await invalid({ amount, payment_method: 'pix' }, 'amount', 'invalid_amount');
    }
    await invalid({ payment_method: 'pix' }, 'amount', 'invalid_amount');
    expect((await createCharge(m.apikey, { amount: 999_999_999_999, payment_method: 'pix' })).status).toBe(
      201,
    );
  });

  it('requires payment_method pix on /v1/charges', async () => {
    await invalid({ amount: 100 }, 'payment_method');
    await invalid({ amount: 100, payment_method: 'boleto' }, 'payment_method');
  });

  it('says a missing required field is required, with the field as param and in details', async () => {
    const reply = await invalid({ amount: 100 }, 'payment_method');
    expect(reply.body.error.message).toBe('payment_method is required.');
    expect(reply.body.error.details).toEqual([
      { param: 'payment_method', message: 'payment_method is required.' },
    ]);
    const amount = await invalid({ payment_method: 'pix' }, 'amount', 'invalid_amount');
    expect(amount.body.error.message).toBe('amount is required.');
  });

  it('answers a body that is not a JSON object with invalid_request and no param, on routes that take one', async () => {
    // Checked at the edge, before the handler: the payment or charge in the path need not exist.
    const someId = '01a20000-0000-7000-8000-000000000000';
    const required = ['/v1/charges', '/v1/pix/charges', '/v1/payments', '/v1/webhooks/endpoints'];
    const cases = [
      ...[...required, `/v1/payments/${someId}/refund`].map((path) => ({ path, empty: true })),
      // An optional body may be absent, but what is sent must still be an object.
      { path: `/v1/sandbox/charges/ch_${someId}/pay`, empty: false },
    ];
    for (const { path, empty } of cases) {
      for (const rawBody of ['[]', '[{"amount":100}]', '"amount"', '100', 'null', ...(empty ? [''] : [])]) {
        const reply = await api(path, {
          apikey: m.apikey,
          method: 'POST',
          rawBody,
          headers: { 'content-type': 'application/json', 'idempotency-key': newIdempotencyKey() },
        });
        expectError(reply, 400, 'invalid_request_error', 'invalid_request');
        expect(reply.body.error.message, `${path} ${rawBody}`).toBe(
          'The request body must be a JSON object.',
        );
        expect(reply.body.error.param, `${path} ${rawBody}`).toBeUndefined();
      }
    }
  });

  it('requires BRL', async () => {
    await invalid({ amount: 100, payment_method: 'pix', currency: 'USD' }, 'currency');
    expect((await newCharge(m.apikey, { currency: 'brl' })).currency).toBe('BRL');
  });

  it('limits description to 500 characters and expires_in to at least 60 seconds', async () => {
    await invalid({ amount: 100, payment_method: 'pix', description: 'x'.repeat(501) }, 'description');
    await invalid({ amount: 100, payment_method: 'pix', description: '🧾'.repeat(501) }, 'description');
    // Characters as a reader counts them: 500 emoji (1,000 UTF-16 units) are 500 characters.
    const emoji = await createCharge(m.apikey, {
      amount: 100,
      payment_method: 'pix',
      description: '🧾'.repeat(500),
    });
    expect(emoji.status).toBe(201);
    // But one character cannot carry unbounded combining marks: 200 characters of 31 units each.
    await invalid(
      { amount: 100, payment_method: 'pix', description: `e${'\u0301'.repeat(30)}`.repeat(200) },
      'description',
    );
    await invalid({ amount: 100, payment_method: 'pix', expires_in: 59 }, 'expires_in');
    await invalid({ amount: 100, payment_method: 'pix', expires_in: 60.5 }, 'expires_in');
  });

  it('checks customer fields and rejects unknown ones', async () => {
    await invalid(
      { amount: 100, payment_method: 'pix', customer: { document: '529.982.247-24' } },
      'customer.document',
    );
    await invalid({ amount: 100, payment_method: 'pix', customer: { email: 'nope' } }, 'customer.email');
    await invalid({ amount: 100, payment_method: 'pix', customer: { nickname: 'x' } }, 'customer.nickname');
    await invalid({ amount: 100, payment_method: 'pix', tip: 5 }, 'tip');
  });

  it('enforces the payer lock rules', async () => {
    await invalid(
      { amount: 100, payment_method: 'pix', customer: { name: 'M' }, expected_payer_tax_id: '11111111111' },
      'expected_payer_tax_id',
    );
    await invalid(
      { amount: 100, payment_method: 'pix', expected_payer_tax_id: '52998224725' },
      'customer.name',
    );
    await invalid(
      {
        amount: 100,
        payment_method: 'pix',
        customer: { name: 'M', document: '11.222.333/0001-81' },
        expected_payer_tax_id: '52998224725',
      },
      'expected_payer_tax_id',
    );
  });

  it('validates metadata', async () => {
    await invalid({ amount: 100, payment_method: 'pix', metadata: 'x' }, 'metadata');
    await invalid({ amount: 100, payment_method: 'pix', metadata: ['a', 'b'] }, 'metadata');
    await invalid({ amount: 100, payment_method: 'pix', metadata: { nested: { a: 1 } } }, 'metadata.nested');
    await invalid({ amount: 100, payment_method: 'pix', metadata: { ['k'.repeat(41)]: 'v' } }, /^metadata/);
    // Numbers DynamoDB cannot store or JavaScript cannot read back exactly: 400, not a 500 after the cob.
    for (const n of [1e308, -1e308, 2 ** 53, 1e-200])
      await invalid({ amount: 100, payment_method: 'pix', metadata: { n } }, 'metadata.n');
    const kept = await createCharge(m.apikey, {
      amount: 100,
      payment_method: 'pix',
      metadata: { big: 2 ** 53 - 1, small: 1e-130, zero: 0, neg: -12.5 },
    });
    expect(kept.body.metadata).toMatchObject({ big: 2 ** 53 - 1, small: 1e-130, zero: 0, neg: -12.5 });
  });

  it('refuses an array as customer, which would read as an empty object', async () => {
    await invalid({ amount: 100, payment_method: 'pix', customer: [] }, 'customer');
    await invalid({ amount: 100, payment_method: 'pix', customer: [{ name: 'A' }] }, 'customer');
  });

  it('refuses a string with a lone surrogate, which no strict JSON parser could read back, naming where it is', async () => {
    const lone = (text: string) => `${text}\ud800`;
    for (const [body, param] of [
      [{ amount: 100, payment_method: 'pix', description: lone('Pedido ') }, 'description'],
      [{ amount: 100, payment_method: 'pix', customer: { name: lone('Ana') } }, 'customer.name'],
      // A key is named by the object holding it: the error must not carry the surrogate either.
      [{ amount: 100, payment_method: 'pix', metadata: { [lone('k')]: 'v' } }, 'metadata'],
    ] as const) {
      const reply = await api('/v1/charges', {
        apikey: m.apikey,
        headers: { 'Idempotency-Key': newIdempotencyKey() },
        // JSON.stringify would escape the surrogate as `\ud800`, which is what a client sends.
        rawBody: JSON.stringify(body),
      });
      expectError(reply, 400, 'invalid_request_error', 'invalid_request');
      expect(reply.body.error.param).toBe(param);
    }
    // A well-formed pair (an emoji) is fine.
    expect(
      (await createCharge(m.apikey, { amount: 100, payment_method: 'pix', description: 'Pedido 🙂' })).status,
    ).toBe(201);
  });

  it('requires an Idempotency-Key of 8 to 128 characters', async () => {
    const missing = await api('/v1/charges', {
      apikey: m.apikey,
      body: { amount: 100, payment_method: 'pix' },
    });
    expectError(missing, 400, 'invalid_request_error', 'invalid_request');
    expect(missing.body.error.param).toBe('Idempotency-Key');
    // A rule about one field lists it in details too, as a schema failure does.
    expect(missing.body.error.details).toEqual([
      { param: 'Idempotency-Key', message: missing.body.error.message },
    ]);
    for (const key of ['1234567', 'k'.repeat(129)]) {
      const reply = await createCharge(m.apikey, { amount: 100, payment_method: 'pix' }, key);
      expectError(reply, 400, 'invalid_request_error', 'invalid_request');
      expect(reply.body.error.param).toBe('Idempotency-Key');
    }
    expect((await createCharge(m.apikey, { amount: 100, payment_method: 'pix' }, '12345678')).status).toBe(
      201,
    );
  });

  it('requires a JSON body', async () => {
    const form = await api('/v1/charges', {
      apikey: m.apikey,
      rawBody: 'amount=100',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'idempotency-key': newIdempotencyKey(),
      },
    });
    expect(form.body.error.param).toBe('Content-Type');
    const empty = await api('/v1/charges', {
      apikey: m.apikey,
      method: 'POST',
      headers: { 'idempotency-key': newIdempotencyKey() },
    });
    expectError(empty, 400, 'invalid_request_error', 'invalid_request');
  });

  it('writes nothing for a rejected request', async () => {
    const fresh = await merchant();
    const reply = await createCharge(fresh.apikey, { amount: -1, payment_method: 'pix' });
    // Refused by validation: one refused before it (a 401, a 429) would write nothing anyway.
    expectError(reply, 400, 'invalid_request_error', 'invalid_amount');
    // Every partition of the scope: its own and those of its charges, events and journals.
    expect(await scopeItems({ accountId: fresh.accountId, mode: 'test' })).toEqual([]);
  });
});

describe('idempotency', () => {
  it('replays the identical response for the same key and body', async () => {
    const key = newIdempotencyKey();
    const body = { amount: 777, payment_method: 'pix', metadata: { a: '1', b: '2' } };
    const first = await createCharge(m.apikey, body, key);
    const second = await createCharge(
      m.apikey,
      { metadata: { b: '2', a: '1' }, payment_method: 'pix', amount: 777 },
      key,
    );
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
  });

  it('answers 409 idempotency_key_reused for the same key with another body', async () => {
    const key = newIdempotencyKey();
    await createCharge(m.apikey, { amount: 100, payment_method: 'pix' }, key);
    const reused = await createCharge(m.apikey, { amount: 101, payment_method: 'pix' }, key);
    expectError(reused, 409, 'conflict_error', 'idempotency_key_reused');
    expect(reused.body.error.param).toBe('Idempotency-Key');
  });

  it('keeps keys apart per route, mode and account', async () => {
    const key = newIdempotencyKey();
    const a = await createCharge(m.apikey, { amount: 100, payment_method: 'pix' }, key);
    const b = await api('/v1/pix/charges', {
      apikey: m.apikey,
      body: { amount: 100 },
      headers: { 'idempotency-key': key },
    });
    const other = await merchant();
    const c = await createCharge(other.apikey, { amount: 100, payment_method: 'pix' }, key);
    expect(new Set([a.body.id, b.body.id, c.body.id]).size).toBe(3);
    // Each charge has a cob of its own at the acquirer: one key on two routes never shares a txid
    // (a second `PUT /cob/{txid}` would revise the first charge's amount).
    expect(new Set([a.body.pix.txid, b.body.pix.txid, c.body.pix.txid]).size).toBe(3);
  });

  it('creates exactly one charge from 50 concurrent requests with one key', async () => {
    const fresh = await merchant();
    const key = newIdempotencyKey();
    const replies = await Promise.all(
      Array.from({ length: 50 }, () =>
        createCharge(fresh.apikey, { amount: 2500, payment_method: 'pix' }, key),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(50).fill(201));
    expect(new Set(replies.map((r) => r.body.id)).size).toBe(1);
    const list = await api('/v1/charges?limit=100', { apikey: fresh.apikey });
    expect(list.body.data).toHaveLength(1);
    const counters = await readLiveCounters({ accountId: fresh.accountId, mode: 'test' });
    expect(counters.reduce((sum, c) => sum + c.count, 0)).toBe(1);
  });

  it('after a failure past the acquirer call, a retry creates one charge with the same acquirer txid', async () => {
    const fresh = await merchant();
    const key = newIdempotencyKey();
    const body = { amount: 3000, payment_method: 'pix' };
    const failed = await createCharge(fresh.apikey, body, key, { 'x-fault-inject': 'after-provider' });
    expectError(failed, 500, 'api_error', 'injected_fault');
    const retried = await createCharge(fresh.apikey, body, key);
    expect(retried.status).toBe(201);
    const again = await createCharge(fresh.apikey, body, key);
    expect(again.body.id).toBe(retried.body.id);
    expect((await api('/v1/charges', { apikey: fresh.apikey })).body.data).toHaveLength(1);

    const txid = deriveTxid({
      accountId: fresh.accountId,
      mode: 'test',
      routeId: 'createCharge',
      idempotencyKey: key,
      keyWindow: retentionPeriodOf(Date.parse(retried.body.created_at)),
      requestHash: requestFingerprint('createCharge', body),
    });
    expect(retried.body.pix.txid).toBe(txid);
    // Each request's `request` record is logged after any line the request itself wrote: once all
    // three are in the log, every acquirer call they made is too.
    for (const reply of [failed, retried, again])
      await requestLogRecord(reply.headers.get('x-request-id') ?? '');
    const calls = runtimeLogRecords().filter((r) => r.message === 'provider.createCob' && r.txid === txid);
    // Two calls (the failed attempt and the retry), both `PUT /cob/{txid}` of the same txid: one acquirer charge.
    expect(calls).toHaveLength(2);
  });

  it('frees a key 24 h after its first use, whether or not TTL has deleted its record', async () => {
    const fresh = await merchant();
    const body = { amount: 3200, payment_method: 'pix' };
    const useAt = async (now: Date, key: string, raw: Record<string, unknown> = body) =>
      (
        await createChargeAt(now, {
          scope: { accountId: fresh.accountId, mode: 'test' },
          routeId: 'createCharge',
          idempotencyKey: key,
          rawBody: raw,
          input: parseCreateCharge(raw, 'createCharge'),
          baseUrl: testBaseUrl,
          headers: {},
        })
      ).body as { id: string; pix: { txid: string } };
    const dayAgo = (ms: number) => new Date(Date.now() - 24 * 3600_000 + ms);
    // Used a moment less than 24 h ago: still the first answer, another body still refused.
    const recentKey = newIdempotencyKey();
    const recent = await useAt(dayAgo(60_000), recentKey);
    expect((await createCharge(fresh.apikey, body, recentKey)).body.id).toBe(recent.id);
    expectError(
      await createCharge(fresh.apikey, { ...body, amount: 3201 }, recentKey),
      409,
      'conflict_error',
      'idempotency_key_reused',
    );
    // Used 24 h ago (its record still in the table): a new charge, for the same body or another.
    const oldKey = newIdempotencyKey();
    const old = await useAt(dayAgo(-1_000), oldKey);
    const again = await createCharge(fresh.apikey, body, oldKey);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.body.id).not.toBe(old.id);
    expect(again.body.pix.txid).not.toBe(old.pix.txid);
    // The new record answers for the key from now on.
    expect((await createCharge(fresh.apikey, body, oldKey)).body.id).toBe(again.body.id);
    const otherKey = newIdempotencyKey();
    await useAt(dayAgo(-1_000), otherKey);
    expect((await createCharge(fresh.apikey, { ...body, amount: 3202 }, otherKey)).status).toBe(201);
  });

  it('after a failure once the write committed, a retry replays the committed charge', async () => {
    const fresh = await merchant();
    const key = newIdempotencyKey();
    const body = { amount: 3100, payment_method: 'pix' };
    expectError(
      await createCharge(fresh.apikey, body, key, { 'x-fault-inject': 'after-write' }),
      500,
      'api_error',
      'injected_fault',
    );
    const retried = await createCharge(fresh.apikey, body, key);
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    const list = await api('/v1/charges', { apikey: fresh.apikey });
    expect(list.body.data.map((c: { id: string }) => c.id)).toEqual([retried.body.id]);
  });
});

describe('fraud and velocity guard (403, before the acquirer)', () => {
  /** A fresh merchant whose customer has 5 live charges: a sixth is refused. */
  async function customerAtLimit(customer: { name: string; document: string }) {
    const fresh = await merchant();
    const charges = [];
    for (let i = 0; i < 5; i++) charges.push(await newCharge(fresh.apikey, { customer }));
    const blocked = await createCharge(fresh.apikey, { amount: 1050, payment_method: 'pix', customer });
    expectError(blocked, 403, 'permission_error', 'fraud.customer_velocity_exceeded');
    return { fresh, charges };
  }

  it('blocks a sixth live charge for one customer document within 10 minutes; expired ones do not count', async () => {
    const customer = { name: 'Joao', document: '11.222.333/0001-81' };
    const { fresh, charges } = await customerAtLimit(customer);
    expect(
      (await newCharge(fresh.apikey, { customer: { name: 'Other', document: '52998224725' } })).status,
    ).toBe('pending');

    await expire(fresh.apikey, charges[0].id);
    expect((await createCharge(fresh.apikey, { amount: 1050, payment_method: 'pix', customer })).status).toBe(
      201,
    );
  });

  it('does not count a cancelled charge toward the customer’s limit', async () => {
    const customer = { name: 'Ana', document: '52998224725' };
    const { fresh, charges } = await customerAtLimit(customer);
    const cancelled = await api(`/v1/payments/${rawId(charges[0].id)}/cancel`, {
      apikey: fresh.apikey,
      method: 'POST',
    });
    expect(cancelled.status).toBe(200);
    expect((await createCharge(fresh.apikey, { amount: 1050, payment_method: 'pix', customer })).status).toBe(
      201,
    );
  });

  it('lets exactly the limit through when 12 creates for one customer race', async () => {
    const fresh = await merchant();
    const customer = { name: 'Bia', document: '52998224725' };
    const replies = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        createCharge(fresh.apikey, { amount: 1000 + i, payment_method: 'pix', customer }),
      ),
    );
    expect(replies.filter((r) => r.status === 201)).toHaveLength(5);
    for (const r of replies.filter((r) => r.status !== 201))
      expectError(r, 403, 'permission_error', 'fraud.customer_velocity_exceeded');
  });

  it('counts a payer-locked charge for its payer tax id, as customer_id lists it', async () => {
    const fresh = await merchant();
    const locked = { customer: { name: 'Maria' }, expected_payer_tax_id: '52998224725' };
    const charges = [];
    for (let i = 0; i < 5; i++) charges.push(await newCharge(fresh.apikey, locked));
    const body = { amount: 1050, payment_method: 'pix' };
    expectError(
      await createCharge(fresh.apikey, { ...body, ...locked }),
      403,
      'permission_error',
      'fraud.customer_velocity_exceeded',
    );
    // The same person named as the customer is the same customer.
    expectError(
      await createCharge(fresh.apikey, { ...body, customer: { name: 'Maria', document: '529.982.247-25' } }),
      403,
      'permission_error',
      'fraud.customer_velocity_exceeded',
    );
    const listed = await api('/v1/charges?customer_id=52998224725', { apikey: fresh.apikey });
    expect(listed.body.data.map((c: { id: string }) => c.id).sort()).toEqual(charges.map((c) => c.id).sort());
  });

  it('does not count a charge paid a moment after it was created', async () => {
    const customer = { name: 'Caio', document: '11.222.333/0001-81' };
    const { fresh, charges } = await customerAtLimit(customer);
    expect((await pay(fresh.apikey, charges[4].id)).status).toBe(200);
    expect((await createCharge(fresh.apikey, { amount: 1050, payment_method: 'pix', customer })).status).toBe(
      201,
    );
  });

  it('blocks charges past the account’s live-charge limit; settled ones do not count', async () => {
    const fresh = await merchant({ settings: { velocity: { accountMaxPending: 2 } } });
    const first = await newCharge(fresh.apikey);
    await newCharge(fresh.apikey);
    const blocked = await createCharge(fresh.apikey);
    expectError(blocked, 403, 'permission_error', 'fraud.account_velocity_exceeded');
    await pay(fresh.apikey, first.id);
    expect((await createCharge(fresh.apikey)).status).toBe(201);
  });

  it('does not count a charge past its expiry that no scheduler run has reached yet', async () => {
    const fresh = await merchant({ settings: { velocity: { accountMaxPending: 1 } } });
    const first = await newCharge(fresh.apikey);
    expectError(await createCharge(fresh.apikey), 403, 'permission_error', 'fraud.account_velocity_exceeded');
    // A create whose clock is past the first charge's window: the runtime's scheduler, on the
    // real clock, has not reached it, so only the create itself can see it is over.
    const body = { amount: 100, payment_method: 'pix' };
    const later = await createChargeAt(new Date(Date.parse(first.pix.expires_at) + 60_000), {
      scope: { accountId: fresh.accountId, mode: 'test' },
      routeId: 'createCharge',
      idempotencyKey: newIdempotencyKey(),
      rawBody: body,
      input: parseCreateCharge(body, 'createCharge'),
      baseUrl: testBaseUrl,
      headers: {},
    });
    expect(later.status).toBe(201);
    expect(await storedCharge(fresh.accountId, rawId(first.id))).toMatchObject({
      status: 'EXPIRED',
      failure: { providerErrorCode: 'expired', at: first.pix.expires_at },
    });
  });

  it('never lets concurrent creates exceed the account limit', async () => {
    const fresh = await merchant({ settings: { velocity: { accountMaxPending: 3 } } });
    const replies = await Promise.all(Array.from({ length: 12 }, () => createCharge(fresh.apikey)));
    expect(replies.filter((r) => r.status === 201)).toHaveLength(3);
    for (const r of replies.filter((r) => r.status !== 201))
      expectError(r, 403, 'permission_error', 'fraud.account_velocity_exceeded');
  });
});

describe('the live-charge limit over a sharded counter', () => {
  const countersOf = (accountId: string) => readLiveCounters({ accountId, mode: 'test' });
  const live = (counters: { count: number }[]) => counters.reduce((sum, c) => sum + c.count, 0);

  /** Each counter shard holds exactly the live charges that recorded it. */
  async function expectCountersMatchCharges(accountId: string, chargeIds: string[]) {
    const expected = new Map<number, number>();
    for (const id of chargeIds) {
      const stored = await storedCharge(accountId, rawId(id));
      if (stored?.status !== 'WAITING_PAYMENT') continue;
      expected.set(stored.liveCounterShard, (expected.get(stored.liveCounterShard) ?? 0) + 1);
    }
    for (const { shard, count } of await countersOf(accountId))
      expect(count, `shard ${shard}`).toBe(expected.get(shard as number) ?? 0);
  }

  it('lets exactly the limit through when 24 creates race for 10 places over 8 counter shards', async () => {
    const fresh = await merchant({ settings: { walletShards: 4, velocity: { accountMaxPending: 10 } } });

    const replies = await Promise.all(Array.from({ length: 24 }, () => createCharge(fresh.apikey)));

    const created = replies.filter((r) => r.status === 201);
    expect(created).toHaveLength(10);
    for (const r of replies.filter((r) => r.status !== 201))
      expectError(r, 403, 'permission_error', 'fraud.account_velocity_exceeded');
    expect(live(await countersOf(fresh.accountId))).toBe(10);
    await expectCountersMatchCharges(
      fresh.accountId,
      created.map((r) => r.body.id),
    );
    // A settlement frees the place in the shard its charge counted in: one more, and no more.
    await pay(fresh.apikey, created[0]?.body.id);
    const again = await Promise.all(Array.from({ length: 5 }, () => createCharge(fresh.apikey)));
    expect(again.filter((r) => r.status === 201)).toHaveLength(1);
    await expectCountersMatchCharges(
      fresh.accountId,
      [...created, ...again].map((r) => r.body.id).filter(Boolean),
    );
  });

  it('keeps the limit exact when the shard count is lowered while charges are live', async () => {
    const fresh = await merchant({ settings: { walletShards: 4, velocity: { accountMaxPending: 6 } } });
    const first = await Promise.all(Array.from({ length: 6 }, () => newCharge(fresh.apikey)));
    await setWalletShards(fresh.accountId, 2);
    expectError(await createCharge(fresh.apikey), 403, 'permission_error', 'fraud.account_velocity_exceeded');
    // Two charges leave: two places, whichever shards (retired or not) they were counted in.
    for (const charge of first.slice(0, 2)) await pay(fresh.apikey, charge.id);

    const replies = await Promise.all(Array.from({ length: 12 }, () => createCharge(fresh.apikey)));

    expect(replies.filter((r) => r.status === 201)).toHaveLength(2);
    expect(live(await countersOf(fresh.accountId))).toBe(6);
  });
});

describe('acquirer outcomes', () => {
  it('shows a charge the acquirer refused as failed, without a QR, with its failure events', async () => {
    const reply = await createCharge(m.apikey, { amount: 1313, payment_method: 'pix' });
    expect(reply.status).toBe(201);
    expect(reply.body.status).toBe('failed');
    expect(reply.body.pix).toEqual({ expires_at: reply.body.pix.expires_at });
    const events = await storedEvents(m.accountId, rawId(reply.body.id));
    expect(events.map((e) => e.eventType).sort()).toEqual(['charge.failed', 'payment.failed']);
    expect((await storedCharge(m.accountId, rawId(reply.body.id)))?.status).toBe('REFUSED');
  });

  it('answers 503 while the acquirer is down, storing nothing, and the same key succeeds later', async () => {
    const fresh = await merchant();
    await api('/v1/sandbox/acquirer', { apikey: fresh.apikey, body: { status: 'down' } });
    const key = newIdempotencyKey();
    const body = { amount: 4200, payment_method: 'pix' };
    const down = await createCharge(fresh.apikey, body, key);
    expectError(down, 503, 'api_error', 'service_unavailable');
    expect((await api('/v1/charges', { apikey: fresh.apikey })).body.data).toEqual([]);
    await api('/v1/sandbox/acquirer', { apikey: fresh.apikey, body: { status: 'up' } });
    const retried = await createCharge(fresh.apikey, body, key);
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });

  it('answers 422 unprocessable_entity for a live key with no acquirer configured', async () => {
    const live = await newKey(m.accountId, 'live');
    const reply = await createCharge(live, { amount: 100, payment_method: 'pix' });
    expectError(reply, 422, 'invalid_request_error', 'unprocessable_entity');
    expect(reply.body.error.param).toBeUndefined();
    expectError(
      await createCharge(demo().live_api_key),
      422,
      'invalid_request_error',
      'unprocessable_entity',
    );
  });
});
