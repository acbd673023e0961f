/**
 * `GET /v1/payments/{id}/provider-status` and `GET /v1/payments/{id}/receipt` (Part 2) over
 * HTTP, as a merchant: the acquirer's live view of a payment (the sandbox answers API Pix's
 * `GET /cob/{txid}`), and the PDF receipt of a settled one, read back with pdfjs.
 */

import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { getAccount } from '../../shared/store/accounts.ts';
import { accountsCreatedHere, newKey } from '../helpers/accounts.ts';
import { expire, merchant, newCharge, pay, rawId } from '../helpers/charges.ts';
import { api, expectError } from '../helpers/http.ts';
import { testPorts } from '../helpers/local-env.ts';
import { readPdf } from '../helpers/pdf.ts';
import { confirmedRefund } from '../helpers/refunds.ts';
import { requestLogRecord, runtimeLogRecords } from '../helpers/runtime-log.ts';

const providerStatus = (apikey: string, id: string) => api(`/v1/payments/${id}/provider-status`, { apikey });
const receipt = (apikey: string, id: string) => api(`/v1/payments/${id}/receipt`, { apikey });
const payment = async (apikey: string, id: string) => (await api(`/v1/payments/${id}`, { apikey })).body;
const setAcquirer = (apikey: string, status: 'up' | 'down') =>
  api('/v1/sandbox/acquirer', { apikey, body: { status } });

/** The receipt's PDF, read like a person would (pages and text). */
async function receiptPdf(apikey: string, id: string) {
  const reply = await receipt(apikey, id);
  expect(reply.status).toBe(200);
  expect(Object.keys(reply.body).sort()).toEqual(['base64', 'contentType']);
  expect(reply.body.contentType).toBe('application/pdf');
  const bytes = Buffer.from(reply.body.base64, 'base64');
  expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
  return readPdf(bytes);
}

/**
 * `dd/mm/aaaa hh:mm:ss` in São Paulo, computed independently of the service's `Intl` formatting:
 * Brazil has kept UTC−3 all year since 2019 (no summer time), so for these dates it is −3 h.
 */
function saoPaulo(iso: string): string {
  const d = new Date(Date.parse(iso) - 3 * 3_600_000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCDate())}/${p(d.getUTCMonth() + 1)}/${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
}

const PAYER_CPF = '11144477735';
const LOCKED_CPF = '52998224725';

let m: { accountId: string; apikey: string };
beforeAll(async () => {
  m = await merchant();
});

