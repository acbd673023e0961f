/**
 * The SDK's transport against a scripted HTTP server on loopback: idempotency keys, which
 * answers are retried, backoff and Retry-After. No fetch mock: real requests, real sockets.
 */

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ApiError,
  ConflictError,
  ConnectionError,
  EvidenceUploadError,
  InvalidRequestError,
  NotFoundError,
  PixClient,
  parseRetryAfter,
  RateLimitError,
  responseOf,
  retryDelayMs,
} from '../../sdk/src/index.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/**
 * `drop`: close the socket without answering (a lost answer); `stall`: send headers, never the
 * whole body; `truncate`: a 200 announcing 1000 bytes, then part of them and a closed socket.
 */
type Script =
  | { status: number; headers?: Record<string, string>; body?: unknown }
  | 'drop'
  | 'stall'
  | 'truncate'
  | { delayMs: number };

const seen: Seen[] = [];
let script: Script[] = [];
let server: Server;
let baseUrl: string;

const envelope = (type: string, code: string, extra: Record<string, unknown> = {}) => ({
  error: { type, code, message: `${code} happened`, ...extra },
  request_id: `req_${code}`,
});

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      });
      const next = script.shift() ?? { status: 200, body: { ok: true } };
      if (next === 'drop') return void req.socket.destroy();
      if (next === 'truncate') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        return void res.write('{"id":"ch_1","object":', () => req.socket.destroy());
      }
      if (next === 'stall')
        return void res.writeHead(200, { 'content-type': 'application/json' }).write('{"id":');
      if ('delayMs' in next) return void setTimeout(() => res.writeHead(200).end('{}'), next.delayMs).unref();
      res
        .writeHead(next.status, { 'content-type': 'application/json', ...next.headers })
        .end(next.body === undefined ? '' : JSON.stringify(next.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  seen.length = 0;
  script = [];
});

/** A client with millisecond backoff so the tests stay fast (Retry-After tests set their own). */
const client = (options: Partial<ConstructorParameters<typeof PixClient>[0]> = {}) =>
  new PixClient({ baseUrl, apiKey: 'ak_test_unit', initialRetryDelayMs: 5, maxRetryDelayMs: 20, ...options });

const charge = { id: 'ch_1', object: 'charge' };

