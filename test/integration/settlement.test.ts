import { setTimeout as sleep } from 'node:timers/promises';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { computeFees, DEFAULT_SETTINGS } from '../../shared/domain/account-settings.ts';
import { SCOPE_PARTITIONS } from '../../shared/domain/scope-partitions.ts';
import { db, tableName } from '../../shared/store/client.ts';
import { dueIndex, journalKey, PREFIX, scopePk, walletKey } from '../../shared/store/keys.ts';
import { listRefunds } from '../../shared/store/refunds.ts';
import { newKey } from '../helpers/accounts.ts';
import {
  balance,
  expire,
  getCharge,
  merchant,
  newCharge,
  pay,
  rawId,
  storedCharge,
  storedEvents,
} from '../helpers/charges.ts';
import { eventually } from '../helpers/eventually.ts';
import { api, expectError } from '../helpers/http.ts';
import { ledgerDiscrepancies } from '../helpers/ledger-invariant.ts';
import { requestLogRecord } from '../helpers/runtime-log.ts';
import { scopeItems } from '../helpers/scope-items.ts';

const E2E = /^E\d{8}\d{12}[a-zA-Z0-9]{11}$/;
const lockedCharge = (apikey: string) =>
  newCharge(apikey, { amount: 2000, customer: { name: 'Maria' }, expected_payer_tax_id: '52998224725' });

/** The charge's refunds: a returned Pix is an automatic devolution among them. */
const devolutions = (accountId: string, chargeId: string) =>
  listRefunds({ accountId, mode: 'test' }, rawId(chargeId));

describe('paying a charge (sandbox)', () => {
  it('marks it paid with an end-to-end id, credits the net amount, and emits charge.paid and payment.completed', async () => {
    const m = await merchant();
    const charge = await newCharge(m.apikey, { amount: 10_000 });
    const reply = await pay(m.apikey, charge.id, { payer_document: '111.444.777-35', payer_name: 'Joao' });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ object: 'sandbox_payment', outcome: 'paid' });
    expect(reply.body.end_to_end_id).toMatch(E2E);
    expect(reply.body.charge.status).toBe('paid');
    expect(reply.body.charge.settlement).toEqual({ end_to_end_id: reply.body.end_to_end_id });
    expect(JSON.stringify(reply.body.charge)).not.toContain('11144477735');

    const fees = computeFees(10_000, DEFAULT_SETTINGS.feePlan);
    expect(fees.netAmount).toBe(10_000 - fees.providerFee - fees.platformFee);
    expect(await balance(m.apikey)).toMatchObject({
      available: fees.netAmount,
      pending: 0,
      total: fees.netAmount,
    });

    const events = await storedEvents(m.accountId, rawId(charge.id));
    const paid = events.find((e) => e.eventType === 'charge.paid');
    expect(paid?.payload.data.object).toEqual((await getCharge(m.apikey, charge.id)).body);
    const completed = events.find((e) => e.eventType === 'payment.completed');
    expect(completed?.payload.data).toMatchObject({
      transactionId: rawId(charge.id),
      amount: 10_000,
      status: 'PAID',
      previousStatus: 'WAITING_PAYMENT',
      paidWith: 'PIX',
      providerFee: fees.providerFee,
      platformFee: fees.platformFee,
      netAmount: fees.netAmount,
    });
  });

  it('returns a second payment of a paid charge without crediting it', async () => {
    const m = await merchant();
    const charge = await newCharge(m.apikey);
    await pay(m.apikey, charge.id);
    const before = await balance(m.apikey);
    const second = await pay(m.apikey, charge.id);
    expect(second.body).toMatchObject({ outcome: 'returned', return_reason: 'not_payable' });
    expect(await balance(m.apikey)).toEqual(before);
    expect(await devolutions(m.accountId, charge.id)).toHaveLength(1);
  });

  it('keeps an underpaid charge pending, returns the money, and accepts the full payment later', async () => {
    const m = await merchant();
    const charge = await newCharge(m.apikey, { amount: 5000 });
    const partial = await pay(m.apikey, charge.id, { amount: 4999 });
    expect(partial.body).toMatchObject({ outcome: 'returned', return_reason: 'underpaid' });
    expect(partial.body.charge.status).toBe('pending');
    expect((await balance(m.apikey)).available).toBe(0);
    expect((await devolutions(m.accountId, charge.id))[0]).toMatchObject({
      amount: 4999,
      reason: 'underpaid',
      endToEndId: partial.body.end_to_end_id,
    });
    expect((await pay(m.apikey, charge.id)).body.outcome).toBe('paid');
  });

  it('returns an overpayment (a dynamic Pix fixes the amount) and keeps the charge pending', async () => {
    const m = await merchant();
    const charge = await newCharge(m.apikey, { amount: 1000 });
    const over = await pay(m.apikey, charge.id, { amount: 1001 });
    expect(over.body).toMatchObject({ outcome: 'returned', return_reason: 'overpaid' });
    expect(over.body.charge.status).toBe('pending');
    expect((await balance(m.apikey)).available).toBe(0);
  });

  it('returns a payment that arrives after expiry and never credits it', async () => {
    const m = await merchant();
    const charge = await newCharge(m.apikey);
    await expire(m.apikey, charge.id);
    const late = await pay(m.apikey, charge.id);
    expect(late.body).toMatchObject({ outcome: 'returned', return_reason: 'expired' });
    expect(late.body.charge.status).toBe('expired');
    expect((await balance(m.apikey)).available).toBe(0);
    // Visible as an automatic devolution among the payment's refunds.
    const refunds = await api(`/v1/payments/${rawId(charge.id)}/refunds`, { apikey: m.apikey });
    expect(refunds.body.data).toEqual([
      expect.objectContaining({
        strategy: 'devolution',
        automatic: true,
        reason: 'expired',
        amount: charge.amount,
      }),
    ]);
  });
});

