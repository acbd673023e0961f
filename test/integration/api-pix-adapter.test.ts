/**
 * The API Pix adapter (shared/providers/api-pix/) against the local PSP (infra/local/psp/),
 * started in-process: real HTTPS with client certificates, OAuth2, the standard's schemas.
 * Neither needs DynamoDB; they are tested against each other before the service uses them.
 */

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeTestPki } from '../../infra/local/psp/pki.ts';
import type { LocalPsp } from '../../infra/local/psp/server.ts';
import { flushMetrics } from '../../shared/metrics.ts';
import { withAcquirerBudget } from '../../shared/providers/call-budget.ts';
import {
  DevolutionRefusedError,
  ProviderNotFoundError,
  ProviderQueryNotOfferedError,
  ProviderRejectedError,
  ProviderUnavailableError,
} from '../../shared/providers/provider.ts';
import { acquirerCallBudgets, observability } from '../../shared/resources.ts';
import { emfDocuments, metricTotal } from '../helpers/emf.ts';
import { eventually } from '../helpers/eventually.ts';
import {
  adapterFor,
  control,
  newTxid,
  pspRequest,
  pspToken,
  startCallbackReceiver,
  startPsp,
} from '../helpers/psp.ts';

let psp: LocalPsp;

beforeAll(async () => {
  psp = await startPsp();
});

afterAll(async () => {
  await psp?.stop();
});

/** A cob created through the adapter and paid through the PSP's control; answers the Pix. */
async function paidCob(
  payment: { amount?: number; payerDocument?: string; payerName?: string } = {},
  charge: { amount?: number } = {},
) {
  const txid = newTxid();
  await adapterFor(psp).createCob({ txid, amount: charge.amount ?? 2500, expiresIn: 3600 });
  const pix = await control(psp, 'POST', `/cob/${txid}/pay`, payment);
  return { txid, endToEndId: pix.endToEndId as string };
}