describe('idempotency keys on creates', () => {
  it('retries a 503 on a charge creation with one generated Idempotency-Key on every attempt', async () => {
    script = [
      { status: 503, body: envelope('api_error', 'service_unavailable') },
      { status: 502 },
      { status: 201, body: charge },
    ];
    expect(await client().charges.create({ amount: 1050 })).toEqual(charge);
    expect(seen).toHaveLength(3);
    const keys = seen.map((r) => r.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^sdk-[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(1);
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({ payment_method: 'pix', amount: 1050 });
    expect(seen[0]?.headers.apikey).toBe('ak_test_unit');
  });

  it('sends payment_method pix when the caller spreads in an undefined one', async () => {
    script = [{ status: 201, body: charge }];
    const fromAForm = { amount: 1050, payment_method: undefined };
    await client().charges.create(fromAForm as never);
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({ amount: 1050, payment_method: 'pix' });
  });

  it("sends the caller's own key instead of a generated one", async () => {
    await client().charges.create({ amount: 1050 }, { idempotencyKey: 'order-42-attempt' });
    expect(seen[0]?.headers['idempotency-key']).toBe('order-42-attempt');
  });

  it('takes a key or an API key the caller put in the headers, in any case, instead of its own (never both)', async () => {
    script = [{ status: 503 }, { status: 201, body: charge }];
    await client().charges.create(
      { amount: 1050 },
      { headers: { 'Idempotency-Key': 'order-44-attempt', Apikey: 'ak_test_other' } },
    );
    expect(seen.map((r) => [r.headers['idempotency-key'], r.headers.apikey])).toEqual([
      ['order-44-attempt', 'ak_test_other'],
      ['order-44-attempt', 'ak_test_other'],
    ]);
  });

  it('creates a charge through POST /v1/pix/charges with a generated Idempotency-Key, kept on a retry', async () => {
    script = [{ status: 503 }, { status: 201, body: charge }];
    expect(await client().charges.createPix({ amount: 1050, description: 'Pedido 42' })).toEqual(charge);
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /v1/pix/charges', 'POST /v1/pix/charges']);
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({ amount: 1050, description: 'Pedido 42' });
    expect(seen[0]?.headers['idempotency-key']).toMatch(/^sdk-[0-9a-f-]{36}$/);
    expect(seen[1]?.headers['idempotency-key']).toBe(seen[0]?.headers['idempotency-key']);
    await client().charges.createPix({ amount: 1 }, { idempotencyKey: 'order-43' });
    expect(seen[2]?.headers['idempotency-key']).toBe('order-43');
  });

  it('puts the key of payments and refunds in the body, the same one on a retry', async () => {
    script = [{ status: 500 }, { status: 201, body: {} }, { status: 500 }, { status: 201, body: {} }];
    const sdk = client();
    await sdk.payments.create({ amount: 500, paymentMethods: ['PIX'] });
    await sdk.payments.refunds.create('0190-raw-id', { amount: 100, idempotencyKey: 'refund-order-42' });
    const bodies = seen.map((r) => JSON.parse(r.body));
    expect(bodies[0].idempotencyKey).toMatch(/^sdk-/);
    expect(bodies[1].idempotencyKey).toBe(bodies[0].idempotencyKey);
    expect(bodies[2]).toEqual({ amount: 100, idempotencyKey: 'refund-order-42' });
    expect(bodies[3]).toEqual(bodies[2]);
    expect(seen[2]?.url).toBe('/v1/payments/0190-raw-id/refund');
  });

  it('takes the body key from an Idempotency-Key header given in options (the service refuses them differing)', async () => {
    script = [
      { status: 201, body: {} },
      { status: 201, body: {} },
    ];
    const sdk = client();
    await sdk.payments.create(
      { amount: 500, paymentMethods: ['PIX'] },
      { headers: { 'Idempotency-Key': 'order-44' } },
    );
    await sdk.payments.refunds.create('0190-raw-id', {}, { headers: { 'idempotency-key': 'refund-44' } });
    expect(seen.map((r) => [JSON.parse(r.body).idempotencyKey, r.headers['idempotency-key']])).toEqual([
      ['order-44', 'order-44'],
      ['refund-44', 'refund-44'],
    ]);
  });
});

describe('which failures are retried', () => {
  it.each([
    [400, 'invalid_request_error', InvalidRequestError],
    [404, 'not_found_error', NotFoundError],
    [409, 'conflict_error', ConflictError],
    [422, 'invalid_request_error', InvalidRequestError],
  ])('never retries a %i', async (status, type, ErrorClass) => {
    script = [{ status, body: envelope(type, `code_${status}`) }];
    await expect(client().charges.create({ amount: 1 })).rejects.toBeInstanceOf(ErrorClass);
    expect(seen).toHaveLength(1);
  });

  it('gives up after maxRetries and throws the last answer as a typed error', async () => {
    script = Array.from({ length: 5 }, () => ({
      status: 503,
      body: envelope('api_error', 'service_unavailable'),
    }));
    const error = await client({ maxRetries: 3 })
      .charges.retrieve('ch_1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      statusCode: 503,
      code: 'service_unavailable',
      requestId: 'req_service_unavailable',
    });
    expect(seen).toHaveLength(4);
  });

  it('retries a read whose answer was lost', async () => {
    script = ['drop', { status: 200, body: charge }];
    expect(await client().charges.retrieve('ch_1')).toEqual(charge);
    expect(seen).toHaveLength(2);
  });

  it('does not repeat a plain POST after a 5xx or a lost answer: it may have been done', async () => {
    script = [{ status: 500, body: envelope('api_error', 'internal_error') }];
    await expect(client().sandbox.pay('ch_1')).rejects.toBeInstanceOf(ApiError);
    script = ['drop'];
    await expect(client().sandbox.pay('ch_1')).rejects.toBeInstanceOf(ConnectionError);
    expect(seen).toHaveLength(2);
  });

  it('retries a 429 even on a plain POST: the service refused it before doing anything', async () => {
    script = [
      { status: 429, headers: { 'retry-after': '0' }, body: envelope('rate_limit_error', 'rate_limited') },
    ];
    expect(await client().sandbox.pay('ch_1')).toEqual({ ok: true });
    expect(seen).toHaveLength(2);
  });

  it('times out a slow attempt and retries it, then reports a timeout', async () => {
    script = [{ delayMs: 1_000 }, { delayMs: 1_000 }];
    const error = await client({ timeoutMs: 100, maxRetries: 1 })
      .charges.retrieve('ch_1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ type: 'connection_error', code: 'timeout' });
    expect(seen).toHaveLength(2);
  });

  it('counts reading the body in the timeout', async () => {
    script = ['stall'];
    const error = await client({ timeoutMs: 200, maxRetries: 0 })
      .charges.retrieve('ch_1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ code: 'timeout' });
  });

  it('retries a read whose body was cut off mid-way, within the retry budget', async () => {
    script = ['truncate', { status: 200, body: charge }];
    expect(await client().charges.retrieve('ch_1')).toEqual(charge);
    expect(seen).toHaveLength(2);
    seen.length = 0;
    script = ['truncate', 'truncate', 'truncate'];
    const error = await client({ maxRetries: 1 })
      .charges.retrieve('ch_1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ code: 'connection_failed', message: expect.stringMatching(/cut off/) });
    expect(seen).toHaveLength(2);
  });

  it('does not repeat a plain POST whose answer was cut off', async () => {
    script = ['truncate'];
    await expect(client().sandbox.pay('ch_1')).rejects.toMatchObject({
      name: 'ConnectionError',
      message: expect.stringMatching(/cut off/),
    });
    expect(seen).toHaveLength(1);
  });

  it('reports a refused connection as a ConnectionError', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const sdk = new PixClient({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: 'k',
      maxRetries: 1,
      initialRetryDelayMs: 1,
    });
    await expect(sdk.sandbox.pay('ch_1')).rejects.toMatchObject({
      name: 'ConnectionError',
      code: 'connection_failed',
    });
  });
});

describe('a DELETE retried after a lost answer', () => {
  const notFound = { status: 404, body: envelope('not_found_error', 'not_found') };

  it.each([
    ['dropped', 'drop' as const],
    ['cut off', 'truncate' as const],
    ['a 503', { status: 503, body: envelope('api_error', 'service_unavailable') }],
  ])('resolves as deleted when the retry finds the resource gone (first answer %s)', async (_, first) => {
    script = [first, notFound];
    expect(await client().webhookEndpoints.del('we_1')).toEqual({ deleted: true });
    script = [first, notFound];
    expect(await client({ token: 'jwt' }).apiKeys.revoke('key_1')).toEqual({ revoked: true });
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual([
      'DELETE /v1/webhooks/endpoints/we_1',
      'DELETE /v1/webhooks/endpoints/we_1',
      'DELETE /v1/api-keys/key_1',
      'DELETE /v1/api-keys/key_1',
    ]);
  });

  it('still throws a 404 on the first attempt, or after only a 429 (which did nothing)', async () => {
    script = [notFound];
    await expect(client().webhookEndpoints.del('we_1')).rejects.toBeInstanceOf(NotFoundError);
    script = [
      { status: 429, headers: { 'retry-after': '0' }, body: envelope('rate_limit_error', 'rate_limited') },
      notFound,
    ];
    await expect(client({ token: 'jwt' }).apiKeys.revoke('key_1')).rejects.toBeInstanceOf(NotFoundError);
    expect(seen).toHaveLength(3);
  });
});

describe('listAll', () => {
  it('stops payments.listAll at the depth the service allows (page × limit ≤ 1000) instead of throwing', async () => {
    const page = (n: number, limit: number) => ({
      status: 200,
      body: {
        data: Array.from({ length: limit }, (_, i) => ({ id: `p${(n - 1) * limit + i}` })),
        total: 5000,
        page: n,
        limit,
      },
    });
    const refused = {
      status: 400,
      body: envelope('invalid_request_error', 'invalid_request', { param: 'page' }),
    };
    script = [...Array.from({ length: 10 }, (_, i) => page(i + 1, 100)), refused];
    const ids: string[] = [];
    for await (const payment of client().payments.listAll({ limit: 100 })) ids.push(payment.id);
    expect(ids).toHaveLength(1000);
    expect(new Set(ids).size).toBe(1000);
    expect(seen.map((r) => r.url)).toEqual(
      Array.from({ length: 10 }, (_, i) => `/v1/payments?limit=100&page=${i + 1}`),
    );
    seen.length = 0;
    // A limit that does not divide 1000: 33 × 30 = 990 is the deepest allowed page.
    script = [...Array.from({ length: 33 }, (_, i) => page(i + 1, 30)), refused];
    let count = 0;
    for await (const _ of client().payments.listAll({ limit: 30 })) count++;
    expect(count).toBe(990);
    expect(seen).toHaveLength(33);
  });
});

describe('listAll while items arrive', () => {
  it('yields each payment and delivery once when a new one shifts the later pages', async () => {
    const items = (...ids: string[]) => ids.map((id) => ({ id }));
    // p6 arrives between the pages: p3 moves from page 1 onto page 2.
    script = [
      { status: 200, body: { data: items('p5', 'p4', 'p3'), total: 5, page: 1, limit: 3 } },
      { status: 200, body: { data: items('p3', 'p2', 'p1'), total: 6, page: 2, limit: 3 } },
      { status: 200, body: { data: [], total: 6, page: 3, limit: 3 } },
    ];
    const payments: string[] = [];
    for await (const payment of client().payments.listAll({ limit: 3 })) payments.push(payment.id);
    expect(payments).toEqual(['p5', 'p4', 'p3', 'p2', 'p1']);

    script = [
      { status: 200, body: { data: items('d5', 'd4', 'd3'), total: 5, offset: 0, limit: 3 } },
      { status: 200, body: { data: items('d3', 'd2', 'd1'), total: 6, offset: 3, limit: 3 } },
      { status: 200, body: { data: [], total: 6, offset: 6, limit: 3 } },
    ];
    const deliveries: string[] = [];
    for await (const delivery of client().webhookDeliveries.listAll({ limit: 3 }))
      deliveries.push(delivery.id);
    expect(deliveries).toEqual(['d5', 'd4', 'd3', 'd2', 'd1']);
  });
});

describe('listAll while the totals lag', () => {
  it('goes on to the short page that ends the list, whatever total says (it follows the list within seconds)', async () => {
    const items = (...ids: string[]) => ids.map((id) => ({ id }));
    script = [
      { status: 200, body: { data: items('p5', 'p4', 'p3'), total: 3, page: 1, limit: 3 } },
      { status: 200, body: { data: items('p2', 'p1'), total: 3, page: 2, limit: 3 } },
    ];
    const payments: string[] = [];
    for await (const payment of client().payments.listAll({ limit: 3 })) payments.push(payment.id);
    expect(payments).toEqual(['p5', 'p4', 'p3', 'p2', 'p1']);
    expect(seen).toHaveLength(2);

    script = [
      { status: 200, body: { data: items('d5', 'd4', 'd3'), total: 3, offset: 0, limit: 3 } },
      { status: 200, body: { data: items('d2', 'd1'), total: 3, offset: 3, limit: 3 } },
    ];
    const deliveries: string[] = [];
    for await (const delivery of client().webhookDeliveries.listAll({ limit: 3 }))
      deliveries.push(delivery.id);
    expect(deliveries).toEqual(['d5', 'd4', 'd3', 'd2', 'd1']);
  });
});

describe('answers that are not the service', () => {
  it('throws an ApiError for a 2xx whose body is not JSON (a proxy page), rather than resolving undefined', async () => {
    // The scripted server answers JSON: a server of its own sends the HTML.
    const html = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html>'),
    );
    await new Promise<void>((resolve) => html.listen(0, '127.0.0.1', resolve));
    try {
      const pix = new PixClient({
        baseUrl: `http://127.0.0.1:${(html.address() as AddressInfo).port}`,
        apiKey: 'ak_test_unit',
      });
      const error = await pix.charges.retrieve('ch_1').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ code: 'invalid_response', statusCode: 200 });
    } finally {
      html.closeAllConnections();
      await new Promise((resolve) => html.close(resolve));
    }
  });

  it('keeps an empty 2xx body (a 204) as no body', async () => {
    script = [{ status: 204 }];
    await expect(client({ token: 't' }).auth.logout()).resolves.toBeUndefined();
  });
});