describe('GET /v1/payments/{id}/provider-status', () => {
  it("reads a waiting charge from the acquirer: ATIVA, in API Pix's cob shape", async () => {
    const charge = await newCharge(m.apikey, {
      amount: 1050,
      description: 'Pedido 42',
      expires_in: 900,
      customer: { name: 'Ana Souza' },
      expected_payer_tax_id: LOCKED_CPF,
    });
    const reply = await providerStatus(m.apikey, rawId(charge.id));
    expect(reply.status).toBe(200);
    expect(reply.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(reply.body).sort()).toEqual(
      ['localStatus', 'provider', 'providerStatus', 'providerTransactionId', 'rawResponse'].sort(),
    );
    expect(reply.body).toMatchObject({
      localStatus: 'WAITING_PAYMENT',
      provider: 'sandbox',
      providerTransactionId: charge.pix.txid,
      providerStatus: 'ATIVA',
    });
    const cob = reply.body.rawResponse;
    expect(cob).toEqual({
      calendario: { criacao: charge.created_at, expiracao: 900 },
      txid: charge.pix.txid,
      revisao: 0,
      loc: {
        id: expect.any(Number),
        txid: charge.pix.txid,
        location: cob.location,
        tipoCob: 'cob',
        criacao: charge.created_at,
      },
      location: expect.stringMatching(/^127\.0\.0\.1:\d+\/pix\/[A-Za-z0-9_-]{22}$/),
      status: 'ATIVA',
      devedor: { cpf: LOCKED_CPF, nome: 'Ana Souza' },
      valor: { original: '10.50', modalidadeAlteracao: 0 },
      chave: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      solicitacaoPagador: 'Pedido 42',
      pixCopiaECola: charge.pix.br_code,
    });
    // The location is the one the BR Code carries (EMV field 26, sub-field 25).
    expect(charge.pix.br_code).toContain(cob.location);
  });

  it('is read live on every request: the Pix that pays the charge shows on the next read', async () => {
    const charge = await newCharge(m.apikey, { amount: 2590 });
    const before = await providerStatus(m.apikey, rawId(charge.id));
    expect(before.body).toMatchObject({ localStatus: 'WAITING_PAYMENT', providerStatus: 'ATIVA' });
    expect(before.body.rawResponse).not.toHaveProperty('pix');

    const paid = await pay(m.apikey, charge.id, { payer_document: PAYER_CPF, payer_name: 'Beto' });
    expect(paid.body.outcome).toBe('paid');
    const after = await providerStatus(m.apikey, rawId(charge.id));
    const { paidAt } = await payment(m.apikey, rawId(charge.id));
    expect(after.body).toMatchObject({ localStatus: 'PAID', providerStatus: 'CONCLUIDA' });
    expect(after.body.rawResponse.status).toBe('CONCLUIDA');
    expect(after.body.rawResponse.pix).toEqual([
      { endToEndId: paid.body.end_to_end_id, txid: charge.pix.txid, valor: '25.90', horario: paidAt },
    ]);
    // Who paid is not part of a cob: the payer's document never shows.
    expect(JSON.stringify(after.body)).not.toContain(PAYER_CPF);

    // Both reads asked the acquirer (`GET /cob/{txid}`): nothing was served from a cache.
    for (const reply of [before, after]) await requestLogRecord(reply.headers.get('x-request-id') ?? '');
    const calls = runtimeLogRecords().filter(
      (r) => r.message === 'provider.getCob' && r.txid === charge.pix.txid,
    );
    expect(calls).toHaveLength(2);
  });

  it('keeps an expired charge ATIVA at the acquirer (API Pix has no expired status) while it is EXPIRED here', async () => {
    const charge = await newCharge(m.apikey);
    expect((await expire(m.apikey, charge.id)).status).toBe(200);
    const reply = await providerStatus(m.apikey, rawId(charge.id));
    expect(reply.body).toMatchObject({ localStatus: 'EXPIRED', providerStatus: 'ATIVA' });
    expect(reply.body.rawResponse.calendario.expiracao).toBe(3600);
  });

  it('shows a Pix returned to a payer the lock refused: REFUNDED here, CONCLUIDA with its devolution there', async () => {
    const charge = await newCharge(m.apikey, {
      amount: 700,
      customer: { name: 'Ana' },
      expected_payer_tax_id: LOCKED_CPF,
    });
    const paid = await pay(m.apikey, charge.id, { payer_document: PAYER_CPF });
    expect(paid.body.outcome).toBe('refunded');
    const reply = await providerStatus(m.apikey, rawId(charge.id));
    expect(reply.body).toMatchObject({ localStatus: 'REFUNDED', providerStatus: 'CONCLUIDA' });
    expect(reply.body.rawResponse.pix).toEqual([
      {
        endToEndId: paid.body.end_to_end_id,
        txid: charge.pix.txid,
        valor: '7.00',
        horario: expect.any(String),
        devolucoes: [
          expect.objectContaining({
            id: expect.stringMatching(/^[a-zA-Z0-9]{1,35}$/),
            rtrId: expect.stringMatching(/^D\d{8}\d{12}[a-zA-Z0-9]{11}$/),
            valor: '7.00',
            natureza: 'ORIGINAL',
            status: expect.stringMatching(/^(EM_PROCESSAMENTO|DEVOLVIDO)$/),
          }),
        ],
      },
    ]);
  });

  it('lists a Pix returned without touching the charge (underpaid) while the cob stays ATIVA', async () => {
    const charge = await newCharge(m.apikey, { amount: 1000 });
    const underpaid = await pay(m.apikey, charge.id, { amount: 900 });
    expect(underpaid.body).toMatchObject({ outcome: 'returned', return_reason: 'underpaid' });
    const reply = await providerStatus(m.apikey, rawId(charge.id));
    expect(reply.body).toMatchObject({ localStatus: 'WAITING_PAYMENT', providerStatus: 'ATIVA' });
    expect(reply.body.rawResponse.pix).toEqual([
      expect.objectContaining({
        endToEndId: underpaid.body.end_to_end_id,
        valor: '9.00',
        devolucoes: [expect.objectContaining({ valor: '9.00' })],
      }),
    ]);
  });

  it('answers TRANSACTION_HAS_NO_PROVIDER_REFERENCE for a charge the acquirer refused', async () => {
    const refused = await newCharge(m.apikey, { amount: 1313 });
    expect(refused.status).toBe('failed');
    const reply = await providerStatus(m.apikey, rawId(refused.id));
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      localStatus: 'REFUSED',
      provider: null,
      providerTransactionId: null,
      providerStatus: null,
      rawResponse: null,
      error: 'TRANSACTION_HAS_NO_PROVIDER_REFERENCE',
    });
  });

  it('answers 503 while the acquirer is down, and reads it again once it is up', async () => {
    const fresh = await merchant();
    const charge = await newCharge(fresh.apikey);
    expect((await setAcquirer(fresh.apikey, 'down')).status).toBe(200);
    const down = await providerStatus(fresh.apikey, rawId(charge.id));
    expectError(down, 503, 'api_error', 'service_unavailable');
    expect((await setAcquirer(fresh.apikey, 'up')).status).toBe(200);
    const up = await providerStatus(fresh.apikey, rawId(charge.id));
    expect(up.status).toBe(200);
    expect(up.body.providerStatus).toBe('ATIVA');
  });

  it("answers 404 for an unknown or malformed id, another account's payment and the other mode's key", async () => {
    const charge = await newCharge(m.apikey);
    const other = await merchant();
    const live = await newKey(m.accountId, 'live');
    for (const [apikey, id] of [
      [m.apikey, '019aa6b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b'],
      [m.apikey, 'not-an-id'],
      [other.apikey, rawId(charge.id)],
      [live, rawId(charge.id)],
    ] as const)
      expectError(await providerStatus(apikey, id), 404, 'not_found_error', 'not_found');
    expectError(
      await api(`/v1/payments/${rawId(charge.id)}/provider-status`),
      401,
      'authentication_error',
      'unauthorized',
    );
  });
});

