import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { fingerprintOf } from '../../shared/auth/api-key-crypto.ts';
import { newAccount, newKey } from '../helpers/accounts.ts';
import { merchant, newCharge, rawId } from '../helpers/charges.ts';
import { type ApiReply, api, demo, expectError } from '../helpers/http.ts';
import { requestLogRecord, runtimeLogLines } from '../helpers/runtime-log.ts';

const wallet = (apikey?: string, headers: Record<string, string> = {}) =>
  api('/v1/wallets/balance', { ...(apikey !== undefined && { apikey }), headers });

describe('apikey authentication', () => {
  it('accepts the demo test and live keys', async () => {
    expect((await wallet(demo().test_api_key)).status).toBe(200);
    expect((await wallet(demo().live_api_key)).status).toBe(200);
  });

  it('answers 401 unauthorized when the header is missing', async () => {
    expectError(await wallet(), 401, 'authentication_error', 'unauthorized');
  });

  it('answers 401 for an unknown, malformed or differently cased key', async () => {
    const key = demo().test_api_key;
    const unknown = `ak_test_${Buffer.alloc(24, 7).toString('base64url')}`;
    for (const value of [
      unknown,
      'ak_test_short',
      key.toUpperCase(),
      key.slice(0, -1),
      `${key}x`,
      `Bearer ${key}`,
    ]) {
      expectError(await wallet(value), 401, 'authentication_error', 'unauthorized');
    }
  });

  it('compares exactly: surrounding whitespace that survives HTTP makes the key invalid', async () => {
    const key = demo().test_api_key;
    // HTTP strips spaces and tabs around header values; a no-break space is kept and must not be trimmed.
    expectError(await wallet(`${key}\u00a0`), 401, 'authentication_error', 'unauthorized');
    expectError(await wallet(`\u00a0${key}`), 401, 'authentication_error', 'unauthorized');
  });

  it('does not accept a dashboard token in place of a key', async () => {
    expectError(
      await wallet(undefined, { authorization: 'Bearer x.y.z' }),
      401,
      'authentication_error',
      'unauthorized',
    );
  });

  it('logs the key fingerprint with each request, never the key', async () => {
    const key = demo().test_api_key;
    const reply = await wallet(key, { 'x-request-id': `log-check-${Date.now()}` });
    const requestId = reply.headers.get('x-request-id') ?? '';
    // Positive first: the request's own record is in the log, so whatever the request logged is too.
    const record = await requestLogRecord(requestId);
    expect(record).toMatchObject({
      message: 'request',
      apiKeyFingerprint: fingerprintOf(key),
      status: 200,
      mode: 'test',
    });
    const lines = runtimeLogLines();
    // The startup banner prints the demo keys on purpose; no log record ever does.
    expect(lines.filter((l) => l.startsWith('{')).some((l) => l.includes(key))).toBe(false);
  });
});

describe('X-Request-Id', () => {
  it('echoes the client’s id on success and on errors', async () => {
    const ok = await wallet(demo().test_api_key, { 'x-request-id': 'merchant-trace-123' });
    expect(ok.headers.get('x-request-id')).toBe('merchant-trace-123');
    const failed = await wallet('nope', { 'x-request-id': 'merchant-trace-456' });
    expect(failed.headers.get('x-request-id')).toBe('merchant-trace-456');
    expect(failed.body.request_id).toBe('merchant-trace-456');
  });

  it('generates a fresh id when none is sent', async () => {
    const [a, b] = await Promise.all([wallet(demo().test_api_key), wallet()]);
    expect(a.headers.get('x-request-id')).toMatch(/^req_/);
    expect(b.headers.get('x-request-id')).toMatch(/^req_/);
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });
});