describe('payer lock', () => {
  it('credits a payment from the expected payer', async () => {
    const m = await merchant();
    const charge = await lockedCharge(m.apikey);
    const reply = await pay(m.apikey, charge.id, { payer_document: '529.982.247-25' });
    expect(reply.body.outcome).toBe('paid');
    expect((await balance(m.apikey)).available).toBeGreaterThan(0);
  });

  it('refunds a payment from another payer by devolution of its end-to-end id, never crediting it', async () => {
    const m = await merchant();
    const charge = await lockedCharge(m.apikey);
    const reply = await pay(m.apikey, charge.id, { payer_document: '111.444.777-35' });
    expect(reply.body).toMatchObject({ outcome: 'refunded', return_reason: 'payer_mismatch' });
    expect(reply.body.charge.status).toBe('refunded');
    expect(await balance(m.apikey)).toMatchObject({ available: 0, pending: 0 });
    expect(await devolutions(m.accountId, charge.id)).toEqual([
      expect.objectContaining({
        endToEndId: reply.body.end_to_end_id,
        amount: 2000,
        reason: 'payer_mismatch',
      }),
    ]);
    const types = (await storedEvents(m.accountId, rawId(charge.id))).map((e) => e.eventType);
    expect(types).toContain('payment.refunded');
    expect(types).not.toContain('charge.paid');
  });

  it('holds a payment whose payer document the bank did not report: processing, never credited', async () => {
    const m = await merchant();
    const charge = await lockedCharge(m.apikey);
    const reply = await pay(m.apikey, charge.id);
    expect(reply.body).toMatchObject({ outcome: 'held_for_review' });
    expect((await getCharge(m.apikey, charge.id)).body.status).toBe('processing');
    expect(await balance(m.apikey)).toMatchObject({ available: 0, pending: 0 });
  });
});