describe('evidence uploads', () => {
  it("tells the storage's failure (api_error, try later) from its refusal (invalid_request_error)", async () => {
    const grant = () => ({
      status: 201,
      body: { id: 'ev_1', upload_url: `${baseUrl}/upload`, upload_method: 'PUT', upload_headers: {} },
    });
    const upload = () =>
      client({ maxRetries: 0 })
        .medCases.uploadEvidence('med_1', new Uint8Array([1, 2, 3]), {
          fileName: 'r.pdf',
          mimeType: 'application/pdf',
        })
        .catch((e: unknown) => e);
    script = [grant(), { status: 503 }];
    const failed = await upload();
    expect(failed).toBeInstanceOf(EvidenceUploadError);
    expect(failed).toMatchObject({ type: 'api_error', code: 'evidence_upload_failed', statusCode: 503 });
    script = [grant(), { status: 403 }];
    expect(await upload()).toMatchObject({
      type: 'invalid_request_error',
      code: 'evidence_upload_refused',
      statusCode: 403,
    });
  });
});

describe('redirects', () => {
  it('never follows one: a POST is not turned into a GET whose answer passes for the create', async () => {
    script = [{ status: 301, headers: { location: '/v1/charges/ch_1' } }];
    const error = await client()
      .charges.create({ amount: 1050 })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ statusCode: 301, code: 'http_301' });
    expect(seen.map((r) => r.method)).toEqual(['POST']);
  });
});

