import { describe, expect, it } from 'vitest';
import { newAccount, newKey } from '../helpers/accounts.ts';
import { api, expectError } from '../helpers/http.ts';

describe('GET /v1/wallets/balance', () => {
  it('returns the full shape, zero for an account that never received money', async () => {
    const key = await newKey((await newAccount()).id);
    const reply = await api('/v1/wallets/balance', { apikey: key });
    expect(reply.status).toBe(200);
    const zero = { currency: 'BRL', available: 0, pending: 0, total: 0 };
    expect(reply.body).toEqual({
      available: 0,
      pending: 0,
      total: 0,
      retained: 0,
      currency: 'BRL',
      next_release_at: null,
      next_release_amount: null,
      balances: [zero],
      primary: zero,
    });
  });

  it('returns the flat single-currency shape with ?currency=', async () => {
    const key = await newKey((await newAccount()).id);
    const reply = await api('/v1/wallets/balance?currency=brl', { apikey: key });
    expect(reply.body).toEqual({
      available: 0,
      pending: 0,
      currency: 'BRL',
      next_release_at: null,
      next_release_amount: null,
    });
  });

  it('rejects a malformed currency and unknown query parameters', async () => {
    const key = await newKey((await newAccount()).id);
    for (const currency of ['REAL', 'XYZ']) {
      // XYZ has the form of a code but names no currency: a mistake, not a zero balance.
      const bad = await api(`/v1/wallets/balance?currency=${currency}`, { apikey: key });
      expectError(bad, 400, 'invalid_request_error', 'invalid_request');
      expect(bad.body.error.param).toBe('currency');
    }
    expect((await api('/v1/wallets/balance?currency=usd', { apikey: key })).body).toMatchObject({
      currency: 'USD',
      available: 0,
    });
    const unknown = await api('/v1/wallets/balance?page=2', { apikey: key });
    expectError(unknown, 400, 'invalid_request_error', 'invalid_request');
    expect(unknown.body.error.param).toBe('page');
  });

  it('answers 401, never 404, without a valid key', async () => {
    expectError(await api('/v1/wallets/balance'), 401, 'authentication_error', 'unauthorized');
    expectError(
      await api('/v1/wallets', { apikey: 'ak_live_nope' }),
      401,
      'authentication_error',
      'unauthorized',
    );
  });
});

describe('GET /v1/wallets', () => {
  it('lists the operational BRL wallet', async () => {
    const key = await newKey((await newAccount()).id, 'live');
    const reply = await api('/v1/wallets', { apikey: key });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual([
      { currency: 'BRL', walletType: 'OPERATIONAL', balance: 0, pendingBalance: 0 },
    ]);
  });
});
