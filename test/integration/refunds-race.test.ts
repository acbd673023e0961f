/**
 * The money claims of refunds, raced with real concurrent requests: no over-refund, a refund's
 * outcome decided once, and a failure at any step of a refund leaving nothing half-done (the
 * wallet equals the ledger after the file: test/helpers/ledger-invariant.ts).
 */

import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { ChargeRecord } from '../../shared/domain/charges.ts';
import { getCharge, replaceChargeItem } from '../../shared/store/charges.ts';
import { transact } from '../../shared/store/client.ts';
import { readWalletShards } from '../../shared/store/wallets.ts';
import { balance, merchant, newCharge, pay, rawId, storedCharge } from '../helpers/charges.ts';
import { eventually } from '../helpers/eventually.ts';
import { api, expectError } from '../helpers/http.ts';
import { openMed } from '../helpers/med.ts';

async function paidPayment(amount: number) {
  const m = await merchant();
  const funding = await newCharge(m.apikey, { amount: 100_000 });
  expect((await pay(m.apikey, funding.id)).body.outcome).toBe('paid');
  const charge = await newCharge(m.apikey, { amount });
  expect((await pay(m.apikey, charge.id, { payer_document: '52998224725' })).body.outcome).toBe('paid');
  return { ...m, paymentId: rawId(charge.id) };
}

const refund = (apikey: string, paymentId: string, body: Record<string, unknown>, headers = {}) =>
  api(`/v1/payments/${paymentId}/refund`, { apikey, body, headers });
const refunds = async (apikey: string, paymentId: string) =>
  (await api(`/v1/payments/${paymentId}/refunds`, { apikey })).body.data as Record<string, any>[];

describe('concurrent refunds of one payment', () => {
  it('never refund more than the amount: 50 partial refunds of 300 on 10 000 → exactly 33 accepted', async () => {
    const m = await paidPayment(10_000);
    const before = (await balance(m.apikey)).available;

    const replies = await Promise.all(
      Array.from({ length: 50 }, () =>
        refund(m.apikey, m.paymentId, { idempotencyKey: randomUUID(), amount: 300 }),
      ),
    );

    const accepted = replies.filter((r) => r.status === 201);
    for (const r of replies.filter((r) => r.status !== 201))
      expectError(r, 400, 'invalid_request_error', 'refund_exceeds_remaining');
    expect(accepted).toHaveLength(33);
    expect((await balance(m.apikey)).available).toBe(before - 33 * 300);
    const listed = await refunds(m.apikey, m.paymentId);
    expect(listed).toHaveLength(33);
    expect(listed.reduce((sum, r) => sum + r.amount, 0)).toBe(9900);
    // The last 100 is still refundable, and nothing more.
    expect((await refund(m.apikey, m.paymentId, { idempotencyKey: randomUUID() })).body.amount).toBe(100);
    expectError(
      await refund(m.apikey, m.paymentId, { idempotencyKey: randomUUID(), amount: 1 }),
      400,
      'invalid_request_error',
      'refund_exceeds_remaining',
    );
  });

  it('create one refund for 20 concurrent requests with the same key', async () => {
    const m = await paidPayment(5000);
    const body = { idempotencyKey: randomUUID(), amount: 1200 };

    const replies = await Promise.all(Array.from({ length: 20 }, () => refund(m.apikey, m.paymentId, body)));

    expect(replies.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect(new Set(replies.map((r) => r.body.id)).size).toBe(1);
    expect(await refunds(m.apikey, m.paymentId)).toHaveLength(1);
  });
});

const shardsOf = (accountId: string) => readWalletShards({ accountId, mode: 'test' }, 'BRL');

/** `n` results of `task`, one after another. */
async function seq<T>(n: number, task: () => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let i = 0; i < n; i++) results.push(await task());
  return results;
}