describe('charges (cob)', () => {
  it('creates a cob the PSP stores exactly as the charge said, with its copy-and-paste code and location', async () => {
    const txid = newTxid();
    const created = await adapterFor(psp).createCob({
      txid,
      amount: 1050,
      expiresIn: 1800,
      payerDocument: '123.456.789-09',
      payerName: 'Fulano de Tal',
      description: 'Pedido 42',
    });

    const stored = psp.bank.cobs.get(txid);
    expect(stored).toMatchObject({
      txid,
      status: 'ATIVA',
      calendario: { expiracao: 1800 },
      devedor: { cpf: '12345678909', nome: 'Fulano de Tal' },
      valor: { original: '10.50' },
      chave: psp.pixKey,
      solicitacaoPagador: 'Pedido 42',
    });
    expect(created).toEqual({
      providerChargeId: txid,
      txid,
      pixCopiaECola: stored?.pixCopiaECola,
      location: stored?.location,
      // The cob's own clock: its creation at the PSP plus its expiracao.
      expiresAt: new Date(Date.parse(String(stored?.calendario.criacao)) + 1800_000).toISOString(),
    });
    expect(created.pixCopiaECola).toMatch(/^000201.*6304[0-9A-F]{4}$/);
  });

  it('names a 14-character payer document as a CNPJ, and no payer without a name', async () => {
    const company = newTxid();
    const anonymous = newTxid();
    const adapter = adapterFor(psp);
    await adapter.createCob({
      txid: company,
      amount: 100,
      expiresIn: 60,
      payerDocument: '12ABC34501DE35',
      payerName: 'Acme',
    });
    await adapter.createCob({ txid: anonymous, amount: 100, expiresIn: 60, payerDocument: '12345678909' });

    expect(psp.bank.cobs.get(company)?.devedor).toEqual({ cnpj: '12ABC34501DE35', nome: 'Acme' });
    expect(psp.bank.cobs.get(anonymous)).toBeDefined();
    expect(psp.bank.cobs.get(anonymous)?.devedor).toBeUndefined();
  });

  it('creating the same cob twice is one cob (PUT by txid is idempotent)', async () => {
    const txid = newTxid();
    const input = { txid, amount: 700, expiresIn: 600 };
    const first = await adapterFor(psp).createCob(input);
    const second = await adapterFor(psp).createCob(input);

    expect(second).toEqual(first);
    expect(psp.bank.cobs.get(txid)?.revisao).toBe(0);
  });

  it('a PATCH revises only what a revision may change, and the copy-and-paste code follows the amount', async () => {
    const txid = newTxid();
    const created = await adapterFor(psp).createCob({ txid, amount: 1000, expiresIn: 600 });
    const token = await pspToken(psp);

    const answer = await pspRequest(psp, {
      method: 'PATCH',
      path: `/v2/cob/${txid}`,
      token,
      body: { valor: { original: '12.34' }, txid: 'someotherid', location: 'elsewhere' },
    });

    expect(answer.status).toBe(200);
    expect(answer.json()).toMatchObject({
      txid,
      revisao: 1,
      valor: { original: '12.34' },
      location: created.location,
    });
    expect(answer.json().pixCopiaECola).toContain('540512.34');
    expect(psp.bank.cobs.get(txid)?.txid).toBe(txid);
  });

  it('reads a cob live, and a txid the PSP never saw is ProviderNotFoundError', async () => {
    const txid = newTxid();
    await adapterFor(psp).createCob({ txid, amount: 990, expiresIn: 600 });

    const cob = await adapterFor(psp).getCob(txid);
    expect(cob.status).toBe('ATIVA');
    expect(cob.raw).toMatchObject({ txid, valor: { original: '9.90' } });

    const missing = await adapterFor(psp)
      .getCob(newTxid())
      .catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(ProviderNotFoundError);
    expect((missing as ProviderNotFoundError).providerErrorCode).toBe('CobNaoEncontrado');
  });

  it('cancels a cob, again without error, and refuses to cancel a paid one', async () => {
    const txid = newTxid();
    const adapter = adapterFor(psp);
    await adapter.createCob({ txid, amount: 500, expiresIn: 600 });

    await adapter.cancelCob(txid);
    expect((await adapter.getCob(txid)).status).toBe('REMOVIDA_PELO_USUARIO_RECEBEDOR');
    await adapter.cancelCob(txid);

    const paid = await paidCob();
    const refused = await adapter.cancelCob(paid.txid).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ProviderRejectedError);
    expect((refused as ProviderRejectedError).providerErrorCode).toBe('CobOperacaoInvalida');
    expect((await adapter.getCob(paid.txid)).status).toBe('CONCLUIDA');
  });

  it('a cob the standard refuses is ProviderRejectedError with the problem type as code', async () => {
    const zero = await adapterFor(psp)
      .createCob({ txid: newTxid(), amount: 0, expiresIn: 600 })
      .catch((error: unknown) => error);
    expect(zero).toBeInstanceOf(ProviderRejectedError);
    expect((zero as ProviderRejectedError).providerErrorCode).toBe('CobOperacaoInvalida');
    expect((zero as Error).message).toContain('cob.valor.original');

    const shortTxid = await adapterFor(psp)
      .createCob({ txid: 'abc', amount: 100, expiresIn: 600 })
      .catch((error: unknown) => error);
    expect(shortTxid).toBeInstanceOf(ProviderRejectedError);
    expect((shortTxid as Error).message).toContain('cob.txid');
  });
});