describe('rate limiting', () => {
  it('reports the limit and what remains on every response', async () => {
    const key = await newKey((await newAccount()).id);
    const first = await wallet(key);
    expect(first.headers.get('x-ratelimit-limit-minute')).toBe('600');
    const remaining = Number(first.headers.get('x-ratelimit-remaining-minute'));
    const second = await wallet(key);
    expect(Number(second.headers.get('x-ratelimit-remaining-minute'))).toBe(remaining - 1);
    const invalid = await api('/v1/wallets/balance?currency=EURO', { apikey: key });
    expect(invalid.status).toBe(400);
    expect(Number(invalid.headers.get('x-ratelimit-remaining-minute'))).toBe(remaining - 2);
  });

  it('answers 429 rate_limited with Retry-After past the account’s per-key limit, keys counted apart', async () => {
    const account = await newAccount({ rateLimitPerMinute: 3 });
    const key = await newKey(account.id);
    // The windows are the clock's minutes (shared/store/rate-limit.ts): the burst starts with at
    // least 10 s of its minute left, so all of it counts in one window.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await sleep(60_000 - intoMinute);
    const replies = await Promise.all(Array.from({ length: 5 }, () => wallet(key)));
    const limited = replies.filter((r) => r.status === 429);
    expect(replies.filter((r) => r.status === 200)).toHaveLength(3);
    expect(limited).toHaveLength(2);
    const reply = limited[0] as ApiReply;
    expectError(reply, 429, 'rate_limit_error', 'rate_limited');
    const retryAfter = Number(reply.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(reply.headers.get('x-ratelimit-limit-minute')).toBe('3');
    expect(reply.headers.get('x-ratelimit-remaining-minute')).toBe('0');
    expect((await wallet(await newKey(account.id))).status).toBe(200);
  });
});

describe('an unexpected failure', () => {
  it('answers 500 api_error internal_error in the envelope, its detail only in the log', async () => {
    const reply = await api('/v1/wallets/balance', {
      apikey: demo().test_api_key,
      headers: { 'x-fault-inject': 'unexpected-error' },
    });

    expectError(reply, 500, 'api_error', 'internal_error');
    expect(reply.body.error.message).toBe('An unexpected error occurred.');
    expect(JSON.stringify(reply.body)).not.toContain('cbt_never_shown');
    const record = await requestLogRecord(reply.body.request_id);
    expect(record).toMatchObject({ status: 500, errorMessage: expect.stringContaining('cbt_never_shown') });
  });
});

describe('unknown routes', () => {
  it('answers 404 with the envelope', async () => {
    const reply = await api('/v1/does-not-exist', { apikey: demo().test_api_key });
    expectError(reply, 404, 'not_found_error', 'not_found');
    expectError(await api('/v1/wallets/balance', { method: 'DELETE' }), 404, 'not_found_error', 'not_found');
  });

  it('answers 404 with the envelope and a request id for a malformed escape in a path parameter', async () => {
    for (const [path, method] of [
      ['/v1/charges/%ZZ', 'GET'],
      ['/v1/charges/ch_%', 'GET'],
      ['/v1/api-keys/%E0%A4%A', 'DELETE'],
    ] as const) {
      const reply = await api(path, { apikey: demo().test_api_key, method });
      expectError(reply, 404, 'not_found_error', 'not_found');
      expect(reply.headers.get('x-request-id')).toMatch(/^req_/);
    }
  });
});

describe('input a route does not read', () => {
  it('names an unknown query parameter or body field with 400 instead of ignoring it, after authentication', async () => {
    const { apikey } = await merchant();
    const charge = await newCharge(apikey);
    const id = rawId(charge.id);
    for (const [path, param] of [
      [`/v1/payments/${id}?foo=1`, 'foo'],
      [`/v1/payments/${id}/refunds?limit=5`, 'limit'],
      [`/v1/charges/${charge.id}?expand=customer`, 'expand'],
      // Read as an own name, as API Gateway sends it, never as the object's prototype.
      [`/v1/payments/${id}?__proto__=1`, '__proto__'],
    ] as const) {
      const reply = await api(path, { apikey });
      expectError(reply, 400, 'invalid_request_error', 'invalid_request');
      expect(reply.body.error.param).toBe(param);
      // Without a key the answer is 401, whatever the query says.
      expectError(await api(path), 401, 'authentication_error', 'unauthorized');
    }
    const cancel = (body: unknown) => api(`/v1/payments/${id}/cancel`, { apikey, method: 'POST', body });
    const withReason = await cancel({ reason: 'customer gave up' });
    expectError(withReason, 400, 'invalid_request_error', 'invalid_request');
    expect(withReason.body.error.param).toBe('reason');
    expect((await api(`/v1/payments/${id}`, { apikey })).body.status).toBe('WAITING_PAYMENT');
    // `{}`, which clients send by habit, is no body.
    expect((await cancel({})).body.status).toBe('CANCELLED');
  });
});
