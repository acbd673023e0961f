import { describe, expect, it } from 'vitest';
import { loadApiPixSchemas } from '../../infra/local/psp/schemas.ts';
import { type ChargeRecord, pixLocation } from '../../shared/domain/charges.ts';
import { devolutionIdOf, type RefundRecord } from '../../shared/domain/refunds.ts';
import { type TxStatus, txStatuses } from '../../shared/domain/transaction-status.ts';
import { ProviderUnavailableError } from '../../shared/providers/provider.ts';
import { sandboxProvider } from '../../shared/providers/sandbox.ts';
import {
  cobStatusOf,
  sandboxCob,
  sandboxPixKey,
  toDecimalString,
} from '../../shared/providers/sandbox-cob.ts';
import { chargeRecord } from '../helpers/charge-record.ts';

const TXID = '3f1c0a9e8b7d6c5b4a39281706f5e4d3';
const E2E = 'E99999999202611211005AbCdEfGhIjK';
const OTHER_E2E = 'E99999999202611211007ZyXwVuTsRqP';
/** API Pix patterns (bcb-api-pix-2.9.0.openapi.yaml). */
const DECIMAL = /^\d{1,10}\.\d{2}$/;
const RTR_ID = /^D\d{8}\d{12}[a-zA-Z0-9]{11}$/;

const charge = (overrides: Partial<ChargeRecord> = {}): ChargeRecord =>
  chargeRecord({
    id: '019aa6b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b',
    accountId: 'acct_1',
    amount: 1050,
    idempotencyKey: 'key-12345678',
    baseUrl: 'https://pay.example.com',
    txid: TXID,
    brCode: '00020101021226…6304ABCD',
    expiresAt: '2026-11-21T11:00:00.000Z',
    createdAt: '2026-11-21T10:00:00.000Z',
    updatedAt: '2026-11-21T10:00:00.000Z',
    ...overrides,
  });

const paid = (overrides: Partial<ChargeRecord> = {}) =>
  charge({
    status: 'PAID',
    endToEndId: E2E,
    paidAt: '2026-11-21T10:05:00.000Z',
    updatedAt: '2026-11-21T10:05:00.000Z',
    ...overrides,
  });

const refund = (overrides: Partial<RefundRecord> = {}): RefundRecord => ({
  id: 're_019aa6c0-0000-7000-8000-00000000abcd',
  accountId: 'acct_1',
  mode: 'test',
  chargeId: charge().id,
  amount: 300,
  currency: 'BRL',
  status: 'IN_PROGRESS',
  strategy: 'devolution',
  reason: null,
  fee: 0,
  endToEndId: E2E,
  automatic: false,
  createdAt: '2026-11-21T12:00:00.000Z',
  updatedAt: '2026-11-21T12:00:00.000Z',
  requestedAt: '2026-11-21T12:00:01.000Z',
  ...overrides,
});

const cob = (c: ChargeRecord, refunds: RefundRecord[] = []) => sandboxCob({ charge: c, refunds });

describe('API Pix amounts', () => {
  it.each([
    [1050, '10.50'],
    [5, '0.05'],
    [0, '0.00'],
    [100_000, '1000.00'],
    [123_456_789, '1234567.89'],
  ])('writes %i centavos as %s', (centavos, decimal) => {
    expect(toDecimalString(centavos)).toBe(decimal);
    expect(decimal).toMatch(DECIMAL);
  });
});

describe('the cob status of each transaction status', () => {
  const expected: Record<Exclude<TxStatus, 'REFUSED'>, string> = {
    PENDING: 'ATIVA',
    WAITING_PAYMENT: 'ATIVA',
    // API Pix has no expired status: the PSP's record stays ATIVA, expiry is the service's job.
    EXPIRED: 'ATIVA',
    CANCELLED: 'REMOVIDA_PELO_USUARIO_RECEBEDOR',
    PROCESSING: 'CONCLUIDA',
    PAID: 'CONCLUIDA',
    APPROVED: 'CONCLUIDA',
    REFUNDED: 'CONCLUIDA',
    DISPUTE: 'CONCLUIDA',
    CHARGEBACK: 'CONCLUIDA',
  };
  it.each(Object.entries(expected))('%s → %s', (status, cobStatus) => {
    expect(cobStatusOf(status as TxStatus)).toBe(cobStatus);
  });

  it('covers every status, and a refused charge has no cob at all', () => {
    expect(Object.keys(expected).sort()).toEqual(txStatuses.filter((s) => s !== 'REFUSED').sort());
    expect(() => cobStatusOf('REFUSED')).toThrow(/no cob/);
  });
});

