/**
 * MED from the live acquirer (README, "Going live", MED from the PSP): the payer's bank reports an infraction against a Pix
 * (the local PSP's control), the scheduler reads it through the MED port (DICT
 * `InfractionReport`, the PSP's `GET /infracoes`) and opens a MED case on the charge; the report's
 * end decides it: CLOSED AGREED → `rejected` (money lost), CLOSED DISAGREED → `closed`
 * (refunded to the merchant).
 */

import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalPsp } from '../../infra/local/psp/server.ts';
import { devolutionIdOf } from '../../shared/domain/refunds.ts';
import { db, tableName } from '../../shared/store/client.ts';
import { reconciliationKey } from '../../shared/store/keys.ts';
import { balance, rawId } from '../helpers/charges.ts';
import { eventually } from '../helpers/eventually.ts';
import { api } from '../helpers/http.ts';
import { ledgerDiscrepancies } from '../helpers/ledger-invariant.ts';
import { control, type LiveMerchant, liveChargeAt, liveMerchantAt, startPsp } from '../helpers/psp.ts';
import { refundOf } from '../helpers/refunds.ts';

/** Through the PSP, the callback queue and the scheduler's reconciliation: generous on a loaded machine. */
const SETTLED = { timeoutMs: 30_000 };
/** `RECONCILIATION_OVERLAP_SECONDS` of the test runtime (global-setup.ts). */
const OVERLAP_MS = 5_000;

let psp: LocalPsp;
let merchant: LiveMerchant;

// The timeout: a test CA made with node-forge and three admin CLI runs per merchant, slow on a loaded machine.
beforeAll(async () => {
  // Devolutions end only when a test says so (one here holds a refund in flight).
  psp = await startPsp({ devolutionSettleMs: 600_000 });
  merchant = await liveMerchantAt(psp, 'Loja MED');
}, 180_000);
afterAll(async () => {
  await psp?.stop();
});

const chargeOf = async (id: string) => (await api(`/v1/charges/${id}`, { apikey: merchant.liveKey })).body;

/** A live charge paid at the PSP (settled from its callback), with its Pix's end-to-end id. */
async function paidCharge(amount: number) {
  const charge = await liveChargeAt(psp, merchant.liveKey, { amount });
  const pix = await control(psp, 'POST', `/cob/${charge.txid}/pay`, {});
  await eventually(async () => expect((await chargeOf(charge.id)).status).toBe('paid'), SETTLED);
  return { charge, endToEndId: pix.endToEndId as string };
}

const report = async (endToEndId: string) =>
  control(psp, 'POST', '/infraction', { endToEndId, reportDetails: 'Golpe do falso vendedor' });

/** The open case of a charge, once the scheduler has read its infraction. */
const openCaseOf = (chargeId: string, amount: number) =>
  eventually(async () => {
    const cases = (await api('/v1/med/cases?limit=100', { apikey: merchant.liveKey })).body.data as any[];
    const found = cases.find((c) => c.charge_id === chargeId);
    expect(found).toMatchObject({ status: 'open', type: 'fraud', amount, reason: 'Golpe do falso vendedor' });
    return found;
  }, SETTLED);

/** A live charge paid at the PSP and an infraction reported against its Pix. */
/** A devolution of `amount` of the payment, requested at the PSP (IN_PROGRESS); `refundNow` reads it back. */
async function devolutionInProgress(paymentId: string, amount: number) {
  const refund = await api(`/v1/payments/${paymentId}/refund`, {
    apikey: merchant.liveKey,
    body: { idempotencyKey: randomUUID(), amount, strategy: 'devolution' },
  });
  expect(refund.status).toBe(201);
  const refundNow = () => refundOf(merchant.liveKey, paymentId, refund.body.id);
  await eventually(async () => expect((await refundNow())?.status).toBe('IN_PROGRESS'), SETTLED);
  return { refund, refundNow };
}

async function reportedCharge(amount: number) {
  const { charge, endToEndId } = await paidCharge(amount);
  const infraction = await report(endToEndId);
  const medCase = await openCaseOf(charge.id, amount);
  expect((await chargeOf(charge.id)).status).toBe('disputed');
  return { charge, infractionId: infraction.id as string, caseId: medCase.id as string };
}

const caseOf = async (id: string) => (await api(`/v1/med/cases/${id}`, { apikey: merchant.liveKey })).body;

