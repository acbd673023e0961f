import { describe, expect, it } from 'vitest';
import { renderReceiptPdf } from '../../shared/documents/receipt-pdf.ts';
import type { ChargeRecord } from '../../shared/domain/charges.ts';
import { InvalidInput } from '../../shared/domain/errors.ts';
import {
  formatBrazilDateTime,
  formatMoney,
  formatTaxId,
  maskPersonalData,
  maskTaxId,
} from '../../shared/domain/format.ts';
import { buildReceipt, NOT_INFORMED, type Receipt, refundsOfPayment } from '../../shared/domain/receipts.ts';
import type { RefundRecord } from '../../shared/domain/refunds.ts';
import { chargeRecord } from '../helpers/charge-record.ts';
import { readPdf } from '../helpers/pdf.ts';

const E2E = 'E99999999202611211005AbCdEfGhIjK';
const CPF = '52998224725';

const paid = (overrides: Partial<ChargeRecord> = {}): ChargeRecord =>
  chargeRecord({
    id: '019aa6b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b',
    accountId: 'acct_1',
    amount: 123_456,
    status: 'PAID',
    idempotencyKey: 'key-12345678',
    baseUrl: 'https://pay.example.com',
    txid: '3f1c0a9e8b7d6c5b4a39281706f5e4d3',
    brCode: undefined,
    expiresAt: '2026-11-21T11:00:00.000Z',
    createdAt: '2026-11-21T10:00:00.000Z',
    updatedAt: '2026-11-21T10:05:00.000Z',
    endToEndId: E2E,
    paidAt: '2026-11-21T10:05:09.000Z',
    payer: { document: CPF, name: 'João Conceição' },
    ...overrides,
  });

const refund = (overrides: Partial<RefundRecord> = {}): RefundRecord => ({
  id: 're_019aa6c0-0000-7000-8000-00000000abcd',
  accountId: 'acct_1',
  mode: 'test',
  chargeId: paid().id,
  amount: 30_000,
  currency: 'BRL',
  status: 'REFUNDED',
  strategy: 'devolution',
  reason: 'Produto devolvido',
  fee: 0,
  endToEndId: E2E,
  automatic: false,
  createdAt: '2026-11-22T02:30:00.000Z',
  updatedAt: '2026-11-22T02:31:00.000Z',
  ...overrides,
});

const merchant = { name: 'Padaria São João Ltda', document: '11222333000181' };
const ISSUED = '2026-11-23T15:00:00.000Z';
const receiptOf = (
  charge: ChargeRecord,
  refunds: RefundRecord[] = [],
  m: typeof merchant | { name: string } = merchant,
) => buildReceipt({ charge, refunds, merchant: m, issuedAt: ISSUED });
const fields = (receipt: Receipt) =>
  Object.fromEntries(
    receipt.sections.map((s) => [s.heading, Object.fromEntries(s.fields.map((f) => [f.label, f.value]))]),
  );