describe('refunds over a sharded balance', () => {
  /** Two paid charges whose money sits on two different wallet shards (a charge records its shard). */
  async function paidOnTwoShards(apikey: string, accountId: string, amounts: [number, number]) {
    const shardOf = async (charge: { id: string }) =>
      (await storedCharge(accountId, rawId(charge.id)))?.walletShard;
    const first = await newCharge(apikey, { amount: amounts[0] });
    let second = await newCharge(apikey, { amount: amounts[1] });
    while ((await shardOf(second)) === (await shardOf(first)))
      second = await newCharge(apikey, { amount: amounts[1] });
    for (const charge of [first, second])
      expect((await pay(apikey, charge.id, { payer_document: '52998224725' })).body.outcome).toBe('paid');
    return [first, second] as const;
  }

  it('takes a refund no single shard covers from several shards, and refuses only what the sum cannot cover', async () => {
    const m = await merchant({ settings: { walletShards: 4 } });
    const [big, small] = await paidOnTwoShards(m.apikey, m.accountId, [10_000, 1000]);
    const before = await shardsOf(m.accountId);
    // 9 800 and 980 net: no shard holds 10 000, together they do.
    expect(before.every((s) => s.available < 10_000)).toBe(true);
    expect(before.reduce((sum, s) => sum + s.available, 0)).toBe(10_780);

    const refunded = await refund(m.apikey, rawId(big.id), { idempotencyKey: randomUUID() });

    expect(refunded.status).toBe(201);
    expect(refunded.body.amount).toBe(10_000);
    expect((await balance(m.apikey)).available).toBe(780);
    const after = await shardsOf(m.accountId);
    expect(after.every((s) => s.available >= 0)).toBe(true);
    expect(after.reduce((sum, s) => sum + s.available, 0)).toBe(780);
    // The sum no longer covers a full refund of the small payment: refused, nothing moved.
    expectError(
      await refund(m.apikey, rawId(small.id), { idempotencyKey: randomUUID() }),
      400,
      'invalid_request_error',
      'insufficient_balance',
    );
    expect((await balance(m.apikey)).available).toBe(780);
  });

  it('never spends what a shard taken below zero by a MED hold owes', async () => {
    const m = await merchant({ settings: { walletShards: 4 } });
    const [disputed, kept] = await paidOnTwoShards(m.apikey, m.accountId, [10_000, 10_000]);
    // The hold takes 10 000 from the disputed charge's shard, which held 9 800: −200 there.
    expect((await openMed(m.apikey, disputed.id)).status).toBe(201);
    expect((await balance(m.apikey)).available).toBe(9600);
    expect((await shardsOf(m.accountId)).some((s) => s.available === -200)).toBe(true);

    // The other shard alone holds 9 800, but the merchant has 9 600.
    expectError(
      await refund(m.apikey, rawId(kept.id), { idempotencyKey: randomUUID(), amount: 9700 }),
      400,
      'invalid_request_error',
      'insufficient_balance',
    );
    const all = await refund(m.apikey, rawId(kept.id), { idempotencyKey: randomUUID(), amount: 9600 });

    expect(all.status).toBe(201);
    expect((await balance(m.apikey)).available).toBe(0);
    expect((await shardsOf(m.accountId)).every((s) => s.available === 0)).toBe(true);
  });

  it('accepts exactly what the balance covers when refunds race at the exact total: 50 of 1 000 on 49 000 → 49', async () => {
    const m = await merchant({ settings: { walletShards: 4 } });
    const payments: string[] = [];
    for (let n = 0; n < 5; n++) {
      const charge = await newCharge(m.apikey, { amount: 10_000 });
      expect((await pay(m.apikey, charge.id, { payer_document: '52998224725' })).body.outcome).toBe('paid');
      payments.push(rawId(charge.id));
    }
    // 5 × 9 800 net, spread over the shards as the settlements fell.
    expect((await balance(m.apikey)).available).toBe(49_000);

    // Ten per payment: each payment's own limit (10 000) allows all ten, the balance 49.
    const replies = await Promise.all(
      payments.flatMap((paymentId) =>
        Array.from({ length: 10 }, () =>
          refund(m.apikey, paymentId, { idempotencyKey: randomUUID(), amount: 1000 }),
        ),
      ),
    );

    const refused = replies.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(1);
    for (const r of refused) expectError(r, 400, 'invalid_request_error', 'insufficient_balance');
    expect((await balance(m.apikey)).available).toBe(0);
    expect((await shardsOf(m.accountId)).every((s) => s.available === 0)).toBe(true);
    const listed = await Promise.all(payments.map((id) => refunds(m.apikey, id)));
    expect(listed.flat()).toHaveLength(49);
  });
});

