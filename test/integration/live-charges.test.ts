/**
 * Live mode against the local PSP (README, "Live mode"): an account whose acquirer was set with
 * `npm run admin -- set-provider` creates live charges at the PSP (`PUT /cob/{txid}` over mutual
 * TLS, OAuth2), and the charge carries the PSP's copy-and-paste code; an acquirer outage is 503
 * with nothing stored, and the same Idempotency-Key succeeds once it is back; provider-status
 * reads the cob there live, and a cancel removes it there first.
 */

import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { StoredCob } from '../../infra/local/psp/bank.ts';
import type { LocalPsp } from '../../infra/local/psp/server.ts';
import { acquirerCallBudgets, lambdaTimeoutSeconds } from '../../shared/resources.ts';
import { db, tableName } from '../../shared/store/client.ts';
import { accountKey } from '../../shared/store/keys.ts';
import { newAccount, newKey } from '../helpers/accounts.ts';
import { rawId } from '../helpers/charges.ts';
import { documentsAbout, emfDocuments, metricTotal } from '../helpers/emf.ts';
import { parseBrCode } from '../helpers/emv-parser.ts';
import { eventually } from '../helpers/eventually.ts';
import { api, expectError } from '../helpers/http.ts';
import { testBaseUrl } from '../helpers/local-env.ts';
import { control, liveMerchantAt, setProviderAt, startPsp } from '../helpers/psp.ts';
import { decodeQr } from '../helpers/qr.ts';
import { requestLogRecord } from '../helpers/runtime-log.ts';

let psp: LocalPsp;
let liveKey: string;

beforeAll(async () => {
  psp = await startPsp();
  ({ liveKey } = await liveMerchantAt(psp, 'Loja Viva'));
});
afterAll(async () => {
  await psp?.stop();
});

const create = (body: Record<string, unknown>, key = `live-${randomUUID()}`) =>
  api('/v1/charges', { apikey: liveKey, headers: { 'Idempotency-Key': key }, body });

/** The cob the PSP holds for a charge's copy-and-paste code. */
const cobOf = (brCode: string): StoredCob | undefined =>
  [...psp.bank.cobs.values()].find((cob) => cob.pixCopiaECola === brCode);

