/**
 * Live refunds end to end (README, "Going live"): a refund of a live Pix is a devolution at the acquirer
 * (`PUT /pix/{e2eid}/devolucao/{id}`); the refund moves IN_PROGRESS → REFUNDED when the PSP
 * reports `DEVOLVIDO` (its callback carries the Pix with its `devolucoes`, read back there) and →
 * FAILED with the reserve back in `available` on `NAO_REALIZADO`. The PSP here confirms nothing by
 * itself: each devolution is steered with its controls.
 */

import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { LocalPsp } from '../../infra/local/psp/server.ts';
import { devolutionIdOf } from '../../shared/domain/refunds.ts';
import { db, tableName } from '../../shared/store/client.ts';
import { refundKey } from '../../shared/store/keys.ts';
import { balance, rawId } from '../helpers/charges.ts';
import { documentsAbout, emfDocuments, metricTotal } from '../helpers/emf.ts';
import { eventually } from '../helpers/eventually.ts';
import { api } from '../helpers/http.ts';
import { ledgerDiscrepancies } from '../helpers/ledger-invariant.ts';
import { control, type LiveMerchant, liveChargeAt, liveMerchantAt, startPsp } from '../helpers/psp.ts';
import { runtimeLogRecords } from '../helpers/runtime-log.ts';

let psp: LocalPsp;
let merchant: LiveMerchant;

/** A Pix or devolution through the queue, the PSP and the scheduler: generous on a loaded machine. */
const SETTLED = { timeoutMs: 30_000 };

// The timeout: a test CA made with node-forge and three admin CLI runs per merchant, slow on a loaded machine.
beforeAll(async () => {
  // Devolutions stay EM_PROCESSAMENTO until a test steers them.
  psp = await startPsp({ devolutionSettleMs: 10 * 60_000 });
  merchant = await liveMerchantAt(psp, 'Loja Reembolso');
}, 180_000);
afterAll(async () => {
  await psp?.stop();
});

/** A live charge paid at the PSP and settled from its callback. */
async function paidLiveCharge(amount: number) {
  const charge = await liveChargeAt(psp, merchant.liveKey, { amount });
  const pix = await control(psp, 'POST', `/cob/${charge.txid}/pay`, {});
  await eventually(
    async () =>
      expect((await api(`/v1/charges/${charge.id}`, { apikey: merchant.liveKey })).body.status).toBe('paid'),
    SETTLED,
  );
  return { paymentId: rawId(charge.id), endToEndId: pix.endToEndId as string };
}

const refundOf = async (paymentId: string, refundId: string) =>
  ((await api(`/v1/payments/${paymentId}/refunds`, { apikey: merchant.liveKey })).body.data as any[]).find(
    (r) => r.id === refundId,
  );

/** `POST /v1/payments/{id}/refund` with the live key and a new idempotency key. */
const askRefund = (paymentId: string, body: Record<string, unknown>) =>
  api(`/v1/payments/${paymentId}/refund`, {
    apikey: merchant.liveKey,
    body: { idempotencyKey: randomUUID(), ...body },
  });

/** A devolution refund of `amount`, once the PSP holds its devolution (IN_PROGRESS). */
async function devolutionRefund(paymentId: string, endToEndId: string, amount: number) {
  const reply = await askRefund(paymentId, { amount, strategy: 'devolution', reason: 'Pedido cancelado' });
  expect(reply.status).toBe(201);
  const refundId = reply.body.id as string;
  await eventually(
    async () => expect((await refundOf(paymentId, refundId))?.status).toBe('IN_PROGRESS'),
    SETTLED,
  );
  const devolution = psp.bank.pix.get(endToEndId)?.devolucoes.find((d) => d.id === devolutionIdOf(refundId));
  expect(devolution).toMatchObject({ valor: (amount / 100).toFixed(2), status: 'EM_PROCESSAMENTO' });
  return refundId;
}