/** A confirmed devolution refund of a payment, through the API. */
async function refundedDevolution(apikey: string, paymentId: string, amount: number) {
  const created = await api(`/v1/payments/${paymentId}/refund`, {
    apikey,
    body: { idempotencyKey: randomUUID(), amount, strategy: 'devolution' },
  });
  expect(created.status).toBe(201);
  return (await confirmedRefund(apikey, paymentId, created.body.id)) as { id: string; createdAt: string };
}

describe('GET /v1/payments/{id}/receipt', () => {
  it('renders a paid payment as a one-page PDF with every field, the payer document masked', async () => {
    const charge = await newCharge(m.apikey, { amount: 123_456 });
    const paid = await pay(m.apikey, charge.id, { payer_document: PAYER_CPF, payer_name: 'João Conceição' });
    const { paidAt } = await payment(m.apikey, rawId(charge.id));
    const reply = await receipt(m.apikey, rawId(charge.id));
    expect(reply.headers.get('cache-control')).toBe('no-store');

    const { pages, text } = await receiptPdf(m.apikey, rawId(charge.id));
    expect(pages).toBe(1);
    const account = await getAccount(m.accountId);
    for (const expected of [
      'Comprovante de pagamento Pix',
      account?.settings.merchantName as string,
      'Não informado', // the merchant set no CNPJ
      'R$ 1.234,56',
      `${saoPaulo(paidAt)} (horário de Brasília)`,
      paid.body.end_to_end_id,
      'João Conceição',
      '***.444.777-**',
      rawId(charge.id),
      charge.pix.txid,
      'Pago (PAID)',
    ])
      expect(text).toContain(expected);
    expect(text.replace(/\D/g, '')).not.toContain(PAYER_CPF);
    expect(text).not.toContain('111.444.777-35');
    expect(text).not.toContain('DEVOLUÇÕES');
  });

  it('prints the merchant CNPJ set with the admin CLI', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['bin/admin.ts', 'create-account', '--name', 'Padaria São João', '--document', '11.222.333/0001-81'],
      { env: { ...process.env, ...testPorts, TABLE_NAME: '' } },
    );
    const account = JSON.parse(stdout);
    // Made by the CLI, not `newAccount`: registered for the file's ledger invariant by hand.
    accountsCreatedHere.add(account.id);
    expect(account.settings.merchantDocument).toBe('11222333000181');
    const apikey = await newKey(account.id, 'test');
    const charge = await newCharge(apikey);
    await pay(apikey, charge.id);
    const { text } = await receiptPdf(apikey, rawId(charge.id));
    expect(text).toContain('Padaria São João');
    expect(text).toContain('11.222.333/0001-81');
    // The bank did not report the payer: said so, not guessed.
    expect(text).toMatch(/PAGADOR\s+Nome\s+Não informado\s+CPF\/CNPJ\s+Não informado/);
  });

  it("lists the payment's refunds, and not another payer's Pix the service returned by itself", async () => {
    const charge = await newCharge(m.apikey, { amount: 5000 });
    await pay(m.apikey, charge.id);
    const second = await pay(m.apikey, charge.id); // a second Pix of a paid charge goes back
    expect(second.body).toMatchObject({ outcome: 'returned', return_reason: 'not_payable' });
    const refund = await refundedDevolution(m.apikey, rawId(charge.id), 1250);
    const { text } = await receiptPdf(m.apikey, rawId(charge.id));
    expect(text).toContain('DEVOLUÇÕES');
    expect(text).toContain(refund.id);
    expect(text).toContain('R$ 12,50');
    expect(text).toContain('Devolvida (REFUNDED)');
    expect(text).toContain(saoPaulo(refund.createdAt).slice(0, 16));
    expect(text).toContain('Valor devolvido');
    // One refund row: the returned second Pix is not this payment's refund.
    expect(text.match(/re_[0-9a-f-]{36}/g)).toEqual([refund.id]);
  });

  it.each([
    ['still waiting', async () => newCharge(m.apikey)],
    [
      'that expired',
      async () => {
        const c = await newCharge(m.apikey);
        await expire(m.apikey, c.id);
        return c;
      },
    ],
    ['the acquirer refused', async () => newCharge(m.apikey, { amount: 1313 })],
    [
      'held for review',
      async () => {
        const c = await newCharge(m.apikey, { customer: { name: 'Ana' }, expected_payer_tax_id: LOCKED_CPF });
        expect((await pay(m.apikey, c.id)).body.outcome).toBe('held_for_review');
        return c;
      },
    ],
    [
      'returned to a payer the lock refused (REFUNDED, never paid)',
      async () => {
        const c = await newCharge(m.apikey, { customer: { name: 'Ana' }, expected_payer_tax_id: LOCKED_CPF });
        expect((await pay(m.apikey, c.id, { payer_document: PAYER_CPF })).body.outcome).toBe('refunded');
        return c;
      },
    ],
  ])('answers 400 payment_not_settled for a payment %s', async (_, make) => {
    const charge = await make();
    const reply = await receipt(m.apikey, rawId(charge.id));
    expectError(reply, 400, 'invalid_request_error', 'payment_not_settled');
    expect(reply.body.error.message).toMatch(/settled/);
  });

  it("answers 404 for an unknown or malformed id, another account's payment and the other mode's key", async () => {
    const charge = await newCharge(m.apikey);
    await pay(m.apikey, charge.id);
    const other = await merchant();
    const live = await newKey(m.accountId, 'live');
    for (const [apikey, id] of [
      [m.apikey, '019aa6b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b'],
      [m.apikey, 'ch_nope'],
      [other.apikey, rawId(charge.id)],
      [live, rawId(charge.id)],
    ] as const)
      expectError(await receipt(apikey, id), 404, 'not_found_error', 'not_found');
    expect((await receipt(m.apikey, rawId(charge.id))).status).toBe(200);
  });
});