describe('Pix received', () => {
  it('reads a paid Pix by its end-to-end id, with the cob concluded', async () => {
    const { txid, endToEndId } = await paidCob({
      amount: 2400,
      payerDocument: '12345678909',
      payerName: 'Fulano',
    });

    const pix = await adapterFor(psp).getPix(endToEndId);
    expect(pix).toEqual({ endToEndId, txid, amount: 2400, receivedAt: expect.any(String), devolutions: [] });
    expect(endToEndId).toMatch(/^E\d{8}\d{12}[a-zA-Z0-9]{11}$/);
    expect((await adapterFor(psp).getCob(txid)).raw).toMatchObject({
      status: 'CONCLUIDA',
      pix: [{ endToEndId, valor: '24.00' }],
    });

    const missing = await adapterFor(psp)
      .getPix(`E99999998202601010000${'x'.repeat(11)}`)
      .catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(ProviderNotFoundError);
    expect((missing as ProviderNotFoundError).providerErrorCode).toBe('PixNaoEncontrado');
  });

  it('a CONCLUIDA cob takes no second Pix, unless the test opts in (a payer’s bank that did not check)', async () => {
    const { txid } = await paidCob();
    const pay = (body: Record<string, unknown> = {}) =>
      pspRequest(psp, { method: 'POST', path: `/_control/cob/${txid}/pay`, body });
    const second = await pay();
    expect(second.status).toBe(409);
    expect(second.json().type).toMatch(/\/CobOperacaoInvalida$/);
    expect(psp.bank.cobs.get(txid)?.endToEndIds).toHaveLength(1);
    expect((await pay({ secondPayment: true })).status).toBe(201);
    expect(psp.bank.cobs.get(txid)?.endToEndIds).toHaveLength(2);
  });

  it('a cob past calendario.expiracao cannot be paid, unless the test opts in (a late Pix)', async () => {
    const txid = newTxid();
    await adapterFor(psp).createCob({ txid, amount: 300, expiresIn: 1 });
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const pay = (body: Record<string, unknown> = {}) =>
      pspRequest(psp, { method: 'POST', path: `/_control/cob/${txid}/pay`, body });
    const late = await pay();
    expect(late.status).toBe(409);
    expect(late.json().type).toMatch(/\/CobOperacaoInvalida$/);
    // Its status stays ATIVA (CobrancaStatus is the record's state, not the charge's expiry).
    expect(psp.bank.cobs.get(txid)).toMatchObject({ status: 'ATIVA', endToEndIds: [] });
    expect((await pay({ afterExpiry: true })).status).toBe(201);
  });

  it('lists Pix by period, and by payer CPF and txid (the payer lock question)', async () => {
    const from = new Date(Date.now() - 1000);
    const mine = await paidCob({ payerDocument: '12345678909', payerName: 'Fulano' });
    const other = await paidCob({ payerDocument: '98765432100', payerName: 'Beltrano' });
    const to = new Date(Date.now() + 1000);
    const adapter = adapterFor(psp);

    const inPeriod = (await adapter.listPix({ from, to })).map((p) => p.endToEndId);
    expect(inPeriod).toEqual(expect.arrayContaining([mine.endToEndId, other.endToEndId]));

    const byPayerAndTxid = await adapter.listPix({
      from,
      to,
      payerDocument: '123.456.789-09',
      txid: mine.txid,
    });
    expect(byPayerAndTxid.map((p) => p.endToEndId)).toEqual([mine.endToEndId]);

    const otherPayerOnMine = await adapter.listPix({
      from,
      to,
      payerDocument: '98765432100',
      txid: mine.txid,
    });
    expect(otherPayerOnMine).toEqual([]);
  });

  it('follows the pages of GET /pix to the last one', async () => {
    const from = new Date(Date.now() - 1000);
    const paid = [];
    for (let i = 0; i < 5; i++)
      paid.push(await paidCob({ payerDocument: '11122233344', payerName: 'Cicrano' }));
    const to = new Date(Date.now() + 1000);
    const before = psp.stats.apiRequests;

    const listed = await adapterFor(psp, { pixPageSize: 2 }).listPix({
      from,
      to,
      payerDocument: '11122233344',
    });

    expect(listed.map((p) => p.endToEndId)).toEqual(paid.map((p) => p.endToEndId));
    expect(psp.stats.apiRequests - before).toBe(3);
  });
});