describe('live refunds by devolution', { timeout: 90_000 }, () => {
  it('DEVOLVIDO at the PSP → REFUNDED; the reserve leaves the wallet for good', async () => {
    const { paymentId, endToEndId } = await paidLiveCharge(6000);
    const before = (await balance(merchant.liveKey)).available;
    const refundId = await devolutionRefund(paymentId, endToEndId, 1500);
    expect((await balance(merchant.liveKey)).available).toBe(before - 1500);
    await control(psp, 'POST', `/devolucao/${devolutionIdOf(refundId)}/complete`);
    await eventually(
      async () => expect((await refundOf(paymentId, refundId))?.status).toBe('REFUNDED'),
      SETTLED,
    );
    expect((await balance(merchant.liveKey)).available).toBe(before - 1500);
    const after = (await api(`/v1/payments/${paymentId}`, { apikey: merchant.liveKey })).body;
    expect(after.status).toBe('PAID');
    expect(await ledgerDiscrepancies([merchant.accountId])).toEqual([]);
  });

  it('a devolution status the standard may add later is not final: the refund waits, then follows the PSP', async () => {
    const { paymentId, endToEndId } = await paidLiveCharge(5000);
    const before = (await balance(merchant.liveKey)).available;
    const refundId = await devolutionRefund(paymentId, endToEndId, 1000);
    const devolution = psp.bank.pix
      .get(endToEndId)
      ?.devolucoes.find((d) => d.id === devolutionIdOf(refundId));
    if (!devolution) throw new Error('no devolution at the PSP');
    // A PSP whose enum grew (the standard allows it) reports a status this service does not know,
    // in the Pix a callback makes the service read back.
    (devolution as { status: string }).status = 'AGENDADA';
    const callbackPath = `${new URL(merchant.callbackUrl).pathname}/pix`;
    expect((await api(callbackPath, { body: { pix: [{ endToEndId }] } })).status).toBe(200);
    await eventually(
      () =>
        expect(
          runtimeLogRecords().some(
            (r) => r.message === 'unknown devolution status: the refund waits' && r.refundId === refundId,
          ),
        ).toBe(true),
      SETTLED,
    );
    expect((await refundOf(paymentId, refundId))?.status).toBe('IN_PROGRESS');
    expect((await balance(merchant.liveKey)).available).toBe(before - 1000);
    // Back to a status it knows, the PSP completes it, and the refund follows.
    (devolution as { status: string }).status = 'EM_PROCESSAMENTO';
    await control(psp, 'POST', `/devolucao/${devolutionIdOf(refundId)}/complete`);
    await eventually(
      async () => expect((await refundOf(paymentId, refundId))?.status).toBe('REFUNDED'),
      SETTLED,
    );
  });

  it('NAO_REALIZADO at the PSP → FAILED; the reserve is back in available', async () => {
    const { paymentId, endToEndId } = await paidLiveCharge(7000);
    const before = (await balance(merchant.liveKey)).available;
    const refundId = await devolutionRefund(paymentId, endToEndId, 2000);
    expect((await balance(merchant.liveKey)).available).toBe(before - 2000);
    await control(psp, 'POST', `/devolucao/${devolutionIdOf(refundId)}/fail`, { motivo: 'Conta encerrada' });
    const failed = await eventually(async () => {
      const refund = await refundOf(paymentId, refundId);
      expect(refund?.status).toBe('FAILED');
      return refund;
    }, SETTLED);
    expect(failed.failureReason ?? failed.failure_reason).toBe('Conta encerrada');
    expect((await balance(merchant.liveKey)).available).toBe(before);
    expect(await ledgerDiscrepancies([merchant.accountId])).toEqual([]);
  });

  it('a devolution the PSP refuses (the Pix already returned in full there) → FAILED at once, the reserve back', async () => {
    const { paymentId, endToEndId } = await paidLiveCharge(4000);
    // The merchant returned the whole Pix through the PSP's own channel: nothing is left to return.
    expect(psp.bank.requestDevolucao(endToEndId, 'portal1', { valor: '40.00' }).ok).toBe(true);
    const before = (await balance(merchant.liveKey)).available;
    const reply = await askRefund(paymentId, { amount: 1000, strategy: 'devolution' });
    expect(reply.status).toBe(201);
    const failed = await eventually(async () => {
      const refund = await refundOf(paymentId, reply.body.id);
      expect(refund?.status).toBe('FAILED');
      return refund;
    }, SETTLED);
    expect(failed.failureReason).toEqual(expect.any(String));
    expect((await balance(merchant.liveKey)).available).toBe(before);
    expect(psp.bank.pix.get(endToEndId)?.devolucoes.map((d) => d.id)).toEqual(['portal1']);
    expect(await ledgerDiscrepancies([merchant.accountId])).toEqual([]);
  });

  it('a devolution the PSP took whose answer was lost, then not readable: the refund stays PENDING (reserve held) until it is', async () => {
    const { paymentId, endToEndId } = await paidLiveCharge(5000);
    const before = (await balance(merchant.liveKey)).available;
    // The PUT is carried out but its answer lost; every retry is "id used", and the read-back fails.
    await control(psp, 'POST', '/lose-answers', { count: 1, method: 'PUT', pathPrefix: '/pix/' });
    await control(psp, 'POST', '/devolucao-reads', { status: 503, count: 1_000_000 });
    let refundId: string;
    try {
      const reply = await askRefund(paymentId, { amount: 1200, strategy: 'devolution' });
      expect(reply.status).toBe(201);
      refundId = reply.body.id as string;
      const held = () =>
        psp.bank.pix.get(endToEndId)?.devolucoes.find((d) => d.id === devolutionIdOf(refundId));
      await eventually(() => expect(held()).toMatchObject({ valor: '12.00' }), SETTLED);
      // The scheduler asks again (about every 2 s): each time refused and unreadable, never FAILED.
      const reads = psp.stats.devolucaoReadsFailed;
      await eventually(
        () => expect(psp.stats.devolucaoReadsFailed - reads).toBeGreaterThanOrEqual(3),
        SETTLED,
      );
      expect((await refundOf(paymentId, refundId))?.status).toBe('PENDING');
      expect((await balance(merchant.liveKey)).available).toBe(before - 1200);
    } finally {
      await control(psp, 'POST', '/devolucao-reads', { status: 503, count: 0 });
    }
    // Readable again: the next ask finds the devolution, and it ends as the PSP says.
    await eventually(
      async () => expect((await refundOf(paymentId, refundId))?.status).toBe('IN_PROGRESS'),
      SETTLED,
    );
    await control(psp, 'POST', `/devolucao/${devolutionIdOf(refundId)}/complete`);
    await eventually(
      async () => expect((await refundOf(paymentId, refundId))?.status).toBe('REFUNDED'),
      SETTLED,
    );
    expect((await balance(merchant.liveKey)).available).toBe(before - 1200);
    expect(psp.bank.pix.get(endToEndId)?.devolucoes).toHaveLength(1);
    expect(await ledgerDiscrepancies([merchant.accountId])).toEqual([]);
  });

  it('a devolution read back with its valor zero-padded ("012.00", as the standard allows) after a lost answer is the same devolution', async () => {
    const { paymentId, endToEndId } = await paidLiveCharge(5000);
    const before = (await balance(merchant.liveKey)).available;
    // The PUT is carried out, its answer lost; the retry is "id used"; the read-back shows `012.00`.
    await control(psp, 'POST', '/lose-answers', { count: 1, method: 'PUT', pathPrefix: '/pix/' });
    await control(psp, 'POST', '/answer-format', { devolucaoValorPadded: true });
    try {
      const reply = await askRefund(paymentId, { amount: 1200, strategy: 'devolution' });
      expect(reply.status).toBe(201);
      await eventually(
        async () => expect((await refundOf(paymentId, reply.body.id))?.status).toBe('IN_PROGRESS'),
        SETTLED,
      );
      // Never FAILED on the way: the money left, so the reserve stays out of available.
      expect((await balance(merchant.liveKey)).available).toBe(before - 1200);
      expect(psp.bank.pix.get(endToEndId)?.devolucoes).toHaveLength(1);
    } finally {
      await control(psp, 'POST', '/answer-format', { devolucaoValorPadded: false });
    }
  });

  it('DEVOLVIDO reported for a refund held FAILED is logged as an error and counted', async () => {
    const { paymentId, endToEndId } = await paidLiveCharge(3000);
    const refundId = await devolutionRefund(paymentId, endToEndId, 900);
    await control(psp, 'POST', `/devolucao/${devolutionIdOf(refundId)}/fail`, { motivo: 'Recusada' });
    await eventually(
      async () => expect((await refundOf(paymentId, refundId))?.status).toBe('FAILED'),
      SETTLED,
    );
    const returned = () =>
      metricTotal(
        documentsAbout(
          emfDocuments(join(inject('dataDir'), 'metrics.jsonl')),
          'accountIds',
          merchant.accountId,
        ),
        'RefundsReturnedAfterFailure',
        'live',
      );
    const countedBefore = returned();
    // The PSP's record changes under us (its own reversal of the outcome); reconciliation reads it.
    const devolution = psp.bank.pix
      .get(endToEndId)
      ?.devolucoes.find((d) => d.id === devolutionIdOf(refundId));
    if (!devolution) throw new Error('no devolution at the PSP');
    devolution.status = 'DEVOLVIDO';
    await eventually(
      () =>
        expect(runtimeLogRecords()).toContainEqual(
          expect.objectContaining({
            level: 'ERROR',
            message: 'acquirer returned the money of a FAILED refund',
            refundId,
          }),
        ),
      SETTLED,
    );
    await eventually(() => expect(returned()).toBeGreaterThan(countedBefore), SETTLED);
    expect((await refundOf(paymentId, refundId))?.status).toBe('FAILED');
  });

  it('a cashout is REFUND_NOT_SUPPORTED (API Pix has no payouts), writing nothing; a devolution still works', async () => {
    const { paymentId, endToEndId } = await paidLiveCharge(2000);
    const before = (await balance(merchant.liveKey)).available;
    const reply = await askRefund(paymentId, { amount: 500, strategy: 'cashout' });
    expect(reply.status).toBe(422);
    expect(reply.body.error).toMatchObject({ type: 'invalid_request_error', code: 'REFUND_NOT_SUPPORTED' });
    expect((await balance(merchant.liveKey)).available).toBe(before);
    expect(psp.bank.pix.get(endToEndId)?.devolucoes).toEqual([]);
    // The positive control: the same payment refunds by devolution.
    await devolutionRefund(paymentId, endToEndId, 500);
    // Without a strategy the refund is the devolution the PSP can make, not a 422.
    const unspecified = await askRefund(paymentId, { amount: 300 });
    expect(unspecified.status).toBe(201);
    expect(unspecified.body.strategy).toBe('devolution');
  });

  // Last in the file: a failed reconciliation puts the account's next one off by a minute.
  it('a refund the PSP refuses our credentials for is asked again later, not on every scheduler run', async () => {
    const { paymentId } = await paidLiveCharge(4000);
    await control(psp, 'POST', '/token', { refuseClient: true });
    try {
      const reply = await askRefund(paymentId, { amount: 1000, strategy: 'devolution' });
      // Recorded and reserved; the acquirer is asked later, by the scheduler.
      expect(reply.status).toBe(201);
      const failedAt = await eventually(() => {
        const record = runtimeLogRecords().find(
          (r) => r.message === 'refund advance failed' && r.refundId === reply.body.id,
        );
        expect(record).toBeDefined();
        return Date.parse(record?.timestamp);
      }, SETTLED);
      // Its next check is put off past that run (the refund queue's sort key starts with the time).
      const scope = { accountId: merchant.accountId, mode: 'live' } as const;
      await eventually(async () => {
        const item = (
          await db.send(
            new GetCommand({ TableName: tableName(), Key: refundKey(scope, paymentId, reply.body.id) }),
          )
        ).Item;
        expect(Date.parse(String(item?.gsi2sk).split('#')[0] ?? '')).toBeGreaterThan(failedAt);
      });
    } finally {
      await control(psp, 'POST', '/token', { refuseClient: false });
    }
  });
});
