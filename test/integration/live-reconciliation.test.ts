/**
 * Reconciliation with the live acquirer (issue 12, §3): with the PSP's callback lost (its webhook
 * unregistered), a Pix is still settled by the scheduler, either by the periodic `GET /pix`
 * (every `RECONCILIATION_PERIOD_SECONDS`, 2 s in the tests) or, before the charge would be
 * expired, by reading its cob (`GET /cob/{txid}`, CONCLUIDA).
 */

import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalPsp } from '../../infra/local/psp/server.ts';
import { db, tableName, transact } from '../../shared/store/client.ts';
import { chargeKey, dueIndex, reconciliationKey } from '../../shared/store/keys.ts';
import { reconciliationItem } from '../../shared/store/live-acquirer.ts';
import { rawId, storedCharge } from '../helpers/charges.ts';
import { eventually } from '../helpers/eventually.ts';
import { api } from '../helpers/http.ts';
import {
  control,
  type LiveMerchant,
  liveChargeAt,
  liveMerchantAt,
  setProviderAt,
  startPsp,
} from '../helpers/psp.ts';
import { runtimeLogRecords } from '../helpers/runtime-log.ts';

let periodic: { psp: LocalPsp; merchant: LiveMerchant };
let beforeExpiry: { psp: LocalPsp; merchant: LiveMerchant };

/** An acquirer whose callbacks are lost: its webhook is unregistered at the PSP. */
async function withoutCallbacks(name: string) {
  const psp = await startPsp();
  const merchant = await liveMerchantAt(psp, name);
  psp.bank.webhooks.delete(psp.pixKey);
  return { psp, merchant };
}

/** A Pix or devolution through the queue, the PSP and the scheduler: generous on a loaded machine. */
const SETTLED = { timeoutMs: 30_000 };
/** `RECONCILIATION_OVERLAP_SECONDS` of the test runtime (global-setup.ts). */
const OVERLAP_MS = 5_000;

// The timeout: a test CA made with node-forge and three admin CLI runs per merchant, slow on a loaded machine.
beforeAll(async () => {
  [periodic, beforeExpiry] = await Promise.all([
    withoutCallbacks('Loja Reconciliada'),
    withoutCallbacks('Loja Expirando'),
  ]);
  // This account's periodic GET /pix is put off for good: only the cob check can settle its Pix.
  // A run under way keeps off it: its cursor write holds only while the cursor is where it read it.
  await putOffReconciliation(beforeExpiry.merchant.accountId);
}, 180_000);
afterAll(async () => {
  await Promise.all([periodic?.psp.stop(), beforeExpiry?.psp.stop()]);
});

const PUT_OFF = '2999-01-01T00:00:00.000Z';

async function putOffReconciliation(accountId: string) {
  const { committed } = await transact({
    cursor: reconciliationItem({ accountId, reconciledTo: new Date().toISOString() }, PUT_OFF),
  });
  expect(committed).toBe(true);
}

const storedCursor = async (accountId: string) =>
  (await db.send(new GetCommand({ TableName: tableName(), Key: reconciliationKey(accountId) }))).Item;

const statusOf = async (liveKey: string, id: string) =>
  (await api(`/v1/charges/${id}`, { apikey: liveKey })).body.status;

/** Closes the charge's window just after `at` (a past instant) and makes its expiry due now. */
async function closeWindowAfter(accountId: string, chargeId: string, at: string) {
  const closedAt = new Date(Date.parse(at) + 1).toISOString();
  const scope = { accountId, mode: 'live' } as const;
  await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: chargeKey(scope, rawId(chargeId)),
      UpdateExpression: 'SET expiresAt = :closed, gsi2sk = :due',
      ExpressionAttributeValues: {
        ':closed': closedAt,
        ':due': dueIndex('EXPIRY', closedAt, scope, rawId(chargeId), 0).gsi2sk,
      },
    }),
  );
}