describe('devolutions', () => {
  it('a devolution left alone ends DEVOLVIDO, and asking again with the same id is the same devolution', async () => {
    const { endToEndId } = await paidCob({ amount: 3000 });
    const adapter = adapterFor(psp);
    const returnId = `r${newTxid().slice(0, 20)}`;

    await adapter.requestDevolution({ endToEndId, returnId, amount: 1000 });
    await adapter.requestDevolution({ endToEndId, returnId, amount: 1000 });

    await eventually(async () =>
      expect(await adapter.getDevolution({ endToEndId, returnId })).toEqual({ status: 'DEVOLVIDO' }),
    );
    const pix = await adapter.getPix(endToEndId);
    expect(pix.devolutions).toEqual([{ returnId, amount: 1000, status: 'DEVOLVIDO' }]);
  });

  it('a devolution the payer bank refuses ends NAO_REALIZADO with its reason', async () => {
    const { endToEndId } = await paidCob();
    const returnId = `r${newTxid().slice(0, 20)}`;
    await control(psp, 'POST', `/devolucao/${returnId}/fail`, { motivo: 'Conta do pagador encerrada' });

    await adapterFor(psp).requestDevolution({ endToEndId, returnId, amount: 2500 });

    await eventually(async () =>
      expect(await adapterFor(psp).getDevolution({ endToEndId, returnId })).toEqual({
        status: 'NAO_REALIZADO',
        reason: 'Conta do pagador encerrada',
      }),
    );
  });

  it('a devolution over the Pix amount is DevolutionRefusedError; another id for the rest is taken', async () => {
    const { endToEndId } = await paidCob({ amount: 1000 });
    const adapter = adapterFor(psp);
    await adapter.requestDevolution({ endToEndId, returnId: 'first', amount: 600 });

    const refused = await adapter
      .requestDevolution({ endToEndId, returnId: 'second', amount: 500 })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DevolutionRefusedError);
    expect((refused as DevolutionRefusedError).providerErrorCode).toBe('PixDevolucaoInvalida');

    await adapter.requestDevolution({ endToEndId, returnId: 'third', amount: 400 });
    expect((await adapter.getPix(endToEndId)).devolutions.map((d) => d.returnId)).toEqual(['first', 'third']);
  });

  it('a held devolution stays EM_PROCESSAMENTO while another of the same Pix completes, until it is completed', async () => {
    const { endToEndId } = await paidCob({ amount: 1000 });
    const adapter = adapterFor(psp);
    await control(psp, 'POST', '/devolucao/held1/hold');
    await adapter.requestDevolution({ endToEndId, returnId: 'held1', amount: 300 });
    await adapter.requestDevolution({ endToEndId, returnId: 'free1', amount: 300 });

    await eventually(async () =>
      expect(await adapter.getDevolution({ endToEndId, returnId: 'free1' })).toEqual({ status: 'DEVOLVIDO' }),
    );
    expect(await adapter.getDevolution({ endToEndId, returnId: 'held1' })).toEqual({
      status: 'EM_PROCESSAMENTO',
    });

    await control(psp, 'POST', '/devolucao/held1/complete');
    expect(await adapter.getDevolution({ endToEndId, returnId: 'held1' })).toEqual({ status: 'DEVOLVIDO' });
  });

  it('a retry refused as "id used" whose read-back fails (5xx, or 404 while the PSP catches up) is unavailable, never a refusal', async () => {
    const { endToEndId } = await paidCob({ amount: 1000 });
    const adapter = adapterFor(psp);
    const returnId = `r${newTxid().slice(0, 20)}`;
    // The PSP takes the devolution but its answer is lost: the transport's retry is refused ("id used").
    await control(psp, 'POST', '/lose-answers', { count: 1, method: 'PUT', pathPrefix: '/pix/' });
    await control(psp, 'POST', '/devolucao-reads', { status: 503, count: 100 });
    try {
      const unreadable = await adapter
        .requestDevolution({ endToEndId, returnId, amount: 400 })
        .catch((error: unknown) => error);
      expect(unreadable).toBeInstanceOf(ProviderUnavailableError);
      expect(psp.bank.pix.get(endToEndId)?.devolucoes.map((d) => d.id)).toEqual([returnId]);

      await control(psp, 'POST', '/devolucao-reads', { status: 404, count: 100 });
      const lagging = await adapter
        .requestDevolution({ endToEndId, returnId, amount: 400 })
        .catch((error: unknown) => error);
      expect(lagging).toBeInstanceOf(ProviderUnavailableError);
    } finally {
      await control(psp, 'POST', '/devolucao-reads', { status: 503, count: 0 });
    }
    // Readable again: the same id and amount is that devolution; another amount is a refusal.
    await adapter.requestDevolution({ endToEndId, returnId, amount: 400 });
    const mismatch = await adapter
      .requestDevolution({ endToEndId, returnId, amount: 300 })
      .catch((error: unknown) => error);
    expect(mismatch).toBeInstanceOf(DevolutionRefusedError);
  });

  it('a retry refused without naming a property, whose read-back is 404, is unavailable: the PSP may hold it', async () => {
    const { endToEndId } = await paidCob({ amount: 1000 });
    const adapter = adapterFor(psp);
    const returnId = `r${newTxid().slice(0, 20)}`;
    // The standard's example of "id já utilizado" has no `violacoes`; the read lags behind.
    await control(psp, 'POST', '/violacoes', { named: false });
    await control(psp, 'POST', '/lose-answers', { count: 1, method: 'PUT', pathPrefix: '/pix/' });
    await control(psp, 'POST', '/devolucao-reads', { status: 404, count: 100 });
    try {
      const lagging = await adapter
        .requestDevolution({ endToEndId, returnId, amount: 400 })
        .catch((error: unknown) => error);
      expect(lagging).toBeInstanceOf(ProviderUnavailableError);
      expect(psp.bank.pix.get(endToEndId)?.devolucoes.map((d) => d.id)).toEqual([returnId]);
      // A refusal that names what the request asked for is still a refusal: 700 more than 600 left.
      await control(psp, 'POST', '/violacoes', { named: true });
      const tooMuch = await adapter
        .requestDevolution({ endToEndId, returnId: `${returnId}x`, amount: 700 })
        .catch((error: unknown) => error);
      expect(tooMuch).toBeInstanceOf(DevolutionRefusedError);
    } finally {
      await control(psp, 'POST', '/violacoes', { named: true });
      await control(psp, 'POST', '/devolucao-reads', { status: 503, count: 0 });
    }
    await adapter.requestDevolution({ endToEndId, returnId, amount: 400 });
  });

  it('the same id with another amount is not mistaken for a retry', async () => {
    const { endToEndId } = await paidCob({ amount: 1000 });
    const adapter = adapterFor(psp);
    await adapter.requestDevolution({ endToEndId, returnId: 'once', amount: 100 });

    const refused = await adapter
      .requestDevolution({ endToEndId, returnId: 'once', amount: 200 })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DevolutionRefusedError);
  });
});

