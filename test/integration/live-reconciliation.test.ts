/**
 * Reconciliation with the live acquirer (README, "Going live", Reconciliation): with the PSP's callback lost (its webhook
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
import { api, expectError } from '../helpers/http.ts';
import { testTimings } from '../helpers/local-env.ts';
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
  it('a charge whose cob the acquirer refuses to show waits for its expiry, and holds no other expiry up', async () => {
    const { psp, merchant } = beforeExpiry;
    const storedStatus = async (id: string) =>
      (await storedCharge(merchant.accountId, rawId(id), 'live'))?.status;
    const refused = await liveChargeAt(psp, merchant.liveKey, { amount: 3300 });
    const unpaid = await liveChargeAt(psp, merchant.liveKey, { amount: 3400 });
    // A refusal, not an outage (its credentials, a cob it no longer knows): 400 on the read.
    await control(psp, 'POST', '/refuse', { count: 1_000_000, path: `/cob/${refused.txid}`, method: 'GET' });
    try {
      // The refused one is due first, so a run that stopped at it would never reach the other.
      await closeWindowAfter(merchant.accountId, refused.id, new Date(Date.now() - 1000).toISOString());
      await closeWindowAfter(merchant.accountId, unpaid.id, new Date().toISOString());
      await eventually(
        async () => expect(await statusOf(merchant.liveKey, unpaid.id)).toBe('expired'),
        SETTLED,
      );
      await eventually(() =>
        expect(
          runtimeLogRecords().some(
            (r) =>
              r.message === 'cob not read before expiry; expiry deferred' && r.chargeId === rawId(refused.id),
          ),
        ).toBe(true),
      );
      // Shown expired (its window closed), but its expiry not recorded: a Pix could still be settled.
      expect(await storedStatus(refused.id)).toBe('WAITING_PAYMENT');
    } finally {
      await control(psp, 'POST', '/refuse', { count: 0, path: `/cob/${refused.txid}` });
    }
    // Readable again: read, found ATIVA, its expiry recorded.
    await eventually(async () => expect(await storedStatus(refused.id)).toBe('EXPIRED'), SETTLED);
  });

  it('a cob read CONCLUIDA without its optional pix list holds a cancel (503) until the Pix is known', async () => {
    const { psp, merchant } = beforeExpiry;
    const charge = await liveChargeAt(psp, merchant.liveKey, { amount: 3500 });
    const pix = await control(psp, 'POST', `/cob/${charge.txid}/pay`, {});
    await control(psp, 'POST', '/answer-format', { cobPixList: false });
    try {
      const held = await api(`/v1/payments/${rawId(charge.id)}/cancel`, {
        apikey: merchant.liveKey,
        method: 'POST',
      });
      expectError(held, 503, 'api_error', 'service_unavailable');
      expect(await statusOf(merchant.liveKey, charge.id)).toBe('pending');
    } finally {
      await control(psp, 'POST', '/answer-format', { cobPixList: true });
    }
    // With the list, the cancel settles that Pix first: the payment was paid in time.
    const refused = await api(`/v1/payments/${rawId(charge.id)}/cancel`, {
      apikey: merchant.liveKey,
      method: 'POST',
    });
    expectError(refused, 400, 'invalid_request_error', 'payment_not_cancellable');
    expect((await storedCharge(merchant.accountId, rawId(charge.id), 'live'))?.endToEndId).toBe(
      pix.endToEndId,
    );
  });

  it('a Pix whose time the PSP writes in another UTC offset (+05:00) is settled, its time stored in UTC', async () => {
    const { psp, merchant } = periodic;
    const charge = await liveChargeAt(psp, merchant.liveKey, { amount: 3600 });
    await control(psp, 'POST', '/answer-format', { horarioOffsetMinutes: 300 });
    try {
      const pix = await control(psp, 'POST', `/cob/${charge.txid}/pay`, {});
      await eventually(async () => expect(await statusOf(merchant.liveKey, charge.id)).toBe('paid'), SETTLED);
      const stored = await storedCharge(merchant.accountId, rawId(charge.id), 'live');
      expect(stored?.endToEndId).toBe(pix.endToEndId);
      expect(stored?.paidAt).toBe(new Date(pix.horario).toISOString());
    } finally {
      await control(psp, 'POST', '/answer-format', { horarioOffsetMinutes: 0 });
    }
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

  it('a Pix returned when reconciled late is not reported overdue at once: its age counts from the settlement', async () => {
    // Devolutions the payer's bank answers only after a minute: the return stays IN_PROGRESS.
    const psp = await startPsp({ devolutionSettleMs: 60_000 });
    try {
      const merchant = await liveMerchantAt(psp, 'Loja Atrasada');
      psp.bank.webhooks.delete(psp.pixKey);
      await putOffReconciliation(merchant.accountId);
      const charge = await liveChargeAt(psp, merchant.liveKey, { amount: 3700 });
      const before = new Date(Date.now() - 1000).toISOString();
      // Overpaid: the service returns it by itself (an automatic return).
      const pix = await control(psp, 'POST', `/cob/${charge.txid}/pay`, { amount: 3800 });
      const overdueMs = Number(testTimings.REFUND_OVERDUE_SECONDS) * 1000;
      // Settled only once the Pix is older than the overdue age (no run reads it meanwhile).
      await eventually(() => expect(Date.now()).toBeGreaterThan(Date.parse(pix.horario) + overdueMs), {
        message: 'the Pix older than the overdue age',
        timeoutMs: overdueMs + 5_000,
      });
      const settledFrom = Date.now();
      await transact({
        cursor: reconciliationItem(
          { accountId: merchant.accountId, reconciledTo: before },
          new Date().toISOString(),
        ),
      });
      const [returned] = await eventually(async () => {
        const { data } = (await api(`/v1/payments/${rawId(charge.id)}/refunds`, { apikey: merchant.liveKey }))
          .body;
        expect(data).toEqual([
          expect.objectContaining({ automatic: true, reason: 'overpaid', status: 'IN_PROGRESS' }),
        ]);
        return data;
      }, SETTLED);
      // Its time is the Pix's.
      expect(returned.createdAt).toBe(new Date(pix.horario).toISOString());
      const [first] = await eventually(
        () => {
          const found = runtimeLogRecords().filter(
            (r) =>
              r.message === 'refund overdue: the acquirer has not resolved it' && r.refundId === returned.id,
          );
          expect(found).not.toEqual([]);
          return found;
        },
        { timeoutMs: 45_000, message: 'the return reported overdue' },
      );
      expect(first).toMatchObject({ level: 'ERROR', status: 'IN_PROGRESS' });
      // Reported once unresolved for the overdue age since it was settled, not at its first check.
      expect(Date.parse(first?.timestamp)).toBeGreaterThanOrEqual(settledFrom + overdueMs);
    } finally {
      await psp.stop();
    }
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