describe('the sandbox cob (CobCompleta)', () => {
  it('shows an active charge in the API Pix shape, without pix or devedor', () => {
    const { status, raw } = cob(charge({ metadata: { description: 'Pedido 42', orderId: 'A-1' } }));
    const location = pixLocation('https://pay.example.com', charge().id);
    expect(status).toBe('ATIVA');
    expect(raw).toEqual({
      calendario: { criacao: '2026-11-21T10:00:00.000Z', expiracao: 3600 },
      txid: TXID,
      revisao: 0,
      loc: {
        id: expect.any(Number),
        txid: TXID,
        location,
        tipoCob: 'cob',
        criacao: '2026-11-21T10:00:00.000Z',
      },
      location,
      status: 'ATIVA',
      valor: { original: '10.50', modalidadeAlteracao: 0 },
      chave: sandboxPixKey('acct_1'),
      solicitacaoPagador: 'Pedido 42',
      pixCopiaECola: '00020101021226…6304ABCD',
    });
    expect(location.length).toBeLessThanOrEqual(77);
    expect(Number.isSafeInteger((raw.loc as { id: number }).id)).toBe(true);
    expect(raw.txid).toMatch(/^[a-zA-Z0-9]{26,35}$/);
  });

  it('is a CobCompleta of the BCB file in every state (GET /cob/{txid} 200)', () => {
    const validate = loadApiPixSchemas().answer('/cob/{txid}', 'get', 200)?.['application/json'];
    if (!validate) throw new Error('the file lists no GET /cob/{txid} 200 JSON answer');
    const returned = refund({ status: 'REFUNDED', completedAt: '2026-11-21T12:31:00.000Z' });
    for (const shown of [
      cob(charge({ metadata: { description: 'Pedido 42' } })),
      cob(charge({ status: 'CANCELLED', expectedPayerTaxId: '52998224725', customer: { name: 'Ana' } })),
      cob(paid(), [refund(), returned]),
    ]) {
      validate(shown.raw);
      expect(validate.errors ?? []).toEqual([]);
    }
  });

  it('gives each account one stable EVP key and each charge one location id', () => {
    expect(sandboxPixKey('acct_1')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(sandboxPixKey('acct_1')).toBe(sandboxPixKey('acct_1'));
    expect(sandboxPixKey('acct_2')).not.toBe(sandboxPixKey('acct_1'));
    expect(cob(charge()).raw.loc).toEqual(cob(charge()).raw.loc);
  });

  it('names the expected payer as devedor (cpf or cnpj, with the customer name)', () => {
    expect(cob(charge({ expectedPayerTaxId: '52998224725', customer: { name: 'Ana' } })).raw.devedor).toEqual(
      {
        cpf: '52998224725',
        nome: 'Ana',
      },
    );
    expect(cob(charge({ expectedPayerTaxId: '11222333000181' })).raw.devedor).toEqual({
      cnpj: '11222333000181',
    });
    // A customer document alone is no payer lock: the cob names no devedor.
    expect(cob(charge({ customer: { name: 'Ana', document: '52998224725' } })).raw).not.toHaveProperty(
      'devedor',
    );
  });

  it('keeps an expired charge ATIVA with its original lifetime', () => {
    const expired = charge({
      status: 'EXPIRED',
      expiresAt: '2026-11-21T10:01:00.000Z', // the sandbox closed the window early
      failure: {
        reason: 'expired',
        providerErrorCode: 'expired',
        ttlSeconds: 3600,
        at: '2026-11-21T10:01:00Z',
      },
    });
    expect(cob(expired).status).toBe('ATIVA');
    expect(cob(expired).raw.calendario).toEqual({ criacao: '2026-11-21T10:00:00.000Z', expiracao: 3600 });
  });

  it('shows a removed charge as revision 1', () => {
    const { status, raw } = cob(charge({ status: 'CANCELLED' }));
    expect([status, raw.status, raw.revisao]).toEqual([
      'REMOVIDA_PELO_USUARIO_RECEBEDOR',
      'REMOVIDA_PELO_USUARIO_RECEBEDOR',
      1,
    ]);
  });

  it('lists the Pix that concluded a paid charge', () => {
    const { status, raw } = cob(paid());
    expect(status).toBe('CONCLUIDA');
    expect(raw.pix).toEqual([
      { endToEndId: E2E, txid: TXID, valor: '10.50', horario: '2026-11-21T10:05:00.000Z' },
    ]);
  });

  it('lists the devolutions of the paid Pix in every state, and no cashout', () => {
    const inProgress = refund();
    const done = refund({
      id: 're_019aa6c1-0000-7000-8000-00000000beef',
      amount: 200,
      status: 'REFUNDED',
      createdAt: '2026-11-21T12:30:00.000Z',
      requestedAt: '2026-11-21T12:30:01.000Z',
      completedAt: '2026-11-21T12:31:00.000Z',
    });
    const failed = refund({
      id: 're_019aa6c2-0000-7000-8000-00000000cafe',
      amount: 100,
      status: 'FAILED',
      failureReason: 'Conta do pagador encerrada',
      createdAt: '2026-11-21T13:00:00.000Z',
      requestedAt: '2026-11-21T13:00:01.000Z',
    });
    const cashout = refund({
      id: 're_019aa6c3-0000-7000-8000-00000000f00d',
      strategy: 'cashout',
      destinationKey: 'ana@example.com',
      createdAt: '2026-11-21T14:00:00.000Z',
    });
    delete cashout.endToEndId;
    const { raw } = cob(paid(), [cashout, failed, done, inProgress]);
    const [pix] = raw.pix as Record<string, any>[];
    expect(pix?.devolucoes).toEqual([
      {
        id: devolutionIdOf(inProgress.id),
        rtrId: expect.stringMatching(RTR_ID),
        valor: '3.00',
        natureza: 'ORIGINAL',
        horario: { solicitacao: '2026-11-21T12:00:01.000Z' },
        status: 'EM_PROCESSAMENTO',
      },
      {
        id: devolutionIdOf(done.id),
        rtrId: expect.stringMatching(RTR_ID),
        valor: '2.00',
        natureza: 'ORIGINAL',
        horario: { solicitacao: '2026-11-21T12:30:01.000Z', liquidacao: '2026-11-21T12:31:00.000Z' },
        status: 'DEVOLVIDO',
      },
      {
        id: devolutionIdOf(failed.id),
        rtrId: expect.stringMatching(RTR_ID),
        valor: '1.00',
        natureza: 'ORIGINAL',
        horario: { solicitacao: '2026-11-21T13:00:01.000Z' },
        status: 'NAO_REALIZADO',
        motivo: 'Conta do pagador encerrada',
      },
    ]);
    expect(pix?.devolucoes[0].id).toMatch(/^[a-zA-Z0-9]{1,35}$/);
    expect(pix?.devolucoes[0].rtrId).toMatch(/^D99999999202611211200/);
  });

  it('shows a Pix returned to a payer the payer lock refused: concluded, and returned whole', () => {
    const mismatch = charge({
      status: 'REFUNDED',
      endToEndId: E2E,
      expectedPayerTaxId: '52998224725',
      payer: { document: '11144477735' },
      updatedAt: '2026-11-21T10:09:00.000Z',
    });
    const returned = refund({
      amount: 1050,
      automatic: true,
      status: 'PENDING',
      reason: 'payer_mismatch',
      createdAt: '2026-11-21T10:05:00.000Z',
      updatedAt: '2026-11-21T10:05:00.000Z',
    });
    delete returned.requestedAt;
    const { status, raw } = cob(mismatch, [returned]);
    expect(status).toBe('CONCLUIDA');
    expect(raw.pix).toEqual([
      {
        endToEndId: E2E,
        txid: TXID,
        valor: '10.50',
        horario: '2026-11-21T10:05:00.000Z',
        devolucoes: [expect.objectContaining({ valor: '10.50', status: 'EM_PROCESSAMENTO' })],
      },
    ]);
    // Never who actually paid: a cob has no payer.
    expect(JSON.stringify(raw)).not.toContain('11144477735');
  });

  it('lists a Pix returned without touching the charge (underpaid) while the charge stays ATIVA', () => {
    const underpaid = refund({
      amount: 1000,
      automatic: true,
      status: 'REFUNDED',
      reason: 'underpaid',
      endToEndId: OTHER_E2E,
      createdAt: '2026-11-21T10:07:00.000Z',
      completedAt: '2026-11-21T10:07:05.000Z',
    });
    const { status, raw } = cob(charge(), [underpaid]);
    expect(status).toBe('ATIVA');
    expect(raw.pix).toEqual([
      {
        endToEndId: OTHER_E2E,
        txid: TXID,
        valor: '10.00',
        horario: '2026-11-21T10:07:00.000Z',
        devolucoes: [expect.objectContaining({ valor: '10.00', status: 'DEVOLVIDO' })],
      },
    ]);
  });

  it('lists a second Pix of a paid charge after the one that concluded it', () => {
    const second = refund({
      amount: 1050,
      automatic: true,
      status: 'PENDING',
      reason: 'not_payable',
      endToEndId: OTHER_E2E,
      createdAt: '2026-11-21T10:06:00.000Z',
    });
    const pix = cob(paid(), [second]).raw.pix as { endToEndId: string }[];
    expect(pix.map((p) => p.endToEndId)).toEqual([E2E, OTHER_E2E]);
  });
});

describe('sandbox getCob', () => {
  it('reads the records of the txid it is asked for and answers the cob', async () => {
    const asked: string[] = [];
    const provider = sandboxProvider({
      acquirerDown: false,
      readCob: async (txid) => {
        asked.push(txid);
        return { charge: paid(), refunds: [] };
      },
    });
    const answer = await provider.getCob(TXID);
    expect(asked).toEqual([TXID]);
    expect(answer).toEqual(cob(paid()));
  });

  it('is unavailable while the sandbox acquirer is down, reading nothing', async () => {
    let reads = 0;
    const provider = sandboxProvider({
      acquirerDown: true,
      readCob: async () => {
        reads++;
        return { charge: paid(), refunds: [] };
      },
    });
    await expect(provider.getCob(TXID)).rejects.toBeInstanceOf(ProviderUnavailableError);
    expect(reads).toBe(0);
  });

  it('fails loudly for a txid it never issued, or without records to read', async () => {
    await expect(
      sandboxProvider({ acquirerDown: false, readCob: async () => undefined }).getCob(TXID),
    ).rejects.toThrow(/no cob/);
    await expect(sandboxProvider({ acquirerDown: false }).getCob(TXID)).rejects.toThrow(/no records/);
  });
});