describe('callbacks', () => {
  it('registers the webhook and receives {webhookUrl}/pix for a payment and for a final devolution', async () => {
    const receiver = await startCallbackReceiver();
    try {
      const adapter = adapterFor(psp);
      await adapter.registerWebhook(receiver.url);

      const { txid, endToEndId } = await paidCob({ amount: 1200 });
      await eventually(() =>
        expect(receiver.received).toContainEqual({
          path: '/callbacks/acct/pix',
          body: { pix: [expect.objectContaining({ endToEndId, txid, valor: '12.00', chave: psp.pixKey })] },
        }),
      );

      await adapter.requestDevolution({ endToEndId, returnId: 'cb1', amount: 1200 });
      await eventually(() =>
        expect(receiver.received).toContainEqual({
          path: '/callbacks/acct/pix',
          body: {
            pix: [
              expect.objectContaining({
                endToEndId,
                devolucoes: [expect.objectContaining({ id: 'cb1', status: 'DEVOLVIDO', valor: '12.00' })],
              }),
            ],
          },
        }),
      );
    } finally {
      await receiver.stop();
    }
  });

  it('refuses a webhook for a key that is not the merchant’s', async () => {
    const refused = await adapterFor(psp, { pixKey: 'someone-else@example.com' })
      .registerWebhook('https://example.com/hook')
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({
      name: 'ProviderRequestError',
      providerErrorCode: 'WebhookOperacaoInvalida',
    });
  });
});

describe('infractions (read by the MED port)', () => {
  it('stores an infraction against a Pix received, and refuses one against an unknown Pix', async () => {
    const { endToEndId } = await paidCob();
    const infraction = await control(psp, 'POST', '/infraction', { endToEndId, reportDetails: 'golpe' });
    expect(infraction).toMatchObject({ endToEndId, status: 'OPEN', infractionType: 'FRAUD' });
    expect((await control(psp, 'GET', '/infractions')).infractions).toContainEqual(infraction);

    const unknown = await pspRequest(psp, {
      method: 'POST',
      path: '/_control/infraction',
      body: { endToEndId: `E99999998202601010000${'y'.repeat(11)}` },
    });
    expect(unknown.status).toBe(404);
  });

  it('a PSP without the feed (it is not API Pix) refusing its path: not offered, never an acquirer error', async () => {
    const adapter = adapterFor(psp);
    const period = { from: new Date(Date.now() - 60_000), to: new Date() };
    await control(psp, 'POST', '/refuse', { count: 1, method: 'GET', path: '/infracoes' });
    const refused = await adapter.listInfractions(period).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ProviderQueryNotOfferedError);
    // The control: served again, the feed answers.
    expect(await adapter.listInfractions(period)).toEqual(expect.any(Array));
  });
});