describe('Brazilian formats', () => {
  it.each([
    [123_456, 'R$ 1.234,56'],
    [5, 'R$ 0,05'],
    [100_000_000, 'R$ 1.000.000,00'],
  ])('writes %i centavos as %s, with a plain space', (centavos, text) => {
    expect(formatMoney(centavos)).toBe(text);
  });

  it.each([
    ['2026-11-21T10:05:09.000Z', '21/11/2026 07:05:09'],
    // The day before, in São Paulo.
    ['2026-03-01T02:30:00.000Z', '28/02/2026 23:30:00'],
    // Summer time (UTC−2) until 2019: the tz database knows, a fixed −3 h would not.
    ['2018-12-01T12:00:00.000Z', '01/12/2018 10:00:00'],
    ['2026-01-01T03:00:00.000Z', '01/01/2026 00:00:00'],
  ])('shows %s in America/Sao_Paulo as %s', (iso, text) => {
    expect(formatBrazilDateTime(iso)).toBe(text);
  });

  it('leaves the seconds out when asked', () => {
    expect(formatBrazilDateTime('2026-11-21T10:05:09.000Z', { seconds: false })).toBe('21/11/2026 07:05');
  });

  it.each([
    [CPF, '***.982.247-**'],
    ['529.982.247-25', '***.982.247-**'],
    ['11222333000181', '**.222.333/****-**'],
    ['11.222.333/0001-81', '**.222.333/****-**'],
    ['PT 123456789', '********789'],
    ['AB12', '****'],
  ])('masks %s as %s', (document, masked) => {
    expect(maskTaxId(document)).toBe(masked);
  });

  it('punctuates a CPF and a CNPJ, and keeps anything else as given', () => {
    expect(formatTaxId(CPF)).toBe('529.982.247-25');
    expect(formatTaxId('11222333000181')).toBe('11.222.333/0001-81');
    expect(formatTaxId('PT 123456789')).toBe('PT 123456789');
  });

  it.each([
    [
      // Amazon SES refusing an address it has not verified (the sandbox every new account starts in).
      'Email address is not verified. The following identities failed the check in region US-EAST-1: Loja <contato.loja@example.org>, contato.loja@example.org',
      'Email address is not verified. The following identities failed the check in region US-EAST-1: Loja <***@example.org>, ***@example.org',
    ],
    [
      'API Pix createCob answered 400: devedor.cpf: O CPF 529.982.247-25 (52998224725) é inválido.',
      'API Pix createCob answered 400: devedor.cpf: O CPF ***.982.247-** (***.982.247-**) é inválido.',
    ],
    ['CNPJ 11.222.333/0001-81 or 11222333000181', 'CNPJ **.222.333/****-** or **.222.333/****-**'],
    ['https://hooks:s3cret@hooks.example.com/pix', 'https://hooks:***@hooks.example.com/pix'],
  ])('masks the personal data in %s', (text, masked) => {
    expect(maskPersonalData(text)).toBe(masked);
  });

  it('leaves ids, times and numbers that are no tax id as they are', () => {
    const text = [
      'E99999999202611241420waqI1SHJYol', // an end-to-end id: its digits touch letters
      '9227e4b9b1ab0f18b7ec7470ef496d94',
      '01a20dee-01ed-7051-bc6f-1bd405ab89df',
      '2026-11-24T14:20:31.802Z',
      '000000000000000000228', // a stream sequence number
      '1795529990318', // epoch milliseconds
      '12345678901', // eleven digits with wrong check digits
      'acct_f0acbbc41a2d5ce070095fa0',
    ].join(' ');
    expect(maskPersonalData(text)).toBe(text);
  });
});