describe('many refunds of one merchant over many shards', () => {
  it('accepts every one the balance covers, never a 500: 65 refunds racing at exactly the total over 64 shards', async () => {
    const m = await merchant({ settings: { walletShards: 64 } });
    const paid = async (amount: number) => {
      const charge = await newCharge(m.apikey, { amount });
      expect((await pay(m.apikey, charge.id, { payer_document: '52998224725' })).body.outcome).toBe('paid');
      return rawId(charge.id);
    };
    const payments = (
      await Promise.all(
        Array.from({ length: 8 }, async () => [await paid(10_000), ...(await seq(7, () => paid(10_000)))]),
      )
    ).flat();
    const extra = await paid(20_000);
    // 64 × 9 800 + 19 600 net, each settlement on its charge's shard: no shard holds 10 000
    // unless two charges fell on it, so most refunds take from two shards or more.
    expect((await balance(m.apikey)).available).toBe(646_800);

    // As a merchant's client does (the SDK included): a 429 is sent again with the same key
    // after its Retry-After; anything else is final.
    const requests = [
      ...payments.map((id) => ({ id, body: { idempotencyKey: randomUUID() } })),
      { id: extra, body: { idempotencyKey: randomUUID(), amount: 6800 } },
    ];
    const statuses = await Promise.all(
      requests.map(async ({ id, body }) => {
        const seen: number[] = [];
        // At most 4 sends: a 429 wrote nothing, so the balance still covers the next one.
        while (seen.length < 4) {
          const reply = await refund(m.apikey, id, body);
          seen.push(reply.status);
          if (reply.status !== 429) return seen;
          expectError(reply, 429, 'rate_limit_error', 'lock_timeout');
          await sleep(Number(reply.headers.get('retry-after')) * 1000);
        }
        return seen;
      }),
    );

    expect(statuses.map((seen) => seen.at(-1))).toEqual(Array(65).fill(201));
    expect((await balance(m.apikey)).available).toBe(0);
    expect((await shardsOf(m.accountId)).every((s) => s.available === 0)).toBe(true);
  });

  it('answers 429 lock_timeout, having written nothing, when it loses every race it may try; the same key then refunds', async () => {
    const m = await paidPayment(6000);
    const before = (await balance(m.apikey)).available;
    const body = { idempotencyKey: randomUUID(), amount: 2500 };

    const contended = await refund(m.apikey, m.paymentId, body, { 'x-fault-inject': 'refund-contended' });

    expectError(contended, 429, 'rate_limit_error', 'lock_timeout');
    expect(Number(contended.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refunds(m.apikey, m.paymentId)).toEqual([]);
    expect((await balance(m.apikey)).available).toBe(before);

    const retried = await refund(m.apikey, m.paymentId, body);

    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect((await balance(m.apikey)).available).toBe(before - 2500);
  });
});

describe('a refund racing the sandbox’s fail', () => {
  it('is decided once: fail and confirm race, one wins, the money follows the winner (10 rounds or more)', async () => {
    const m = await paidPayment(20_000);
    // With the acquirer unreachable every refund stays PENDING (the scheduler keeps asking in
    // vain), so the two sandbox routes race each other and nothing else.
    await api('/v1/sandbox/acquirer', { apikey: m.apikey, body: { status: 'down' } });
    const wins = { fail: 0, confirm: 0 };
    // At least 10 rounds, and on until each side has won one (at most 30).
    for (let round = 0; round < 30 && (round < 10 || wins.fail === 0 || wins.confirm === 0); round++) {
      const before = (await balance(m.apikey)).available;
      const created = await refund(m.apikey, m.paymentId, { idempotencyKey: randomUUID(), amount: 1000 });
      expect(created.body.status).toBe('PENDING');
      const id = created.body.id;

      // Sent in turn first, so that each side wins some rounds.
      const send = (step: 'fail' | 'confirm') =>
        api(`/v1/sandbox/refunds/${id}/${step}`, { apikey: m.apikey, method: 'POST' });
      const [failed, confirmed] =
        round % 2 === 0
          ? await Promise.all([send('fail'), send('confirm')])
          : await Promise.all([send('confirm'), send('fail')]).then(([c, f]) => [f, c] as const);
      wins[failed.status === 200 ? 'fail' : 'confirm']++;

      const winners = [failed, confirmed].filter((r) => r.status === 200);
      expect(winners).toHaveLength(1);
      const loser = failed.status === 200 ? confirmed : failed;
      expectError(loser, 400, 'invalid_request_error', 'refund_final');
      const final = (await refunds(m.apikey, m.paymentId)).find((r) => r.id === id);
      expect(final?.status).toBe(failed.status === 200 ? 'FAILED' : 'REFUNDED');
      expect((await balance(m.apikey)).available).toBe(failed.status === 200 ? before : before - 1000);
    }
    expect(wins.fail).toBeGreaterThan(0);
    expect(wins.confirm).toBeGreaterThan(0);
  });
});

describe('concurrent confirmations of one payment’s refunds', () => {
  it('confirms 30 refunds of one payment at once: every one 200, and the last makes it REFUNDED', async () => {
    const m = await paidPayment(6_000);
    // The acquirer unreachable: the refunds stay PENDING until the sandbox confirms them.
    await api('/v1/sandbox/acquirer', { apikey: m.apikey, body: { status: 'down' } });
    const created = await Promise.all(
      Array.from({ length: 30 }, () =>
        refund(m.apikey, m.paymentId, { idempotencyKey: randomUUID(), amount: 200 }),
      ),
    );
    expect(created.map((r) => r.status)).toEqual(Array(30).fill(201));
    const before = await balance(m.apikey);

    const confirmed = await Promise.all(
      created.map((r) =>
        api(`/v1/sandbox/refunds/${r.body.id}/confirm`, { apikey: m.apikey, method: 'POST' }),
      ),
    );

    expect(confirmed.map((r) => r.status)).toEqual(Array(30).fill(200));
    expect((await refunds(m.apikey, m.paymentId)).map((r) => r.status)).toEqual(Array(30).fill('REFUNDED'));
    expect((await api(`/v1/payments/${m.paymentId}`, { apikey: m.apikey })).body.status).toBe('REFUNDED');
    expect(await storedCharge(m.accountId, m.paymentId)).toMatchObject({
      refundedAmount: 6_000,
      refundedSettled: 6_000,
    });
    // The reserves were taken when the refunds were made: confirming moves no available money.
    expect((await balance(m.apikey)).available).toBe(before.available);
  });
});

describe('a refund confirmed while another writer holds an older read of the charge', () => {
  it('refuses that writer’s whole-charge put, which would undo the confirmation', async () => {
    // The interleaving of a MED step (or any transition) that read the charge just before a
    // refund's confirmation committed, made deterministic: read, confirm, then put the read.
    const m = await paidPayment(10_000);
    const scope = { accountId: m.accountId, mode: 'test' as const };
    await api('/v1/sandbox/acquirer', { apikey: m.apikey, body: { status: 'down' } });
    const created = await refund(m.apikey, m.paymentId, { idempotencyKey: randomUUID(), amount: 3000 });
    const stale = await getCharge(scope, m.paymentId);
    expect(stale).toMatchObject({ refundedAmount: 3000 });
    const confirmed = await api(`/v1/sandbox/refunds/${created.body.id}/confirm`, {
      apikey: m.apikey,
      method: 'POST',
    });
    expect(confirmed.body.status).toBe('REFUNDED');
    await api('/v1/sandbox/acquirer', { apikey: m.apikey, body: { status: 'up' } });

    const put = await transact({
      charge: replaceChargeItem({ ...(stale as ChargeRecord), updatedAt: new Date().toISOString() }, [
        'PAID',
      ]),
    });

    expect(put).toMatchObject({ committed: false, failed: ['charge'] });
    expect(await storedCharge(m.accountId, m.paymentId)).toMatchObject({
      refundedAmount: 3000,
      refundedSettled: 3000,
    });
  });
});

describe('a refund racing a cancel (and the Pix that settles the payment)', () => {
  it('never both cancels and refunds a payment: a cancel racing the Pix, a refund sent as the Pix is answered (10 rounds or more)', async () => {
    const m = await merchant();
    const funding = await newCharge(m.apikey, { amount: 100_000 });
    expect((await pay(m.apikey, funding.id)).body.outcome).toBe('paid');
    const outcomes = { cancelWon: 0, pixWon: 0 };
    // At least 10 rounds, and on until each order has happened (at most 30).
    for (
      let round = 0;
      round < 30 && (round < 10 || outcomes.cancelWon === 0 || outcomes.pixWon === 0);
      round++
    ) {
      const charge = await newCharge(m.apikey, { amount: 2000 });
      const paymentId = rawId(charge.id);
      const paying = pay(m.apikey, charge.id, { payer_document: '52998224725' });
      const [paid, cancelled, refunded] = await Promise.all([
        paying,
        api(`/v1/payments/${paymentId}/cancel`, { apikey: m.apikey, method: 'POST' }),
        // Once the Pix is answered (the cancel may still be in flight): a settled payment is refunded.
        paying.then(() => refund(m.apikey, paymentId, { idempotencyKey: randomUUID() })),
      ]);

      const status = (await api(`/v1/payments/${paymentId}`, { apikey: m.apikey })).body.status;
      const merchantRefunds = (await refunds(m.apikey, paymentId)).filter((r) => !r.automatic);
      if (cancelled.status === 200) {
        outcomes.cancelWon++;
        // The cancel won: the Pix went back, and nothing could be refunded.
        expect(status).toBe('CANCELLED');
        expect(paid.body.outcome).toBe('returned');
        expectError(refunded, 400, 'invalid_request_error', 'payment_not_refundable');
        expect(merchantRefunds).toEqual([]);
      } else {
        outcomes.pixWon++;
        // The Pix won: the cancel is refused, and the refund went through.
        expectError(cancelled, 400, 'invalid_request_error', 'payment_not_cancellable');
        expect(paid.body.outcome).toBe('paid');
        expect(refunded.status).toBe(201);
        expect(merchantRefunds.map((r) => r.id)).toEqual([refunded.body.id]);
      }
    }
    // Both orders happened, so each branch above was checked at least once.
    expect(outcomes.cancelWon).toBeGreaterThan(0);
    expect(outcomes.pixWon).toBeGreaterThan(0);
  });
});

describe('a failure at each step of a refund', () => {
  it.each(['refund-after-write', 'refund-after-provider'])(
    'after %s leaves a whole refund, and a retry with the same key finishes it',
    async (point) => {
      const m = await paidPayment(6000);
      const before = (await balance(m.apikey)).available;
      const body = { idempotencyKey: randomUUID(), amount: 2500 };

      const broken = await refund(m.apikey, m.paymentId, body, { 'x-fault-inject': point });

      expectError(broken, 500, 'api_error', 'injected_fault');
      // Committed whole: the refund, its reserve, its idempotency record; nothing twice.
      const [stored] = await refunds(m.apikey, m.paymentId);
      expect(stored).toMatchObject({ amount: 2500 });
      expect((await balance(m.apikey)).available).toBe(before - 2500);

      const retried = await refund(m.apikey, m.paymentId, body);

      expect(retried.status).toBe(201);
      expect(retried.headers.get('idempotent-replayed')).toBe('true');
      expect(retried.body.id).toBe(stored?.id);
      await eventually(async () => {
        const list = await refunds(m.apikey, m.paymentId);
        expect(list.map((r) => r.status)).toEqual(['REFUNDED']);
      });
      expect((await balance(m.apikey)).available).toBe(before - 2500);
    },
  );
});