describe('OAuth2 token', () => {
  it('20 concurrent calls share one token request', async () => {
    const own = await startPsp();
    try {
      const adapter = adapterFor(own);
      const txids = Array.from({ length: 20 }, newTxid);
      await Promise.all(txids.map((txid) => adapter.createCob({ txid, amount: 100, expiresIn: 60 })));
      await adapterFor(own).getCob(txids[0] as string);

      expect(own.stats).toMatchObject({ tokenRequests: 1, apiRequests: 21 });
    } finally {
      await own.stop();
    }
  });

  it('asks for a new token a minute before the cached one expires, and when the PSP revokes it', async () => {
    const own = await startPsp({ tokenTtlSeconds: 3600 });
    try {
      let clock = Date.now();
      const adapter = adapterFor(own, { now: () => clock });
      const txid = newTxid();
      await adapter.createCob({ txid, amount: 100, expiresIn: 60 });
      clock += 3600_000 - 61_000;
      await adapter.getCob(txid);
      expect(own.stats.tokenRequests).toBe(1);

      clock += 2_000;
      await adapter.getCob(txid);
      expect(own.stats.tokenRequests).toBe(2);

      await control(own, 'POST', '/token', { revoke: true });
      await adapter.getCob(txid);
      expect(own.stats.tokenRequests).toBe(3);
    } finally {
      await own.stop();
    }
  });

  it('a token answer without expires_in is used (assumed 300 s), renewed after that', async () => {
    const own = await startPsp();
    try {
      await control(own, 'POST', '/token', { sendExpiresIn: false });
      let clock = Date.now();
      const adapter = adapterFor(own, { now: () => clock });
      const txid = newTxid();
      await adapter.createCob({ txid, amount: 100, expiresIn: 60 });
      clock += 200_000;
      await adapter.getCob(txid);
      expect(own.stats.tokenRequests).toBe(1);
      clock += 100_000;
      await adapter.getCob(txid);
      expect(own.stats.tokenRequests).toBe(2);
    } finally {
      await own.stop();
    }
  });

  it('a token endpoint answering 503 is retried like any call', async () => {
    const own = await startPsp();
    try {
      await control(own, 'POST', '/mode', { mode: 'error5xx', count: 1 });
      const txid = newTxid();
      await adapterFor(own).createCob({ txid, amount: 100, expiresIn: 60 });

      expect(own.stats).toMatchObject({ outages: 1, tokenRequests: 1, apiRequests: 1 });
      expect(own.bank.cobs.has(txid)).toBe(true);
    } finally {
      await own.stop();
    }
  });

  it('refuses to send credentials over plain HTTP', () => {
    expect(() => adapterFor(psp, { tokenUrl: psp.tokenUrl.replace('https:', 'http:') })).toThrow(
      /must be https/,
    );
  });

  it('each operation needs the scope the standard names: without it 403 AcessoNegado, a credentials refusal (not a charge or devolution refusal), never retried', async () => {
    // At the PSP: a token with cob.read only reads cobs, and may not write one.
    const token = await pspToken(psp, 'cob.read');
    const txid = newTxid();
    const put = await pspRequest(psp, {
      method: 'PUT',
      path: `/v2/cob/${txid}`,
      token,
      body: { calendario: { expiracao: 60 }, valor: { original: '1.00' }, chave: psp.pixKey },
    });
    expect(put.status).toBe(403);
    expect(put.headers['content-type']).toBe('application/problem+json');
    expect(put.json()).toMatchObject({ type: expect.stringMatching(/\/AcessoNegado$/), status: 403 });
    expect(psp.bank.cobs.has(txid)).toBe(false);
    expect((await pspRequest(psp, { method: 'GET', path: `/v2/cob/${txid}`, token })).status).toBe(404);

    // Through the adapter, configured with too few scopes: a refusal of the credentials.
    const { endToEndId } = await paidCob({}, { amount: 500 });
    const reader = adapterFor(psp, { scopes: 'cob.read pix.read' });
    const before = psp.stats.apiRequests;
    const create = await reader.createCob({ txid, amount: 100, expiresIn: 60 }).catch((e: unknown) => e);
    expect(create).toMatchObject({ name: 'ProviderRequestError', providerErrorCode: 'AcessoNegado' });
    const devolution = await reader
      .requestDevolution({ endToEndId, returnId: 'D1', amount: 100 })
      .catch((e: unknown) => e);
    expect(devolution).toMatchObject({ name: 'ProviderRequestError', providerErrorCode: 'AcessoNegado' });
    expect(psp.stats.apiRequests - before).toBe(2);
    // What it has the scopes for works.
    expect((await reader.getPix(endToEndId)).endToEndId).toBe(endToEndId);
  });

  it('the adapter asks for the scopes it needs: a client the PSP grants fewer gets invalid_scope', async () => {
    const own = await startPsp({ clientScopes: ['cob.write', 'cob.read', 'pix.read', 'pix.write'] });
    try {
      const refused = await adapterFor(own)
        .getCob(newTxid())
        .catch((e: unknown) => e);
      expect(refused).toMatchObject({ name: 'ProviderRequestError', providerErrorCode: 'invalid_scope' });
      // Configured with the scopes this client has, it works (the callback registered elsewhere).
      const txid = newTxid();
      await adapterFor(own, { scopes: 'cob.write cob.read' }).createCob({ txid, amount: 100, expiresIn: 60 });
      expect(own.bank.cobs.has(txid)).toBe(true);
    } finally {
      await own.stop();
    }
  });

  it('a wrong client secret is refused by the token endpoint, and nothing is retried', async () => {
    const refused = await adapterFor(psp, { clientSecret: 'wrong' })
      .getCob(newTxid())
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ name: 'ProviderRequestError', providerErrorCode: 'invalid_client' });
  });
});

