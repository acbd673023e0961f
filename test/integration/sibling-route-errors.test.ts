/**
 * The error codes the OpenAPI document declares on the routes that share a use case with
 * another (`POST /v1/pix/charges` and `POST /v1/payments` create charges as `POST /v1/charges`
 * does; `/v1/infractions` is `/v1/med/cases`), triggered on those routes themselves: each
 * answer is the route's own, not only its sibling's (every fetch also passes the contract check).
 */

import { randomUUID } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { describe, expect, it } from 'vitest';
import { newAccount, newKey } from '../helpers/accounts.ts';
import { merchant, newIdempotencyKey } from '../helpers/charges.ts';
import { api, expectError } from '../helpers/http.ts';
import { disputed } from '../helpers/med.ts';

const pixCharge = (apikey: string, body: Record<string, unknown>, key = newIdempotencyKey()) =>
  api('/v1/pix/charges', { apikey, headers: { 'Idempotency-Key': key }, body });
const payment = (apikey: string, body: Record<string, unknown> = {}) =>
  api('/v1/payments', {
    apikey,
    body: { amount: 2590, paymentMethods: ['PIX'], idempotencyKey: newIdempotencyKey(), ...body },
  });
const acquirer = (apikey: string, status: 'up' | 'down') =>
  api('/v1/sandbox/acquirer', { apikey, body: { status } });

describe('POST /v1/pix/charges', () => {
  it('answers invalid_amount, idempotency_key_reused, unprocessable_entity and service_unavailable', async () => {
    const m = await merchant();
    const amount = await pixCharge(m.apikey, { amount: 0 });
    expectError(amount, 400, 'invalid_request_error', 'invalid_amount');
    expect(amount.body.error.param).toBe('amount');

    const key = newIdempotencyKey();
    expect((await pixCharge(m.apikey, { amount: 1000 }, key)).status).toBe(201);
    expectError(
      await pixCharge(m.apikey, { amount: 2000 }, key),
      409,
      'conflict_error',
      'idempotency_key_reused',
    );

    // A live key of an account with no acquirer set.
    const unset = await newAccount();
    expectError(
      await pixCharge(await newKey(unset.id, 'live'), { amount: 1000 }),
      422,
      'invalid_request_error',
      'unprocessable_entity',
    );

    await acquirer(m.apikey, 'down');
    try {
      expectError(await pixCharge(m.apikey, { amount: 1000 }), 503, 'api_error', 'service_unavailable');
    } finally {
      await acquirer(m.apikey, 'up');
    }
  });

  it('answers fraud.account_velocity_exceeded and fraud.customer_velocity_exceeded', async () => {
    const limited = await merchant({ settings: { velocity: { accountMaxPending: 1 } } });
    expect((await pixCharge(limited.apikey, { amount: 1000 })).status).toBe(201);
    expectError(
      await pixCharge(limited.apikey, { amount: 1000 }),
      403,
      'permission_error',
      'fraud.account_velocity_exceeded',
    );

    const m = await merchant({ settings: { velocity: { customerMaxCharges: 1 } } });
    const customer = { name: 'Ana', document: '52998224725' };
    expect((await pixCharge(m.apikey, { amount: 1000, customer })).status).toBe(201);
    expectError(
      await pixCharge(m.apikey, { amount: 1000, customer }),
      403,
      'permission_error',
      'fraud.customer_velocity_exceeded',
    );
  });
});

describe('POST /v1/payments', () => {
  it('answers both fraud codes and service_unavailable', async () => {
    const limited = await merchant({ settings: { velocity: { accountMaxPending: 1 } } });
    expect((await payment(limited.apikey)).status).toBe(201);
    expectError(await payment(limited.apikey), 403, 'permission_error', 'fraud.account_velocity_exceeded');

    const m = await merchant({ settings: { velocity: { customerMaxCharges: 1 } } });
    const customer = { customerName: 'Ana', customerDocument: '52998224725' };
    expect((await payment(m.apikey, customer)).status).toBe(201);
    expectError(
      await payment(m.apikey, customer),
      403,
      'permission_error',
      'fraud.customer_velocity_exceeded',
    );

    await acquirer(m.apikey, 'down');
    try {
      expectError(await payment(m.apikey), 503, 'api_error', 'service_unavailable');
    } finally {
      await acquirer(m.apikey, 'up');
    }
  });
});

describe('POST /v1/sandbox/refunds/{refund_id}/confirm', () => {
  it('answers not_found for a refund the account does not have', async () => {
    const m = await merchant();
    expectError(
      await api(`/v1/sandbox/refunds/re_${randomUUID()}/confirm`, { apikey: m.apikey, method: 'POST' }),
      404,
      'not_found_error',
      'not_found',
    );
  });
});

describe('/v1/infractions (the MED cases alias)', () => {
  it('answers not_found for an unknown case on every route, and invalid_request on a bad appeal', async () => {
    const [m, other] = await Promise.all([disputed(2_000), disputed(2_000)]);
    // Well-formed ids, so each route looks them up: another account's case, and no evidence.
    const unknown = other.medCase.id;
    const noEvidence = `medev_${uuidv7()}`;
    for (const [method, path, body] of [
      ['GET', `/v1/infractions/${unknown}`],
      ['POST', `/v1/infractions/${unknown}/appeal`, { reason: 'Delivered on time' }],
      ['POST', `/v1/infractions/${unknown}/accept`],
      ['GET', `/v1/infractions/${unknown}/evidence`],
      [
        'POST',
        `/v1/infractions/${unknown}/evidence`,
        { file_name: 'a.pdf', mime_type: 'application/pdf', file_size: 10 },
      ],
      ['POST', `/v1/infractions/${unknown}/evidence/${noEvidence}/complete`],
      ['POST', `/v1/infractions/${m.medCase.id}/evidence/${noEvidence}/complete`],
    ] as const) {
      const reply = await api(path, { apikey: m.apikey, method, ...(body && { body }) });
      expectError(reply, 404, 'not_found_error', 'not_found');
    }

    const short = await api(`/v1/infractions/${m.medCase.id}/appeal`, {
      apikey: m.apikey,
      body: { reason: 'no' },
    });
    expectError(short, 400, 'invalid_request_error', 'invalid_request');
    expect(short.body.error.param).toBe('reason');
  });
});