describe('which transactions have a receipt', () => {
  const unsettled: [string, Partial<ChargeRecord>][] = [
    ['waiting', { status: 'WAITING_PAYMENT' }],
    ['expired', { status: 'EXPIRED' }],
    ['refused', { status: 'REFUSED', txid: undefined }],
    ['cancelled', { status: 'CANCELLED' }],
    ['held for review', { status: 'PROCESSING', endToEndId: E2E }],
    ['returned to a payer the payer lock refused', { status: 'REFUNDED', endToEndId: E2E }],
  ];
  it.each(unsettled)('not a %s one: 400 payment_not_settled', (_, overrides) => {
    const { paidAt: _paidAt, endToEndId: _e2e, ...unpaid } = paid();
    const charge = { ...unpaid, ...overrides } as ChargeRecord;
    const error = (() => {
      try {
        receiptOf(charge);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InvalidInput);
    expect((error as InvalidInput).code).toBe('payment_not_settled');
    expect((error as InvalidInput).message).toContain(charge.status);
  });

  it.each(['PAID', 'APPROVED', 'REFUNDED', 'DISPUTE'] as const)('a %s one that was paid', (status) => {
    expect(receiptOf(paid({ status })).amount).toBe('R$ 1.234,56');
  });
});

describe('what the receipt says', () => {
  it('names merchant, payer (masked) and every id, in pt-BR formats', () => {
    const receipt = receiptOf(paid());
    expect(receipt.title).toBe('Comprovante de pagamento Pix');
    expect(receipt.paidAt).toBe('21/11/2026 07:05:09 (horário de Brasília)');
    expect(fields(receipt)).toEqual({
      Recebedor: { Nome: 'Padaria São João Ltda', 'CNPJ/CPF': '11.222.333/0001-81' },
      Pagador: { Nome: 'João Conceição', 'CPF/CNPJ': '***.982.247-**' },
      Transação: {
        Valor: 'R$ 1.234,56',
        'Data do pagamento': '21/11/2026 07:05:09 (horário de Brasília)',
        Situação: 'Pago (PAID)',
        'ID da transação': paid().id,
        'ID fim a fim (E2E)': E2E,
        'Identificador (txid)': paid().txid,
      },
    });
    expect(receipt.refunds).toEqual([]);
    expect(receipt.footer).toBe(
      'Emitido em 23/11/2026 12:00:00 (horário de Brasília) por Padaria São João Ltda via Pix.',
    );
    expect(JSON.stringify(receipt)).not.toContain(CPF);
  });

  it('says "not informed" where the merchant has no document or the bank reported no payer', () => {
    const { payer: _payer, ...anonymous } = paid();
    const f = fields(receiptOf(anonymous, [], { name: 'Loja' }));
    expect(f.Recebedor?.['CNPJ/CPF']).toBe(NOT_INFORMED);
    expect(f.Pagador).toEqual({ Nome: NOT_INFORMED, 'CPF/CNPJ': NOT_INFORMED });
    expect(NOT_INFORMED).toBe('Não informado');
  });

  it("masks a merchant's CPF like a payer's", () => {
    expect(fields(receiptOf(paid(), [], { name: 'MEI', document: CPF })).Recebedor?.['CNPJ/CPF']).toBe(
      '***.982.247-**',
    );
  });

  it('lists the refunds of the payment oldest first, and the amount returned so far', () => {
    const later = refund({
      id: 're_019aa6c9-0000-7000-8000-00000000beef',
      amount: 1_000,
      status: 'IN_PROGRESS',
      createdAt: '2026-11-22T18:00:00.000Z',
    });
    const receipt = receiptOf(paid(), [later, refund()]);
    expect(receipt.refunds).toEqual([
      {
        id: refund().id,
        amount: 'R$ 300,00',
        status: 'Devolvida (REFUNDED)',
        requestedAt: '21/11/2026 23:30',
      },
      {
        id: later.id,
        amount: 'R$ 10,00',
        status: 'Em processamento (IN_PROGRESS)',
        requestedAt: '22/11/2026 15:00',
      },
    ]);
    expect(fields(receipt).Transação?.['Valor devolvido']).toBe('R$ 300,00');
  });

  it("leaves out another Pix the service returned by itself (not this payment's money)", () => {
    const secondPix = refund({ automatic: true, endToEndId: 'E99999999202611211009ZyXwVuTsRqP' });
    const own = refund({ id: 're_019aa6c9-0000-7000-8000-00000000beef', strategy: 'cashout' });
    expect(refundsOfPayment(paid(), [secondPix, own])).toEqual([own]);
  });
});

describe('the PDF', () => {
  it('is one A4 page holding every field, accents intact, and never the full payer document', async () => {
    const pdf = await renderReceiptPdf(receiptOf(paid(), [refund()]));
    expect(Buffer.from(pdf).subarray(0, 5).toString()).toBe('%PDF-');
    const { pages, text, info } = await readPdf(pdf);
    expect(pages).toBe(1);
    for (const expected of [
      'Comprovante de pagamento Pix',
      'Padaria São João Ltda',
      '11.222.333/0001-81',
      'R$ 1.234,56',
      '21/11/2026 07:05:09 (horário de Brasília)',
      E2E,
      'João Conceição',
      '***.982.247-**',
      paid().id,
      paid().txid as string,
      'TRANSAÇÃO',
      'DEVOLUÇÕES',
      refund().id,
      'R$ 300,00',
      'Devolvida (REFUNDED)',
      '21/11/2026 23:30',
    ])
      expect(text).toContain(expected);
    expect(text.replace(/\D/g, '')).not.toContain(CPF);
    expect(text).not.toContain('529.982.247-25');
    expect(info).toMatchObject({ Title: `Comprovante de pagamento Pix ${paid().id}`, Language: 'pt-BR' });
  });

  it('replaces what Helvetica cannot encode instead of failing', async () => {
    const pdf = await renderReceiptPdf(
      receiptOf(paid({ payer: { name: 'Zoë 😀 Œuvre Hőß', document: CPF } })),
    );
    expect((await readPdf(pdf)).text).toContain('Zoë ? Œuvre Hoß');
  });

  it('keeps the accents of a decomposed name (NFD, as Apple devices type it) and writes one ? per emoji', async () => {
    const name = 'João da Conceição'.normalize('NFD');
    const pdf = await renderReceiptPdf(receiptOf(paid({ payer: { name: `${name} 👩‍💻`, document: CPF } })));
    expect((await readPdf(pdf)).text).toMatch(/João da Conceição \?(?!\?)/);
  });

  it('continues on a second page when the refunds do not fit on one', async () => {
    const many = Array.from({ length: 40 }, (_, n) =>
      refund({ id: `re_019aa6c0-0000-7000-8000-${String(n).padStart(12, '0')}`, amount: 100 + n }),
    );
    const { pages, text, pageTexts } = await readPdf(await renderReceiptPdf(receiptOf(paid(), many)));
    expect(pages).toBe(2);
    for (const r of many) expect(text).toContain(r.id);
    expect(pageTexts[1]).toMatch(/^ID da devolução\s+Valor\s+Situação\s+Solicitada em\s/);
  });

  it('renders the same receipt to the same bytes', async () => {
    const receipt = receiptOf(paid(), [refund()]);
    expect(
      Buffer.from(await renderReceiptPdf(receipt)).equals(Buffer.from(await renderReceiptPdf(receipt))),
    ).toBe(true);
  });
});