describe('races', () => {
  it('a payment racing an expiry ends in exactly one outcome, and the ledger agrees', async () => {
    const m = await merchant();
    const outcomes = { paid: 0, expired: 0 };
    // At least 8 rounds, and on until each side has won one (at most 40).
    for (let i = 0; i < 40 && (i < 8 || outcomes.paid === 0 || outcomes.expired === 0); i++) {
      const charge = await newCharge(m.apikey, { amount: 1000 + i });
      // Sent in turn first, so that each side wins some rounds; past 8 rounds, a side that has
      // not won yet gets a head start that grows by 2 ms a round (both still in flight at once:
      // a request takes longer than that here).
      const behind =
        i < 8 ? undefined : outcomes.paid === 0 ? 'pay' : outcomes.expired === 0 ? 'expire' : undefined;
      const headStart = behind === undefined ? 0 : Math.min(30, 2 * (i - 7));
      const payFirst = behind === undefined ? i % 2 === 0 : behind === 'pay';
      const second = async <T>(send: () => Promise<T>): Promise<T> => {
        if (headStart > 0) await sleep(headStart);
        return send();
      };
      const [paid, expired] = payFirst
        ? await Promise.all([pay(m.apikey, charge.id), second(() => expire(m.apikey, charge.id))])
        : await Promise.all([expire(m.apikey, charge.id), second(() => pay(m.apikey, charge.id))]).then(
            ([e, p]) => [p, e] as const,
          );
      const stored = await storedCharge(m.accountId, rawId(charge.id));
      outcomes[paid.body.outcome === 'paid' ? 'paid' : 'expired']++;
      if (paid.body.outcome === 'paid') {
        expect(stored?.status).toBe('PAID');
        expectError(expired, 400, 'invalid_request_error', 'invalid_request');
      } else {
        expect(paid.body).toMatchObject({ outcome: 'returned', return_reason: 'expired' });
        expect(stored?.status).toBe('EXPIRED');
        expect(expired.status).toBe(200);
      }
    }
    // Both orders happened, so each branch above was checked at least once.
    expect(outcomes.paid).toBeGreaterThan(0);
    expect(outcomes.expired).toBeGreaterThan(0);
    expect(await ledgerDiscrepancies()).toEqual([]);
  });

  it('a payment that loses the race to an expiry is returned as having arrived after it, never before', async () => {
    const m = await merchant();
    let returned = 0;
    // The pay sent first, the expire 0–4 ms later: the pay's Pix is stamped first, and in some
    // rounds the expiry commits before it. At least 60 rounds, on until 5 were returned.
    for (let i = 0; i < 150 && (i < 60 || returned < 5); i++) {
      const charge = await newCharge(m.apikey, { amount: 1000 + i });
      const [paid] = await Promise.all([
        pay(m.apikey, charge.id),
        sleep(i % 5).then(() => expire(m.apikey, charge.id)),
      ]);
      const stored = await storedCharge(m.accountId, rawId(charge.id));
      if (paid.body.outcome === 'paid') {
        expect(Date.parse(String(stored?.paidAt))).toBeLessThan(Date.parse(String(stored?.expiresAt)));
        continue;
      }
      returned++;
      expect(paid.body).toMatchObject({ outcome: 'returned', return_reason: 'expired' });
      expect(stored?.status).toBe('EXPIRED');
      // Returned as expired: its Pix arrived at or after the charge's window closed.
      const [devolution] = await devolutions(m.accountId, charge.id);
      expect(Date.parse(String(devolution?.createdAt))).toBeGreaterThanOrEqual(
        Date.parse(String(stored?.expiresAt)),
      );
    }
    expect(returned).toBeGreaterThan(0);
    expect(await ledgerDiscrepancies()).toEqual([]);
  });

  it('concurrent payments of one charge credit it once', async () => {
    const m = await merchant();
    const charge = await newCharge(m.apikey, { amount: 3000 });
    const replies = await Promise.all(Array.from({ length: 6 }, () => pay(m.apikey, charge.id)));
    expect(replies.filter((r) => r.body.outcome === 'paid')).toHaveLength(1);
    expect((await balance(m.apikey)).available).toBe(computeFees(3000, DEFAULT_SETTINGS.feePlan).netAmount);
  });
});

describe('settlement hold', () => {
  it('credits pending with the next release, and the scheduler releases it to available', async () => {
    const m = await merchant({ settings: { settlementHoldDays: 2 } });
    const charge = await newCharge(m.apikey, { amount: 8000 });
    await pay(m.apikey, charge.id);
    const { netAmount } = computeFees(8000, DEFAULT_SETTINGS.feePlan);
    const held = await balance(m.apikey);
    expect(held).toMatchObject({
      available: 0,
      pending: netAmount,
      total: netAmount,
      next_release_amount: netAmount,
    });
    expect(Date.parse(held.next_release_at) - Date.now()).toBeGreaterThan(47 * 3600_000);

    // Time travel: the tranche falls due now (its due entry's sort key moves into the past).
    const scope = { accountId: m.accountId, mode: 'test' } as const;
    const [tranche = {}] = await scopeItems(scope, PREFIX.tranche);
    const past = new Date(Date.now() - 1000).toISOString();
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { pk: tranche.pk, sk: tranche.sk },
        UpdateExpression: 'SET gsi2sk = :due',
        ExpressionAttributeValues: { ':due': dueIndex('RELEASE', past, scope, rawId(charge.id), 0).gsi2sk },
      }),
    );
    await eventually(async () => expect((await balance(m.apikey)).pending).toBe(0), {
      timeoutMs: 10_000,
      intervalMs: 200,
      message: 'the scheduler releases the tranche',
    });
    expect(await balance(m.apikey)).toMatchObject({
      available: netAmount,
      pending: 0,
      next_release_at: null,
      next_release_amount: null,
    });
  });

  it('reads the tranches of every scope partition only while money is pending', async () => {
    const m = await merchant({ settings: { settlementHoldDays: 2 } });
    const callsOfBalance = async () => {
      const reply = await api('/v1/wallets/balance', { apikey: m.apikey });
      return (await requestLogRecord(String(reply.headers.get('x-request-id')))).dynamodbCalls as number;
    };
    await callsOfBalance(); // the account's first read of this process (cached after it)
    const nothingHeld = await callsOfBalance();
    await pay(m.apikey, (await newCharge(m.apikey, { amount: 5000 })).id);
    const held = await callsOfBalance();
    // Auth and the wallet shards either way; the tranches' query per partition only when held.
    expect(held - nothingHeld).toBe(SCOPE_PARTITIONS);
    expect(nothingHeld).toBeLessThanOrEqual(5);
  });
});