describe('backoff and Retry-After', () => {
  it("waits the server's Retry-After before the retry", async () => {
    script = [
      { status: 429, headers: { 'retry-after': '1' }, body: envelope('rate_limit_error', 'rate_limited') },
    ];
    await client().wallets.list();
    expect(seen).toHaveLength(2);
    expect((seen[1]?.at ?? 0) - (seen[0]?.at ?? 0)).toBeGreaterThanOrEqual(950);
  });

  it('throws a RateLimitError at once when Retry-After is longer than the client will wait', async () => {
    script = [
      { status: 429, headers: { 'retry-after': '120' }, body: envelope('rate_limit_error', 'rate_limited') },
    ];
    const error = await client()
      .wallets.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterSeconds).toBe(120);
    expect(seen).toHaveLength(1);
  });

  it('doubles the delay each retry, half of it random, up to the ceiling', () => {
    const settings = { initialRetryDelayMs: 500, maxRetryDelayMs: 8_000, maxRetryAfterMs: 60_000 };
    const low = () => 0;
    const high = () => 0.999_999;
    expect([1, 2, 3, 4, 5, 6].map((n) => retryDelayMs(n, undefined, settings, low))).toEqual([
      250, 500, 1000, 2000, 4000, 4000,
    ]);
    expect(retryDelayMs(1, undefined, settings, high)).toBeCloseTo(500, 0);
    expect(retryDelayMs(6, undefined, settings, high)).toBeCloseTo(8000, 0);
  });

  it('never waits less than Retry-After, and not at all when it is beyond the limit', () => {
    const settings = { initialRetryDelayMs: 500, maxRetryDelayMs: 8_000, maxRetryAfterMs: 60_000 };
    expect(retryDelayMs(1, 3_000, settings, () => 0.5)).toBe(3_000);
    expect(retryDelayMs(5, 1_000, settings, () => 1)).toBe(8_000);
    expect(retryDelayMs(1, 61_000, settings)).toBeUndefined();
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-22T12:00:00Z');
    expect(parseRetryAfter('7', now)).toBe(7_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});

describe('credentials per route', () => {
  it('sends the API key to merchant routes, the bearer token to key management, nothing to public routes', async () => {
    const sdk = client({ token: 'jwt-token' });
    await sdk.charges.retrieve('ch_1');
    await sdk.apiKeys.list();
    await sdk.webhookEndpoints.eventCatalog();
    expect(seen.map((r) => [r.headers.apikey, r.headers.authorization])).toEqual([
      ['ak_test_unit', undefined],
      [undefined, 'Bearer jwt-token'],
      [undefined, undefined],
    ]);
  });

  it('refuses to call a key-management route without a token, before any request', async () => {
    await expect(client().apiKeys.list()).rejects.toThrow(/dashboard token/);
    expect(seen).toHaveLength(0);
  });
});

describe('what a call answered besides its body (responseOf)', () => {
  it('gives the status, request id, replay flag and retries behind a resolved value', async () => {
    script = [
      { status: 503 },
      { status: 201, headers: { 'x-request-id': 'req_42', 'idempotent-replayed': 'true' }, body: charge },
    ];
    const created = await client().charges.create({ amount: 1050 });
    expect(created).toEqual(charge);
    expect(responseOf(created)).toMatchObject({
      statusCode: 201,
      requestId: 'req_42',
      idempotentReplayed: true,
      retries: 1,
    });
    expect(responseOf(created)?.headers.get('content-type')).toBe('application/json');

    script = [{ status: 200, body: charge }];
    const read = await client().charges.retrieve('ch_1');
    expect(responseOf(read)).toMatchObject({
      statusCode: 200,
      requestId: undefined,
      idempotentReplayed: false,
      retries: 0,
    });
    expect(responseOf({ ...read })).toBeUndefined();
  });
});

describe('cancelling a call (signal)', () => {
  it('aborts the attempt in flight and retries nothing, rejecting with the signal reason', async () => {
    script = ['stall'];
    const controller = new AbortController();
    const call = client().charges.retrieve('ch_1', { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen).toHaveLength(1);
  });

  it('ends a backoff wait at once', async () => {
    script = [{ status: 503 }];
    const controller = new AbortController();
    const reason = new Error('shutting down');
    const started = Date.now();
    const call = client({ initialRetryDelayMs: 30_000, maxRetryDelayMs: 30_000 }).charges.retrieve('ch_1', {
      signal: controller.signal,
    });
    // Aborted once the first answer is in (the 503 that starts the wait).
    await vi.waitFor(() => expect(seen).toHaveLength(1));
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(seen).toHaveLength(1);
  });

  it('sends nothing when the signal is already aborted', async () => {
    await expect(
      client().charges.create({ amount: 1050 }, { signal: AbortSignal.abort() }),
    ).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen).toHaveLength(0);
  });

  it('leaves the per-attempt timeout a timeout (ConnectionError), retried as before', async () => {
    script = ['stall', { status: 200, body: charge }];
    const read = await client({ timeoutMs: 200 }).charges.retrieve('ch_1', {
      signal: new AbortController().signal,
    });
    expect(read).toEqual(charge);
    expect(responseOf(read)?.retries).toBe(1);
  });
});