describe('mutual TLS', () => {
  it('the PSP refuses a request without a client certificate during the TLS handshake', async () => {
    const token = await pspToken(psp);
    const withCert = await pspRequest(psp, { method: 'GET', path: `/v2/cob/${newTxid()}`, token });
    expect(withCert.status).toBe(404);

    const without = await pspRequest(psp, {
      method: 'GET',
      path: `/v2/cob/${newTxid()}`,
      token,
      withoutClientCert: true,
    }).catch((error: unknown) => error);
    expect(without).toBeInstanceOf(Error);
    expect((without as NodeJS.ErrnoException).code).toMatch(
      /ECONNRESET|ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED/,
    );
  });

  it('the adapter refuses a PSP whose server certificate comes from another CA, without retrying', async () => {
    const impostor = await startPsp({ pki: makeTestPki('impostor') });
    try {
      const adapter = adapterFor(psp, { baseUrl: impostor.baseUrl, tokenUrl: impostor.tokenUrl, retries: 3 });
      const refused = await adapter.getCob(newTxid()).catch((error: unknown) => error);

      expect(refused).toBeInstanceOf(ProviderUnavailableError);
      // The impostor sends its own CA along: OpenSSL reports a self-signed root it does not trust.
      expect(((refused as Error).cause as NodeJS.ErrnoException).code).toBe('SELF_SIGNED_CERT_IN_CHAIN');
      // One handshake, refused: a certificate is configuration, no retry would change it.
      expect(impostor.stats).toMatchObject({ connections: 1, tokenRequests: 0 });
    } finally {
      await impostor.stop();
    }
  });
});

describe('outages', () => {
  it('a PSP that is down is ProviderUnavailableError; the same create succeeds once it is back', async () => {
    const txid = newTxid();
    const adapter = adapterFor(psp);
    await control(psp, 'POST', '/mode', { mode: 'down' });
    try {
      const down = await adapter
        .createCob({ txid, amount: 100, expiresIn: 60 })
        .catch((error: unknown) => error);
      expect(down).toBeInstanceOf(ProviderUnavailableError);
      expect(psp.bank.cobs.has(txid)).toBe(false);
    } finally {
      await control(psp, 'POST', '/mode', { mode: 'up' });
    }

    await adapter.createCob({ txid, amount: 100, expiresIn: 60 });
    expect(psp.bank.cobs.get(txid)?.status).toBe('ATIVA');
  });

  it('two 503s in a row are retried with backoff and the call succeeds', async () => {
    const txid = newTxid();
    const adapter = adapterFor(psp);
    await adapter.createCob({ txid, amount: 100, expiresIn: 60 });
    const before = { ...psp.stats };
    await control(psp, 'POST', '/mode', { mode: 'error5xx', count: 2 });

    expect((await adapter.getCob(txid)).status).toBe('ATIVA');
    // Two attempts answered by the outage, the third by the API.
    expect(psp.stats.outages - before.outages).toBe(2);
    expect(psp.stats.apiRequests - before.apiRequests).toBe(1);
  });

  it('a 429 or 503 with Retry-After is retried no sooner than it says; one that says past the call’s budget is not retried', async () => {
    const txid = newTxid();
    const adapter = adapterFor(psp);
    await adapter.createCob({ txid, amount: 100, expiresIn: 60 });
    const outages = psp.stats.outages;
    const took = async (call: () => Promise<unknown>) => {
      const started = Date.now();
      const result = await call().catch((error: unknown) => error);
      return { result, ms: Date.now() - started };
    };

    // Seconds; then an HTTP date (whole seconds: at least 1 s, at most 2 s from now).
    await control(psp, 'POST', '/mode', { mode: 'error5xx', status: 429, retryAfter: '1', count: 1 });
    const bySeconds = await took(() => adapter.getCob(txid));
    expect(bySeconds.result).toMatchObject({ status: 'ATIVA' });
    expect(bySeconds.ms).toBeGreaterThanOrEqual(1000);
    const date = new Date(Math.ceil(Date.now() / 1000) * 1000 + 1000).toUTCString();
    await control(psp, 'POST', '/mode', { mode: 'error5xx', retryAfter: date, count: 1 });
    const byDate = await took(() => adapter.getCob(txid));
    expect(byDate.result).toMatchObject({ status: 'ATIVA' });
    expect(byDate.ms).toBeGreaterThanOrEqual(900);
    expect(psp.stats.outages - outages).toBe(2);

    // Two minutes is past any merchant request's budget: one attempt, answered at once.
    await control(psp, 'POST', '/mode', { mode: 'error5xx', retryAfter: '120', count: 3 });
    try {
      const tooLong = await took(() => adapter.getCob(txid));
      expect(tooLong.result).toBeInstanceOf(ProviderUnavailableError);
      expect((tooLong.result as ProviderUnavailableError).retryAfterMs).toBe(120_000);
      expect(tooLong.ms).toBeLessThan(1000);
      expect(psp.stats.outages - outages).toBe(3);
    } finally {
      await control(psp, 'POST', '/mode', { mode: 'up' });
    }
  });

  it('a PSP slower than the timeout is ProviderUnavailableError', async () => {
    await control(psp, 'POST', '/mode', { mode: 'slow', delayMs: 1000, count: 1 });
    const slow = await adapterFor(psp, { timeoutMs: 200, retries: 0 })
      .getCob(newTxid())
      .catch((error: unknown) => error);

    expect(slow).toBeInstanceOf(ProviderUnavailableError);
    expect((slow as Error).message).toContain('timed out');
  });
});