describe('sandbox routes', () => {
  it('are 404 for live keys', async () => {
    const m = await merchant();
    const live = await newKey(m.accountId, 'live');
    expectError(
      await api('/v1/sandbox/charges/ch_000000000000000000000000/pay', { apikey: live, body: {} }),
      404,
      'not_found_error',
      'not_found',
    );
    expectError(
      await api('/v1/sandbox/acquirer', { apikey: live, body: { status: 'down' } }),
      404,
      'not_found_error',
      'not_found',
    );
  });

  it('validate their input and answer 404 for unknown charges', async () => {
    const m = await merchant();
    const charge = await newCharge(m.apikey, { amount: 1000 });
    for (const [body, param] of [
      [{ payer_document: '123' }, 'payer_document'],
      [{ amount: 0 }, 'amount'],
      // Past the Pix maximum: a 400, never a number the store cannot write (it was a 500).
      [{ amount: 1e308 }, 'amount'],
      [{ amount: 2 ** 53 }, 'amount'],
      [{ surprise: true }, 'surprise'],
    ] as const) {
      const reply = await pay(m.apikey, charge.id, body);
      expectError(reply, 400, 'invalid_request_error', 'invalid_request');
      expect(reply.body.error.param).toBe(param);
    }
    expectError(await pay(m.apikey, 'ch_000000000000000000000000'), 404, 'not_found_error', 'not_found');
    expectError(await expire(m.apikey, 'nope'), 404, 'not_found_error', 'not_found');
    const bad = await api('/v1/sandbox/acquirer', { apikey: m.apikey, body: { status: 'sideways' } });
    expectError(bad, 400, 'invalid_request_error', 'invalid_request');
    expect(bad.body.error.param).toBe('status');
    await pay(m.apikey, charge.id);
    const notPending = await expire(m.apikey, charge.id);
    expectError(notPending, 400, 'invalid_request_error', 'invalid_request');
    expect(notPending.body.error.param).toBe('id');
  });
});

describe('the ledger check itself', () => {
  const ledgerCheckScope = { accountId: 'acct_ledger_check', mode: 'test' } as const;

  it('reports a wallet that does not match its ledger', async () => {
    const key = walletKey(ledgerCheckScope, 'BRL');
    await db.send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...key, type: 'wallet', currency: 'BRL', available: 1, pending: 0 },
      }),
    );
    try {
      expect(await ledgerDiscrepancies([ledgerCheckScope.accountId])).toEqual([
        `${scopePk(ledgerCheckScope)} BRL: wallet 1/0/0, ledger 0/0/0`,
      ]);
    } finally {
      await db.send(new DeleteCommand({ TableName: tableName(), Key: key }));
    }
  });

  it('reports a wallet whose retained amount does not match its ledger', async () => {
    const key = walletKey(ledgerCheckScope, 'BRL');
    await db.send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...key, type: 'wallet', currency: 'BRL', available: 0, pending: 0, retained: 5 },
      }),
    );
    try {
      expect(await ledgerDiscrepancies([ledgerCheckScope.accountId])).toEqual([
        `${scopePk(ledgerCheckScope)} BRL: wallet 0/0/5, ledger 0/0/0`,
      ]);
    } finally {
      await db.send(new DeleteCommand({ TableName: tableName(), Key: key }));
    }
  });

  it('reports a journal whose entries do not sum to zero', async () => {
    const key = journalKey(ledgerCheckScope, '2026-01-01T00:00:00.000Z', 'jrn_unbalanced');
    await db.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...key,
          type: 'ledger',
          journalId: 'jrn_unbalanced',
          currency: 'BRL',
          entries: [
            { account: 'psp_clearing', amount: 100 },
            { account: 'platform_fees', amount: -99 },
          ],
        },
      }),
    );
    try {
      expect(await ledgerDiscrepancies([ledgerCheckScope.accountId])).toEqual([
        'journal jrn_unbalanced sums to 1',
      ]);
    } finally {
      await db.send(new DeleteCommand({ TableName: tableName(), Key: key }));
    }
  });
});
