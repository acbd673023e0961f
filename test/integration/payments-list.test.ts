/**
 * `GET /v1/payments` (Part 2, "List query") over HTTP as a merchant: paging, filters, every
 * class of sort key, `total` (from the payment counters the outbox keeps from the stream:
 * awaited with `eventually`), every 400 with its `param`, and tenant isolation. A fresh
 * merchant per test, so counts are exact.
 */

import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, tableName } from '../../shared/store/client.ts';
import { chargeKey } from '../../shared/store/keys.ts';
import { newKey } from '../helpers/accounts.ts';
import { expire, merchant, newCharge, newIdempotencyKey, pay, rawId } from '../helpers/charges.ts';
import { eventually } from '../helpers/eventually.ts';
import { type ApiReply, api, expectError } from '../helpers/http.ts';
import { putCharges, seededCharge } from '../helpers/payments.ts';

type Query = Record<string, string | number>;

const list = (apikey: string, query: Query = {}): Promise<ApiReply> => {
  const qs = new URLSearchParams(
    Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]),
  ).toString();
  return api(`/v1/payments${qs ? `?${qs}` : ''}`, { apikey });
};

/** A list that must answer 200. */
async function listed(apikey: string, query: Query = {}) {
  const reply = await list(apikey, query);
  if (reply.status !== 200) throw new Error(`list failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body as { data: any[]; total: number; page: number; limit: number };
}

const ids = (body: { data: { id: string }[] }) => body.data.map((p) => p.id);

/** A payment created through `POST /v1/payments`; its raw id. */
async function newPayment(apikey: string, body: Record<string, unknown> = {}): Promise<any> {
  const reply = await api('/v1/payments', {
    apikey,
    body: { amount: 1000, paymentMethods: ['PIX'], idempotencyKey: newIdempotencyKey(), ...body },
  });
  if (reply.status !== 201) throw new Error(`create failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body;
}

/** `n` payments created one after the other; their ids, oldest first. */
async function payments(apikey: string, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push((await newPayment(apikey, { amount: 1000 + i })).id);
  return out;
}

/** Waits until the counters (the stream) have counted what `query` matches. */
const totalBecomes = (apikey: string, query: Query, total: number) =>
  eventually(async () => expect((await listed(apikey, query)).total).toBe(total), {
    message: `total of ${JSON.stringify(query)} = ${total}`,
  });

describe('GET /v1/payments', () => {
  it('lists newest first, 20 a page, each payment in the full GET shape', async () => {
    const m = await merchant();
    const viaCharges = rawId((await newCharge(m.apikey, { amount: 990 })).id);
    const viaPayments = await payments(m.apikey, 2);
    await totalBecomes(m.apikey, {}, 3);
    const body = await listed(m.apikey);
    expect(body).toMatchObject({ total: 3, page: 1, limit: 20 });
    expect(ids(body)).toEqual([...viaPayments].reverse().concat(viaCharges));
    for (const item of body.data) {
      const one = await api(`/v1/payments/${item.id}`, { apikey: m.apikey });
      expect(item).toEqual(one.body);
    }
  });

  it('pages without gaps or duplicates in both orders', async () => {
    const m = await merchant();
    const created = await payments(m.apikey, 7);
    await totalBecomes(m.apikey, {}, 7);
    for (const sortOrder of ['desc', 'asc'] as const) {
      const seen: string[] = [];
      for (let page = 1; page <= 3; page++) {
        const body = await listed(m.apikey, { limit: 3, page, sortOrder });
        expect(body).toMatchObject({ total: 7, page, limit: 3 });
        seen.push(...ids(body));
      }
      expect(seen).toEqual(sortOrder === 'asc' ? created : [...created].reverse());
      expect((await listed(m.apikey, { limit: 3, page: 4, sortOrder })).data).toEqual([]);
    }
  });

  it('filters by the status each payment shows, with exact totals', async () => {
    const m = await merchant();
    const waiting = (await newPayment(m.apikey)).id;
    const paid = (await newPayment(m.apikey, { amount: 2000 })).id;
    expect((await pay(m.apikey, paid)).status).toBe(200);
    const expired = (await newPayment(m.apikey)).id;
    expect((await expire(m.apikey, expired)).status).toBe(200);
    const refused = (await newPayment(m.apikey, { amount: 1313 })).id; // refused by the sandbox acquirer
    const expected: Record<string, string[]> = {
      WAITING_PAYMENT: [waiting],
      PAID: [paid],
      EXPIRED: [expired],
      REFUSED: [refused],
      REFUNDED: [],
      PENDING: [],
    };
    for (const [status, matching] of Object.entries(expected)) {
      await totalBecomes(m.apikey, { status }, matching.length);
      const body = await listed(m.apikey, { status });
      expect([status, ids(body)]).toEqual([status, matching]);
      for (const item of body.data) expect(item.status).toBe(status);
    }
    await totalBecomes(m.apikey, {}, 4);
  });

  it('shows a payment past its expiry as EXPIRED before the scheduler records it', async () => {
    const m = await merchant();
    const waiting = (await newPayment(m.apikey)).id;
    const overdue = (await newPayment(m.apikey)).id;
    const expired = (await newPayment(m.apikey)).id;
    expect((await expire(m.apikey, expired)).status).toBe(200);
    await totalBecomes(m.apikey, {}, 3);
    await totalBecomes(m.apikey, { status: 'EXPIRED' }, 1);
    // Its window closed a minute ago; its place on the scheduler's queue is still an hour ahead.
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: chargeKey({ accountId: m.accountId, mode: 'test' }, overdue),
        UpdateExpression: 'SET expiresAt = :past',
        ExpressionAttributeValues: { ':past': new Date(Date.now() - 60_000).toISOString() },
      }),
    );
    const expiredList = await listed(m.apikey, { status: 'EXPIRED' });
    expect(ids(expiredList)).toEqual([expired, overdue]);
    expect(expiredList.total).toBe(2);
    expect(expiredList.data.map((p) => p.status)).toEqual(['EXPIRED', 'EXPIRED']);
    expect(ids(await listed(m.apikey, { status: 'EXPIRED', sortOrder: 'asc' }))).toEqual([overdue, expired]);
    expect(ids(await listed(m.apikey, { status: 'EXPIRED', page: 2, limit: 1 }))).toEqual([overdue]);
    const waitingList = await listed(m.apikey, { status: 'WAITING_PAYMENT' });
    expect([ids(waitingList), waitingList.total]).toEqual([[waiting], 1]);
    // In memory too (a sort by another field reads every match).
    expect(ids(await listed(m.apikey, { status: 'EXPIRED', sortBy: 'amount' }))).toEqual([expired, overdue]);
    expect(ids(await listed(m.apikey, { status: 'WAITING_PAYMENT', sortBy: 'amount' }))).toEqual([waiting]);
    const all = await listed(m.apikey);
    expect(all.data.find((p) => p.id === overdue).status).toBe('EXPIRED');
  });

  it('bounds createdAt inclusively on both sides', async () => {
    const m = await merchant();
    const created = [];
    for (let i = 0; i < 4; i++) created.push(await newPayment(m.apikey));
    const [first, second, third, fourth] = created;
    await totalBecomes(m.apikey, {}, 4);
    const window = await listed(m.apikey, { startDate: second.createdAt, endDate: third.createdAt });
    expect([ids(window), window.total]).toEqual([[third.id, second.id], 2]);
    const after = new Date(Date.parse(second.createdAt) + 1).toISOString();
    const before = new Date(Date.parse(third.createdAt) - 1).toISOString();
    expect(ids(await listed(m.apikey, { startDate: after, endDate: third.createdAt }))).toEqual([third.id]);
    expect(ids(await listed(m.apikey, { startDate: second.createdAt, endDate: before }))).toEqual([
      second.id,
    ]);
    expect(ids(await listed(m.apikey, { startDate: third.createdAt }))).toEqual([fourth.id, third.id]);
    expect(ids(await listed(m.apikey, { endDate: second.createdAt }))).toEqual([second.id, first.id]);
    // A date alone is its whole UTC day; with an offset, the instant it names.
    const day = (iso: string) => iso.slice(0, 10);
    const days = { startDate: day(first.createdAt), endDate: day(fourth.createdAt) };
    await totalBecomes(m.apikey, days, 4);
    const offset = second.createdAt.replace('Z', '+00:00');
    expect((await listed(m.apikey, { startDate: offset, endDate: offset })).total).toBe(1);
    const tomorrow = new Date(Date.parse(fourth.createdAt) + 86_400_000).toISOString().slice(0, 10);
    expect(await listed(m.apikey, { startDate: tomorrow })).toMatchObject({ data: [], total: 0 });
  });

  it('counts whole minutes, hours and days from the counters and partial ones from the items', async () => {
    const m = await merchant();
    const scope = { accountId: m.accountId, mode: 'test' as const };
    const start = Date.parse('2026-03-30T22:58:30.000Z');
    // One payment every 7 minutes over three days, crossing a month's end.
    const charges = Array.from({ length: 600 }, (_, n) =>
      seededCharge(scope, start + n * 7 * 60_000 + n, {
        status: 'PAID',
        paidAt: new Date(start).toISOString(),
      }),
    );
    await putCharges(charges);
    await totalBecomes(m.apikey, {}, 600);
    const createdIn = (from: number, to: number) =>
      charges.filter((c) => Date.parse(c.createdAt) >= from && Date.parse(c.createdAt) <= to).length;
    const windows: [string, string][] = [
      ['2026-03-31', '2026-04-01'],
      ['2026-03-30T23:13:31.007Z', '2026-04-02T01:02:03.004Z'],
      ['2026-03-31T10:00:00Z', '2026-03-31T10:59:59.999Z'],
      ['2026-04-01T00:00:00.001Z', '2026-04-01T23:59:59.998Z'],
    ];
    for (const [startDate, endDate] of windows) {
      const from = Date.parse(startDate.length === 10 ? `${startDate}T00:00:00Z` : startDate);
      const to = Date.parse(endDate.length === 10 ? `${endDate}T23:59:59.999Z` : endDate);
      const body = await listed(m.apikey, { startDate, endDate, status: 'PAID', limit: 1 });
      expect([startDate, body.total]).toEqual([startDate, createdIn(from, to)]);
      expect((await listed(m.apikey, { startDate, endDate, limit: 1 })).total).toBe(createdIn(from, to));
    }
  });

  it('sorts by any field: createdAt and id by key order, others in memory, nulls last, ties by creation', async () => {
    const m = await merchant();
    const a = (await newPayment(m.apikey, { amount: 3000, customerName: 'Carla' })).id;
    const b = (await newPayment(m.apikey, { amount: 1000 })).id;
    const c = (await newPayment(m.apikey, { amount: 2000, customerName: 'Ana' })).id;
    const d = (await newPayment(m.apikey, { amount: 1000, customerName: 'Bia' })).id;
    expect((await pay(m.apikey, c)).status).toBe(200);
    const query = (sortBy: string, sortOrder: string) => listed(m.apikey, { sortBy, sortOrder });
    expect(ids(await query('createdAt', 'asc'))).toEqual([a, b, c, d]);
    expect(ids(await query('createdAt', 'desc'))).toEqual([d, c, b, a]);
    expect(ids(await query('id', 'asc'))).toEqual([a, b, c, d]);
    expect(ids(await query('boletoBarcode', 'desc'))).toEqual([d, c, b, a]);
    // Ties (b and d) by creation, in the same order.
    expect(ids(await query('amount', 'asc'))).toEqual([b, d, c, a]);
    expect(ids(await query('amount', 'desc'))).toEqual([a, c, d, b]);
    expect(ids(await query('customerName', 'asc'))).toEqual([c, d, a, b]);
    expect(ids(await query('customerName', 'desc'))).toEqual([a, d, c, b]);
    expect(ids(await query('paidAt', 'desc'))).toEqual([c, d, b, a]);
    expect(ids(await query('status', 'asc'))).toEqual([c, a, b, d]);
    const paged = await listed(m.apikey, { sortBy: 'amount', sortOrder: 'asc', limit: 3, page: 2 });
    expect([ids(paged), paged.total]).toEqual([[a], 4]);
    const paid = await listed(m.apikey, { sortBy: 'amount', status: 'PAID' });
    expect([ids(paid), paid.total]).toEqual([[c], 1]);
  });

  it('refuses an in-memory sort over more than 1000 matches, naming sortBy, and serves it once narrowed', async () => {
    const m = await merchant();
    const scope = { accountId: m.accountId, mode: 'test' as const };
    const start = Date.parse('2026-01-10T00:00:00.000Z');
    await putCharges(
      Array.from({ length: 1001 }, (_, n) =>
        seededCharge(scope, start + n * 60_000, {
          status: n === 500 ? 'REFUNDED' : 'PAID',
          amount: 5000 - n,
          paidAt: new Date(start).toISOString(),
        }),
      ),
    );
    await totalBecomes(m.apikey, {}, 1001);
    const refused = await list(m.apikey, { sortBy: 'amount' });
    expectError(refused, 400, 'invalid_request_error', 'invalid_request');
    expect(refused.body.error.param).toBe('sortBy');
    expect(refused.body.error.message).toMatch(/startDate|status/);
    // Key order has no such bound (only the depth's: page × limit ≤ 1000).
    expect((await listed(m.apikey, { limit: 100, page: 10 })).data).toHaveLength(100);
    const narrowed = await listed(m.apikey, {
      sortBy: 'amount',
      sortOrder: 'asc',
      endDate: '2026-01-10T16:39:00Z',
    });
    expect(narrowed.total).toBe(1000);
    expect(narrowed.data[0].amount).toBe(5000 - 999);
    const refunds = await listed(m.apikey, { sortBy: 'amount', status: 'REFUNDED' });
    expect([refunds.total, refunds.data.map((p) => p.amount)]).toEqual([1, [4500]]);
  });

  it.each([
    ['page', { page: 0 }],
    ['page', { page: 'two' }],
    ['page', { page: 11, limit: 100 }],
    ['page', { page: 51 }],
    ['limit', { limit: 0 }],
    ['limit', { limit: 101 }],
    ['status', { status: 'paid' }],
    ['status', { status: 'SETTLED' }],
    ['sortBy', { sortBy: 'accountId' }],
    ['sortOrder', { sortOrder: 'newest' }],
    ['startDate', { startDate: '2026-02-30' }],
    ['startDate', { startDate: 'yesterday' }],
    ['endDate', { endDate: '2026-05-01T25:00:00Z' }],
    ['offset', { offset: 20 }],
    ['starting_after', { starting_after: 'x' }],
  ])('answers 400 naming %s for %j', async (param, query) => {
    const m = await merchant();
    const reply = await list(m.apikey, query);
    expectError(reply, 400, 'invalid_request_error', 'invalid_request');
    expect(reply.body.error.param).toBe(param);
  });

  it('answers 400 naming no param for startDate after endDate (either may be the wrong one)', async () => {
    const reply = await list((await merchant()).apikey, { startDate: '2026-05-02', endDate: '2026-05-01' });
    expectError(reply, 400, 'invalid_request_error', 'invalid_request');
    expect(reply.body.error.param).toBeUndefined();
    expect(reply.body.error.message).toBe('startDate must not be after endDate.');
  });

  it("never shows another account's payments, nor live ones to a test key", async () => {
    const m = await merchant();
    const other = await merchant();
    const mine = (await newPayment(m.apikey)).id;
    await payments(other.apikey, 2);
    const live = seededCharge({ accountId: m.accountId, mode: 'live' }, Date.now(), { status: 'PAID' });
    await putCharges([live]);
    const liveKey = await newKey(m.accountId, 'live');
    // The live payment counted (a later positive control): the test scope still has only its own.
    await totalBecomes(liveKey, {}, 1);
    expect(ids(await listed(liveKey))).toEqual([live.id]);
    await totalBecomes(other.apikey, {}, 2);
    const body = await listed(m.apikey);
    expect([ids(body), body.total]).toEqual([[mine], 1]);
    const queries: Query[] = [
      { status: 'PAID' },
      { sortBy: 'amount' },
      { status: 'WAITING_PAYMENT', sortBy: 'status' },
    ];
    for (const query of queries)
      expect(ids(await listed(m.apikey, query))).toEqual(query.status === 'PAID' ? [] : [mine]);
  });
});