describe('the standard’s schemas', () => {
  it('a body the standard rejects gets its problem document with violacoes', async () => {
    const token = await pspToken(psp);
    const answer = await pspRequest(psp, {
      method: 'PUT',
      path: `/v2/cob/${newTxid()}`,
      token,
      body: {
        calendario: { expiracao: 3600 },
        valor: { original: '10.5' },
        chave: psp.pixKey,
        devedor: { cpf: '123', nome: 'Fulano' },
      },
    });

    expect(answer.status).toBe(400);
    expect(answer.headers['content-type']).toBe('application/problem+json');
    expect(answer.json()).toMatchObject({
      type: 'https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida',
      status: 400,
      violacoes: expect.arrayContaining([
        expect.objectContaining({ propriedade: 'cob.valor.original' }),
        expect.objectContaining({ propriedade: 'cob.devedor.cpf' }),
      ]),
    });
  });

  it('a devolution without valor, a webhook URL that is not a URI and an inverted period are refused', async () => {
    const token = await pspToken(psp);
    const { endToEndId } = await paidCob();
    const devolucao = await pspRequest(psp, {
      method: 'PUT',
      path: `/v2/pix/${endToEndId}/devolucao/d1`,
      token,
      body: { descricao: 'sem valor' },
    });
    const webhook = await pspRequest(psp, {
      method: 'PUT',
      path: `/v2/webhook/${encodeURIComponent(psp.pixKey)}`,
      token,
      body: { webhookUrl: 'not a uri' },
    });
    const period = await pspRequest(psp, {
      method: 'GET',
      path: '/v2/pix?inicio=2026-01-02T00:00:00Z&fim=2026-01-01T00:00:00Z',
      token,
    });

    expect([devolucao.status, webhook.status, period.status]).toEqual([400, 400, 400]);
    expect(devolucao.json().type).toMatch(/\/PixDevolucaoInvalida$/);
    expect(webhook.json().type).toMatch(/\/WebhookOperacaoInvalida$/);
    expect(period.json().type).toMatch(/\/PixConsultaInvalida$/);
  });

  it('a request without a token is 401 with a problem document', async () => {
    const answer = await pspRequest(psp, { method: 'GET', path: `/v2/cob/${newTxid()}` });
    expect(answer.status).toBe(401);
    expect(answer.json().type).toMatch(/\/AcessoNegado$/);
  });
});

describe("the invocation's acquirer budget", () => {
  it('a call made once the invocation’s time is spent is not sent, and counted neither as a call nor as an error', async () => {
    const { txid } = await paidCob();
    const earlier = join(mkdtempSync(join(tmpdir(), 'pix-metrics-')), 'earlier.jsonl');
    const file = join(dirname(earlier), 'metrics.jsonl');
    vi.stubEnv('METRICS_FILE', earlier);
    flushMetrics(); // this process's earlier calls, out of the way
    vi.stubEnv('METRICS_FILE', file);
    try {
      const adapter = adapterFor(psp);
      const sent = () => psp.stats.tokenRequests + psp.stats.apiRequests;
      const before = sent();
      await withAcquirerBudget('request', async () => {
        const spent = Date.now() + acquirerCallBudgets.request.totalMs;
        const clock = vi.spyOn(Date, 'now').mockReturnValue(spent);
        try {
          await expect(adapter.getCob(txid)).rejects.toThrow(ProviderUnavailableError);
          await expect(adapter.getCob(txid)).rejects.toThrow(/not sent, the invocation's time is spent/);
        } finally {
          clock.mockRestore();
        }
      });
      expect(sent()).toBe(before);
      flushMetrics();
      expect(metricTotal(emfDocuments(file), observability.metrics.acquirerCalls, 'live')).toBe(0);
      expect(metricTotal(emfDocuments(file), observability.metrics.acquirerErrors, 'live')).toBe(0);
      // The control: the same call in a budget with time left is sent and counted.
      await withAcquirerBudget('request', () => adapter.getCob(txid));
      expect(sent()).toBeGreaterThan(before);
      flushMetrics();
      expect(metricTotal(emfDocuments(file), observability.metrics.acquirerCalls, 'live')).toBe(1);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