describe('live charges through the API Pix acquirer', () => {
  it('creates the cob at the PSP and answers with its copy-and-paste code', async () => {
    const reply = await create({
      amount: 1050,
      payment_method: 'pix',
      description: 'Pedido 42',
      expires_in: 900,
      customer: { name: 'Maria Silva' },
      expected_payer_tax_id: '52998224725',
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ status: 'pending', amount: 1050 });
    const brCode = reply.body.pix.br_code as string;
    const cob = cobOf(brCode);
    expect(cob).toMatchObject({
      status: 'ATIVA',
      calendario: { expiracao: 900 },
      valor: { original: '10.50' },
      chave: psp.pixKey,
      solicitacaoPagador: 'Pedido 42',
      devedor: { cpf: '52998224725', nome: 'Maria Silva' },
    });
    // The PSP's own location is in the code, not this service's sandbox location.
    expect(brCode).toContain(cob?.location);
    expect(brCode).not.toContain(new URL(testBaseUrl).host);
    // Its QR image is that code, whoever issued it.
    expect(decodeQr(Buffer.from(reply.body.pix.qr_code_base64, 'base64'))).toBe(brCode);
    // Read back: the same code.
    expect((await api(`/v1/charges/${reply.body.id}`, { apikey: liveKey })).body.pix.br_code).toBe(brCode);
  });

  it('a PSP that omits pixCopiaECola: the BR Code points at its location (or loc.location); with neither, 503, nothing stored, the cob withdrawn', async () => {
    await control(psp, 'POST', '/cob-fields', { pixCopiaECola: false });
    try {
      const reply = await create({ amount: 1234, payment_method: 'pix' });
      expect(reply.status).toBe(201);
      const code = parseBrCode(reply.body.pix.br_code);
      expect(code.crcValid).toBe(true);
      const location = code.merchantAccount.get('25');
      const cob = [...psp.bank.cobs.values()].find((c) => c.location === location);
      expect(cob).toMatchObject({ status: 'ATIVA', valor: { original: '12.34' } });
      expect(code.fields.get('54')).toBe('12.34');
      expect(location).not.toContain(new URL(testBaseUrl).host);

      // Without `location`, its `loc` (a PayloadLocation) names it.
      await control(psp, 'POST', '/cob-fields', { location: false });
      const viaLoc = await create({ amount: 1235, payment_method: 'pix' });
      expect(viaLoc.status).toBe(201);
      const locCob = [...psp.bank.cobs.values()].find(
        (c) => c.loc.location === parseBrCode(viaLoc.body.pix.br_code).merchantAccount.get('25'),
      );
      expect(locCob).toMatchObject({ status: 'ATIVA', valor: { original: '12.35' } });

      await control(psp, 'POST', '/cob-fields', { loc: false });
      const before = (await api('/v1/charges?limit=100', { apikey: liveKey })).body.data.length;
      const cobsBefore = new Set(psp.bank.cobs.keys());
      expectError(
        await create({ amount: 4321, payment_method: 'pix' }),
        503,
        'api_error',
        'service_unavailable',
      );
      expect((await api('/v1/charges?limit=100', { apikey: liveKey })).body.data).toHaveLength(before);
      // The cob the PSP made is not left payable behind no charge.
      const made = [...psp.bank.cobs.values()].filter((c) => !cobsBefore.has(c.txid));
      expect(made.map((c) => c.status)).toEqual(['REMOVIDA_PELO_USUARIO_RECEBEDOR']);
    } finally {
      await control(psp, 'POST', '/cob-fields', { pixCopiaECola: true, location: true, loc: true });
    }
  });

  it('an acquirer outage is 503 with nothing stored; the same key succeeds once it is back', async () => {
    const key = `live-${randomUUID()}`;
    const cobsBefore = psp.bank.cobs.size;
    const acquirerErrors = () =>
      metricTotal(
        documentsAbout(
          emfDocuments(join(inject('dataDir'), 'metrics.jsonl')),
          'acquirers',
          new URL(psp.baseUrl).host,
        ),
        'AcquirerErrors',
        'live',
      );
    const errorsBefore = acquirerErrors();
    await control(psp, 'POST', '/mode', { mode: 'down' });
    try {
      expectError(
        await create({ amount: 700, payment_method: 'pix' }, key),
        503,
        'api_error',
        'service_unavailable',
      );
    } finally {
      await control(psp, 'POST', '/mode', { mode: 'up' });
    }
    // The transport counted the failed call as an acquirer error (EMF, live mode): the total of
    // the documents naming this file's PSP grows past what it was before the outage.
    await eventually(() => expect(acquirerErrors()).toBeGreaterThan(errorsBefore));
    expect(psp.bank.cobs.size).toBe(cobsBefore);
    const list = await api('/v1/charges?limit=100', { apikey: liveKey });
    expect(list.body.data.some((c: { amount: number }) => c.amount === 700)).toBe(false);

    const retried = await create({ amount: 700, payment_method: 'pix' }, key);
    expect(retried.status).toBe(201);
    expect(cobOf(retried.body.pix.br_code)?.valor.original).toBe('7.00');
    // And once created, the same key replays it.
    const replay = await create({ amount: 700, payment_method: 'pix' }, key);
    expect(replay.body.id).toBe(retried.body.id);
  });

  it('an acquirer that says when to come back (503 with Retry-After) passes it on: 503 with the same Retry-After, nothing stored', async () => {
    const key = `live-${randomUUID()}`;
    const cobsBefore = psp.bank.cobs.size;
    // Past the request's budget: answered at once, not retried.
    await control(psp, 'POST', '/mode', { mode: 'error5xx', status: 503, retryAfter: '120' });
    let reply: Awaited<ReturnType<typeof create>>;
    try {
      reply = await create({ amount: 710, payment_method: 'pix' }, key);
    } finally {
      await control(psp, 'POST', '/mode', { mode: 'up' });
    }
    expectError(reply, 503, 'api_error', 'service_unavailable');
    expect(reply.headers.get('retry-after')).toBe('120');
    expect(psp.bank.cobs.size).toBe(cobsBefore);
    // An outage that names no time gets none (the test above's `down`, here a bare 503).
    await control(psp, 'POST', '/mode', { mode: 'error5xx', count: 10 });
    try {
      const bare = await create({ amount: 711, payment_method: 'pix' });
      expectError(bare, 503, 'api_error', 'service_unavailable');
      expect(bare.headers.get('retry-after')).toBeNull();
    } finally {
      await control(psp, 'POST', '/mode', { mode: 'up' });
    }
    expect((await create({ amount: 710, payment_method: 'pix' }, key)).status).toBe(201);
  });

  it('a create retried after its answer was lost shows the cob’s own expiry, which started at the first attempt', async () => {
    const key = `live-${randomUUID()}`;
    const cobsBefore = new Set(psp.bank.cobs.keys());
    // The PUT is carried out (the cob's clock starts) and its answer lost, twice: the create is 503.
    await control(psp, 'POST', '/lose-answers', { count: 2, method: 'PUT', pathPrefix: '/cob/' });
    expectError(
      await create({ amount: 1500, payment_method: 'pix', expires_in: 60 }, key),
      503,
      'api_error',
      'service_unavailable',
    );
    const [cob] = [...psp.bank.cobs.values()].filter((c) => !cobsBefore.has(c.txid));
    const cobExpiresAt = Date.parse(String(cob?.calendario.criacao)) + 60_000;
    // Retried a while later with the same key: the same cob, whose window is already running.
    await eventually(() => expect(Date.now()).toBeGreaterThan(cobExpiresAt - 60_000 + 1_000));
    const retried = await create({ amount: 1500, payment_method: 'pix', expires_in: 60 }, key);
    expect(retried.status).toBe(201);
    expect(cobOf(retried.body.pix.br_code)?.txid).toBe(cob?.txid);
    expect(Date.parse(retried.body.pix.expires_at)).toBe(cobExpiresAt);
  });

  it('credentials the PSP refuses (401 invalid_client) are 503 with nothing stored or changed, on create, provider-status and cancel; the same key succeeds once renewed', async () => {
    const before = await create({ amount: 1300, payment_method: 'pix' });
    expect(before.status).toBe(201);
    const key = `live-${randomUUID()}`;
    await control(psp, 'POST', '/token', { refuseClient: true });
    try {
      const requestId = `refused-credentials-${randomUUID()}`;
      expectError(
        await api('/v1/charges', {
          apikey: liveKey,
          headers: { 'Idempotency-Key': key, 'x-request-id': requestId },
          body: { amount: 1400, payment_method: 'pix' },
        }),
        503,
        'api_error',
        'service_unavailable',
      );
      // The client is told only to retry; the request log says why, so ops can tell refused
      // credentials from an outage.
      expect((await requestLogRecord(requestId)).errorCause).toMatch(/^ProviderRequestError: .*answered 401/);
      expectError(
        await api(`/v1/payments/${rawId(before.body.id)}/provider-status`, { apikey: liveKey }),
        503,
        'api_error',
        'service_unavailable',
      );
      const cancel = await api(`/v1/payments/${rawId(before.body.id)}/cancel`, {
        apikey: liveKey,
        method: 'POST',
      });
      expectError(cancel, 503, 'api_error', 'service_unavailable');
      expect((await api(`/v1/charges/${before.body.id}`, { apikey: liveKey })).body.status).toBe('pending');
    } finally {
      await control(psp, 'POST', '/token', { refuseClient: false });
    }
    const retried = await create({ amount: 1400, payment_method: 'pix' }, key);
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a PSP slower than an attempt: 503 service_unavailable within the request budget, before the API Lambda times out', async () => {
    const key = `live-${randomUUID()}`;
    // Every answer 15 s late: longer than an attempt, longer than the whole Lambda.
    await control(psp, 'POST', '/mode', { mode: 'slow', delayMs: 15_000 });
    const started = Date.now();
    let reply: Awaited<ReturnType<typeof create>>;
    try {
      reply = await create({ amount: 800, payment_method: 'pix' }, key);
    } finally {
      await control(psp, 'POST', '/mode', { mode: 'up' });
    }
    const elapsed = Date.now() - started;
    expectError(reply, 503, 'api_error', 'service_unavailable');
    // Within the request budget (shared/resources.ts), under the API Lambda's timeout.
    expect(elapsed).toBeGreaterThanOrEqual(acquirerCallBudgets.request.attemptTimeoutMs);
    expect(elapsed).toBeLessThan(acquirerCallBudgets.request.totalMs + 1_000);
    expect(elapsed).toBeLessThan(lambdaTimeoutSeconds.api * 1000);
    // Safe to retry with the same key once the PSP answers in time.
    const retried = await create({ amount: 800, payment_method: 'pix' }, key);
    expect(retried.status).toBe(201);
  });

  it('one key, two bodies in flight at once: the winner has a cob of its own amount, never revised; the other is 409', async () => {
    const key = `live-${randomUUID()}`;
    const cobsBefore = new Set(psp.bank.cobs.keys());
    // A slow PSP holds both PUT /cob in flight together, past both idempotency reads.
    await control(psp, 'POST', '/mode', { mode: 'slow', delayMs: 800, count: 20 });
    let replies: Awaited<ReturnType<typeof create>>[];
    try {
      replies = await Promise.all([
        create({ amount: 1100, payment_method: 'pix' }, key),
        create({ amount: 2200, payment_method: 'pix' }, key),
      ]);
    } finally {
      await control(psp, 'POST', '/mode', { mode: 'up' });
    }
    const winner = replies.find((r) => r.status === 201);
    const loser = replies.find((r) => r.status !== 201);
    if (!winner || !loser) throw new Error(`expected one 201: ${replies.map((r) => r.status)}`);
    expectError(loser, 409, 'conflict_error', 'idempotency_key_reused');
    const cob = cobOf(winner.body.pix.br_code);
    expect(cob).toMatchObject({ status: 'ATIVA', revisao: 0 });
    expect(cob?.valor.original).toBe((winner.body.amount / 100).toFixed(2));
    // Both creates reached the PSP (the race this test is about happened), each with a cob of its
    // own txid; without per-body txids the second PUT revised the first cob instead.
    const newCobs = [...psp.bank.cobs.entries()].filter(([txid]) => !cobsBefore.has(txid)).map(([, c]) => c);
    expect(newCobs.map((c) => c.valor.original).sort()).toEqual(['11.00', '22.00']);
    // The other body's cob, whose code nobody was shown, is withdrawn before its 409 (its only revision).
    const other = newCobs.find((c) => c.txid !== cob?.txid);
    expect(other).toMatchObject({ status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR', revisao: 1 });
  });

  it('creates refused at the account limit after their cob was made withdraw that cob: no code left payable without a charge', async () => {
    const { id: accountId } = await newAccount({ settings: { velocity: { accountMaxPending: 2 } } });
    await setProviderAt(psp, accountId);
    const key = await newKey(accountId, 'live');
    const cobsBefore = new Set(psp.bank.cobs.keys());
    // A slow PSP holds every PUT /cob in flight past every create's first read of the counter:
    // all six pass it, make a cob, and only then race for the account's two places.
    await control(psp, 'POST', '/mode', { mode: 'slow', delayMs: 800, count: 40 });
    let replies: Awaited<ReturnType<typeof create>>[];
    try {
      replies = await Promise.all(
        Array.from({ length: 6 }, () =>
          api('/v1/charges', {
            apikey: key,
            headers: { 'Idempotency-Key': `live-${randomUUID()}` },
            body: { amount: 1500, payment_method: 'pix' },
          }),
        ),
      );
    } finally {
      await control(psp, 'POST', '/mode', { mode: 'up' });
    }

    const created = replies.filter((r) => r.status === 201);
    expect(created).toHaveLength(2);
    for (const r of replies.filter((r) => r.status !== 201))
      expectError(r, 403, 'permission_error', 'fraud.account_velocity_exceeded');
    const newCobs = [...psp.bank.cobs.values()].filter((c) => !cobsBefore.has(c.txid));
    // Six cobs were made (the race happened after the PSP); only the charges' own stay payable.
    expect(newCobs).toHaveLength(6);
    const charged = new Set(created.map((r) => r.body.pix.br_code));
    expect(
      newCobs
        .filter((c) => c.status === 'ATIVA')
        .map((c) => c.pixCopiaECola)
        .sort(),
    ).toEqual([...charged].sort());
    expect(newCobs.filter((c) => c.status === 'REMOVIDA_PELO_USUARIO_RECEBEDOR')).toHaveLength(4);
  });

  it('a cancel of a charge whose cob the PSP already concluded settles its Pix and answers payment_not_cancellable', async () => {
    const created = await create({ amount: 1500, payment_method: 'pix' });
    expect(created.status).toBe(201);
    const paymentId = rawId(created.body.id);
    const txid = cobOf(created.body.pix.br_code)?.txid as string;
    // The Pix reaches neither the callback nor reconciliation's GET /pix before the cancel.
    const hook = psp.bank.webhooks.get(psp.pixKey);
    psp.bank.webhooks.delete(psp.pixKey);
    await control(psp, 'POST', '/lose-answers', { count: 1_000_000, method: 'GET', path: '/pix' });
    try {
      await control(psp, 'POST', `/cob/${txid}/pay`, {});
      const cancelled = await api(`/v1/payments/${paymentId}/cancel`, { apikey: liveKey, method: 'POST' });
      expectError(cancelled, 400, 'invalid_request_error', 'payment_not_cancellable');
    } finally {
      await control(psp, 'POST', '/lose-answers', { count: 0 });
      if (hook) psp.bank.webhooks.set(psp.pixKey, hook);
    }
    expect((await api(`/v1/charges/${created.body.id}`, { apikey: liveKey })).body.status).toBe('paid');
  });

  it('a cancel the PSP refuses while its cob is still ATIVA answers 503 and changes nothing', async () => {
    const created = await create({ amount: 1300, payment_method: 'pix' });
    expect(created.status).toBe(201);
    const paymentId = rawId(created.body.id);
    const txid = cobOf(created.body.pix.br_code)?.txid as string;
    await control(psp, 'POST', '/refuse', { count: 1, method: 'PATCH', path: `/cob/${txid}` });

    const refused = await api(`/v1/payments/${paymentId}/cancel`, { apikey: liveKey, method: 'POST' });

    expectError(refused, 503, 'api_error', 'service_unavailable');
    expect(cobOf(created.body.pix.br_code)?.status).toBe('ATIVA');
    expect((await api(`/v1/payments/${paymentId}`, { apikey: liveKey })).body.status).toBe('WAITING_PAYMENT');
    // Retried once the PSP takes it: the QR is withdrawn, then the payment cancelled.
    const cancelled = await api(`/v1/payments/${paymentId}/cancel`, { apikey: liveKey, method: 'POST' });
    expect(cancelled.body.status).toBe('CANCELLED');
    expect(cobOf(created.body.pix.br_code)?.status).toBe('REMOVIDA_PELO_USUARIO_RECEBEDOR');
  });

  it('provider-status reads the cob at the PSP live; a cancel removes it there first', async () => {
    const created = await create({ amount: 900, payment_method: 'pix' });
    expect(created.status).toBe(201);
    const paymentId = rawId(created.body.id);
    const status = await api(`/v1/payments/${paymentId}/provider-status`, { apikey: liveKey });
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({
      localStatus: 'WAITING_PAYMENT',
      provider: 'api-pix',
      providerStatus: 'ATIVA',
      rawResponse: { pixCopiaECola: created.body.pix.br_code, valor: { original: '9.00' } },
    });

    const cancelled = await api(`/v1/payments/${paymentId}/cancel`, { apikey: liveKey, method: 'POST' });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('CANCELLED');
    expect(cobOf(created.body.pix.br_code)?.status).toBe('REMOVIDA_PELO_USUARIO_RECEBEDOR');
    const after = await api(`/v1/payments/${paymentId}/provider-status`, { apikey: liveKey });
    expect(after.body).toMatchObject({
      localStatus: 'CANCELLED',
      providerStatus: 'REMOVIDA_PELO_USUARIO_RECEBEDOR',
    });
  });

  it('a live payment whose account no longer has an acquirer: cancel and provider-status are 422, the payment and its cob unchanged', async () => {
    const merchant = await liveMerchantAt(psp, 'Loja Sem Adquirente');
    const created = await api('/v1/charges', {
      apikey: merchant.liveKey,
      headers: { 'Idempotency-Key': `live-${randomUUID()}` },
      body: { amount: 700, payment_method: 'pix' },
    });
    expect(created.status).toBe(201);
    const paymentId = rawId(created.body.id);
    // An operator removed the account's acquirer from the table (no command does: set-provider
    // only replaces it).
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: accountKey(merchant.accountId),
        UpdateExpression: 'REMOVE acquirer',
      }),
    );

    const cancel = await api(`/v1/payments/${paymentId}/cancel`, {
      apikey: merchant.liveKey,
      method: 'POST',
    });
    expectError(cancel, 422, 'invalid_request_error', 'unprocessable_entity');
    const status = await api(`/v1/payments/${paymentId}/provider-status`, { apikey: merchant.liveKey });
    expectError(status, 422, 'invalid_request_error', 'unprocessable_entity');
    expect((await api(`/v1/payments/${paymentId}`, { apikey: merchant.liveKey })).body.status).toBe(
      'WAITING_PAYMENT',
    );
    expect(cobOf(created.body.pix.br_code)?.status).toBe('ATIVA');
  });
});