describe('reconciliation with the live acquirer', { timeout: 90_000 }, () => {
  it('a Pix whose callback was lost is settled by the periodic GET /pix', async () => {
    const { psp, merchant } = periodic;
    const charge = await liveChargeAt(psp, merchant.liveKey, { amount: 4200 });
    const pix = await control(psp, 'POST', `/cob/${charge.txid}/pay`, {});
    await eventually(async () => expect(await statusOf(merchant.liveKey, charge.id)).toBe('paid'), SETTLED);
    expect((await storedCharge(merchant.accountId, rawId(charge.id), 'live'))?.endToEndId).toBe(
      pix.endToEndId,
    );
    // No callback reached the service: the PSP had none to post to.
    expect(psp.callbacks).toEqual([]);
    expect((await api('/v1/wallets/balance', { apikey: merchant.liveKey })).body.available).toBeGreaterThan(
      0,
    );
  });

  it('a live charge is checked at the acquirer before it expires: a CONCLUIDA cob is settled, an ATIVA one expires', async () => {
    const { psp, merchant } = beforeExpiry;
    const paid = await liveChargeAt(psp, merchant.liveKey, { amount: 3100 });
    const unpaid = await liveChargeAt(psp, merchant.liveKey, { amount: 3200 });
    const pix = await control(psp, 'POST', `/cob/${paid.txid}/pay`, {});
    await closeWindowAfter(merchant.accountId, paid.id, pix.horario);
    await closeWindowAfter(merchant.accountId, unpaid.id, new Date().toISOString());
    await eventually(
      async () => expect(await statusOf(merchant.liveKey, unpaid.id)).toBe('expired'),
      SETTLED,
    );
    await eventually(async () => expect(await statusOf(merchant.liveKey, paid.id)).toBe('paid'), SETTLED);
    expect((await storedCharge(merchant.accountId, rawId(paid.id), 'live'))?.endToEndId).toBe(pix.endToEndId);
    expect(psp.callbacks).toEqual([]);
    // Settled by the cob read, not by a GET /pix run.
    await eventually(() =>
      expect(
        runtimeLogRecords().find((r) => r.message === 'acquirer Pix' && r.endToEndId === pix.endToEndId),
      ).toMatchObject({ outcome: 'settled', via: 'cob' }),
    );
  });
  it("a run's cursor write leaves a cursor another writer moved meanwhile (an overlapping run, a new acquirer)", async () => {
    const { accountId } = beforeExpiry.merchant;
    const scope = { accountId, mode: 'live' } as const;
    const readAt = String((await storedCursor(accountId))?.gsi2sk);
    expect(readAt).toBe(dueIndex('RECONCILE', PUT_OFF, scope, accountId, 0).gsi2sk);
    const elsewhere = '2998-01-01T00:00:00.000Z';
    await transact({ cursor: reconciliationItem({ accountId, reconciledTo: elsewhere }, elsewhere) });
    const stale = await transact({
      cursor: reconciliationItem({ accountId, reconciledTo: new Date().toISOString() }, PUT_OFF, readAt),
    });
    expect(stale).toMatchObject({ committed: false, failed: ['cursor'] });
    expect(await storedCursor(accountId)).toMatchObject({
      reconciledTo: elsewhere,
      gsi2sk: dueIndex('RECONCILE', elsewhere, scope, accountId, 0).gsi2sk,
    });
    // Where it was read, the write holds.
    const movedAt = String((await storedCursor(accountId))?.gsi2sk);
    const current = await transact({
      cursor: reconciliationItem({ accountId, reconciledTo: elsewhere }, PUT_OFF, movedAt),
    });
    expect(current.committed).toBe(true);
  });

  it('the same PSP set again (renewed credentials) keeps the cursor: a Pix whose callback was lost before is read', async () => {
    const psp = await startPsp();
    try {
      const merchant = await liveMerchantAt(psp, 'Loja Renovada');
      psp.bank.webhooks.delete(psp.pixKey);
      // No periodic run meanwhile: the cursor, at now, is put off.
      await putOffReconciliation(merchant.accountId);
      const charge = await liveChargeAt(psp, merchant.liveKey, { amount: 1300 });
      const pix = await control(psp, 'POST', `/cob/${charge.txid}/pay`, {});
      // Set again only once the Pix is older than the runs' overlap: then a run from the set-provider's
      // own time (a cursor wrongly reset) would not list it. The PSP lists by `horario`, on this clock.
      await eventually(() => expect(Date.now()).toBeGreaterThan(Date.parse(pix.horario) + OVERLAP_MS), {
        message: 'the Pix older than the overlap',
      });
      await setProviderAt(psp, merchant.accountId);
      await eventually(async () => expect(await statusOf(merchant.liveKey, charge.id)).toBe('paid'), SETTLED);
      expect(psp.callbacks).toEqual([]);
    } finally {
      await psp.stop();
    }
  });
});