describe('MED from the live acquirer (DICT infraction reports)', { timeout: 120_000 }, () => {
  it('an infraction opens a MED case holding the amount; CLOSED AGREED loses it', async () => {
    const retainedBefore = (await balance(merchant.liveKey)).retained;
    const { infractionId, caseId } = await reportedCharge(3300);
    expect((await balance(merchant.liveKey)).retained).toBe(retainedBefore + 3300);
    await control(psp, 'POST', `/infraction/${infractionId}/close`, { analysisResult: 'AGREED' });
    await eventually(
      async () => expect(await caseOf(caseId)).toMatchObject({ status: 'rejected', money_outcome: 'lost' }),
      SETTLED,
    );
    expect((await balance(merchant.liveKey)).retained).toBe(retainedBefore);
    expect(await ledgerDiscrepancies([merchant.accountId])).toEqual([]);
  });

  it('CLOSED DISAGREED gives the money back to the merchant and the charge reads paid again', async () => {
    const availableBefore = (await balance(merchant.liveKey)).available;
    const { charge, infractionId, caseId } = await reportedCharge(2700);
    await control(psp, 'POST', `/infraction/${infractionId}/close`, { analysisResult: 'DISAGREED' });
    await eventually(
      async () =>
        expect(await caseOf(caseId)).toMatchObject({
          status: 'closed',
          money_outcome: 'refunded_to_merchant',
        }),
      SETTLED,
    );
    expect((await chargeOf(charge.id)).status).toBe('paid');
    // The new charge's net is credited and nothing is retained any more.
    expect((await balance(merchant.liveKey)).available).toBeGreaterThan(availableBefore);
    expect((await balance(merchant.liveKey)).retained).toBe(0);
    expect(await ledgerDiscrepancies([merchant.accountId])).toEqual([]);
  });

  it('an infraction while a refund of the whole charge is in flight waits for it, and opens the case once it fails', async () => {
    // Enough in the wallet for a refund of a whole charge (its own net is less than its amount).
    await paidCharge(10_000);
    const { charge, endToEndId } = await paidCharge(4000);
    const paymentId = rawId(charge.id);
    const { refund, refundNow } = await devolutionInProgress(paymentId, 4000);

    await report(endToEndId);
    // Positive control: a report made after it opens its case, so the scheduler has read both.
    const other = await paidCharge(1500);
    await report(other.endToEndId);
    await openCaseOf(other.charge.id, 1500);
    const cases = (await api('/v1/med/cases?limit=100', { apikey: merchant.liveKey })).body.data as any[];
    expect(cases.find((c) => c.charge_id === charge.id)).toBeUndefined();
    expect((await chargeOf(charge.id)).status).not.toBe('disputed');

    // The devolution fails at the PSP: the whole amount is the merchant's again, and contestable.
    await control(psp, 'POST', `/devolucao/${devolutionIdOf(refund.body.id)}/fail`, {
      motivo: 'Conta encerrada',
    });
    await eventually(async () => expect((await refundNow())?.status).toBe('FAILED'), SETTLED);
    await openCaseOf(charge.id, 4000);
    expect((await chargeOf(charge.id)).status).toBe('disputed');
    expect(await ledgerDiscrepancies([merchant.accountId])).toEqual([]);
  });

  it('an infraction that waits for a held devolution past the listing window still opens its case once it completes', async () => {
    const { charge, endToEndId } = await paidCharge(4000);
    const paymentId = rawId(charge.id);
    const { refund, refundNow } = await devolutionInProgress(paymentId, 1500);
    const devolution = devolutionIdOf(refund.body.id);
    await control(psp, 'POST', `/devolucao/${devolution}/hold`, {});

    const infraction = await report(endToEndId);
    // The PSP lists a report only while its last change is within a run's period (from the
    // cursor less the overlap): once the cursor is past it by more than the overlap, no run lists it.
    const unlistedFrom = Date.parse(infraction.lastModified as string) + OVERLAP_MS + 1_000;
    await eventually(async () => {
      const { Item } = await db.send(
        new GetCommand({ TableName: tableName(), Key: reconciliationKey(merchant.accountId) }),
      );
      expect(Date.parse(String(Item?.reconciledTo))).toBeGreaterThan(unlistedFrom);
    }, SETTLED);
    const cases = (await api('/v1/med/cases?limit=100', { apikey: merchant.liveKey })).body.data as any[];
    expect(cases.find((c) => c.charge_id === charge.id)).toBeUndefined();

    // The devolution ends: what is left of the charge (4000 − 1500) is held by the case.
    const retainedBefore = (await balance(merchant.liveKey)).retained;
    await control(psp, 'POST', `/devolucao/${devolution}/complete`, {});
    await eventually(async () => expect((await refundNow())?.status).toBe('REFUNDED'), SETTLED);
    await openCaseOf(charge.id, 2500);
    expect((await chargeOf(charge.id)).status).toBe('disputed');
    expect((await balance(merchant.liveKey)).retained).toBe(retainedBefore + 2500);
    expect(await ledgerDiscrepancies([merchant.accountId])).toEqual([]);
  });
});
