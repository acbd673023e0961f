import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { db, tableName } from '../../shared/store/client.ts';
import { chargeKey, dueIndex } from '../../shared/store/keys.ts';
import { newKey } from '../helpers/accounts.ts';
import {
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
import { confirmedRefund } from '../helpers/refunds.ts';

describe('GET /v1/charges/{id}', () => {
  it('accepts the ch_ id and the raw id', async () => {
    const m = await merchant();
    const charge = await newCharge(m.apikey);
    expect((await getCharge(m.apikey, charge.id)).body).toEqual(charge);
    expect((await getCharge(m.apikey, rawId(charge.id))).body).toEqual(charge);
  });

  it('answers 404 for another account’s charge, the other mode, and unknown ids', async () => {
    const m = await merchant();
    const charge = await newCharge(m.apikey);
    const stranger = await merchant();
    expectError(await getCharge(stranger.apikey, charge.id), 404, 'not_found_error', 'not_found');
    expectError(
      await getCharge(await newKey(m.accountId, 'live'), charge.id),
      404,
      'not_found_error',
      'not_found',
    );
    for (const id of ['ch_000000000000000000000000', 'nope', 'ch_', `${charge.id}x`]) {
      expectError(await getCharge(m.apikey, id), 404, 'not_found_error', 'not_found');
    }
  });

  it('shows settlement.end_to_end_id once paid, and keeps it after a refund', async () => {
    const m = await merchant();
    const charge = await newCharge(m.apikey);
    expect(charge.settlement).toEqual({});
    await pay(m.apikey, charge.id);
    const read = await getCharge(m.apikey, charge.id);
    expect(read.body.status).toBe('paid');
    expect(read.body.settlement.end_to_end_id).toMatch(/^E\d{8}\d{12}[a-zA-Z0-9]{11}$/);
    expect(read.body.settlement.end_to_end_id).not.toBe(charge.id);
    // A refund does not take it away: the refund itself names the Pix by it (another paid
    // charge first, so the balance covers it).
    await pay(m.apikey, (await newCharge(m.apikey, { amount: 50_000 })).id);
    const refund = await api(`/v1/payments/${rawId(charge.id)}/refund`, {
      apikey: m.apikey,
      body: { idempotencyKey: `refund-${rawId(charge.id)}`, strategy: 'devolution' },
    });
    await confirmedRefund(m.apikey, rawId(charge.id), refund.body.id);
    const refunded = await getCharge(m.apikey, charge.id);
    expect(refunded.body.status).toBe('refunded');
    expect(refunded.body.settlement).toEqual(read.body.settlement);
    // A Pix returned to a payer the lock refused never settled the charge.
    const locked = await newCharge(m.apikey, {
      customer: { name: 'Maria' },
      expected_payer_tax_id: '52998224725',
    });
    expect((await pay(m.apikey, locked.id, { payer_document: '11144477735' })).body.outcome).toBe('refunded');
    const returned = await getCharge(m.apikey, locked.id);
    expect(returned.body.status).toBe('refunded');
    expect(returned.body.settlement).toEqual({});
  });

  it('never shows pending after expires_at, even before the scheduler records it', async () => {
    const m = await merchant();
    const charge = await newCharge(m.apikey);
    // Move the expiry into the past while keeping the stored status pending and out of the
    // scheduler's queue (no gsi2 attributes): only the read-time rule can say expired.
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: chargeKey({ accountId: m.accountId, mode: 'test' }, rawId(charge.id)),
        UpdateExpression: 'SET expiresAt = :past REMOVE gsi2pk, gsi2sk',
        ExpressionAttributeValues: { ':past': new Date(Date.now() - 1000).toISOString() },
      }),
    );
    expect((await storedCharge(m.accountId, rawId(charge.id)))?.status).toBe('WAITING_PAYMENT');
    expect((await getCharge(m.apikey, charge.id)).body.status).toBe('expired');
    const listed = await api('/v1/charges?status=expired', { apikey: m.apikey });
    expect(listed.body.data.map((c: { id: string }) => c.id)).toEqual([charge.id]);
    expect((await api('/v1/charges?status=pending', { apikey: m.apikey })).body.data).toEqual([]);
  });
});

describe('expiry by the scheduler', () => {
  it('records expired and emits charge.expired, payment.expired, payment.failed and payment.status_changed within moments of expires_at', async () => {
    const m = await merchant();
    const charge = await newCharge(m.apikey);
    const past = new Date(Date.now() - 1000).toISOString();
    const scope = { accountId: m.accountId, mode: 'test' } as const;
    // Time travel: the charge's expiry entry moves into the past (same shard, only the sort key).
    const { gsi2sk: due } = dueIndex('EXPIRY', past, scope, rawId(charge.id), 0);
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: chargeKey(scope, rawId(charge.id)),
        UpdateExpression: 'SET expiresAt = :past, gsi2sk = :due',
        ExpressionAttributeValues: { ':past': past, ':due': due },
      }),
    );
    const expired = await eventually(
      async () => {
        const stored = await storedCharge(m.accountId, rawId(charge.id));
        expect(stored?.status).toBe('EXPIRED');
        return stored;
      },
      { timeoutMs: 10_000, intervalMs: 200, message: 'the scheduler expires the charge' },
    );
    expect(expired?.gsi2pk).toBeUndefined();
    const events = await storedEvents(m.accountId, rawId(charge.id));
    expect(events.map((e) => e.eventType).sort()).toEqual([
      'charge.created',
      'charge.expired',
      'payment.created',
      'payment.expired',
      // Part 2 lists EXPIRED under payment.failed, and status_changed is the catch-all alias.
      'payment.failed',
      'payment.status_changed',
    ]);
    for (const type of ['payment.failed', 'payment.status_changed'])
      expect(events.find((e) => e.eventType === type)?.payload).toEqual({
        event: type,
        data: expect.objectContaining({ status: 'EXPIRED', previousStatus: 'WAITING_PAYMENT' }),
      });
  });
});

describe('GET /v1/charges', () => {
  let m: { accountId: string; apikey: string };
  let created: any[];
  beforeAll(async () => {
    m = await merchant();
    created = [];
    for (let i = 0; i < 12; i++) {
      created.push(
        await newCharge(m.apikey, {
          amount: 100 + i,
          ...(i % 3 === 0 && { customer: { name: 'A', document: '52998224725' } }),
        }),
      );
    }
    await pay(m.apikey, created[1].id);
    await expire(m.apikey, created[2].id);
  });

  it('lists newest first with the list envelope and a default limit of 25', async () => {
    const reply = await api('/v1/charges', { apikey: m.apikey });
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body).sort()).toEqual(['data', 'has_more', 'next_cursor', 'object']);
    expect(reply.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
    expect(reply.body.data.map((c: { id: string }) => c.id)).toEqual(created.map((c) => c.id).reverse());
  });

  it('answers 25 by default when more exist', async () => {
    const busy = await merchant();
    for (let i = 0; i < 26; i++) await newCharge(busy.apikey, { amount: 100 + i });
    const reply = await api('/v1/charges', { apikey: busy.apikey });
    expect(reply.body.data).toHaveLength(25);
    expect(reply.body.has_more).toBe(true);
    // The newest 25: the oldest (amount 100) is the one left for the next page.
    expect(reply.body.data.map((c: { amount: number }) => c.amount)).not.toContain(100);
  });

  it('pages by cursor with has_more and next_cursor', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const reply: any = await api(`/v1/charges?limit=5${cursor ? `&starting_after=${cursor}` : ''}`, {
        apikey: m.apikey,
      });
      seen.push(...reply.body.data.map((c: { id: string }) => c.id));
      expect(reply.body.has_more).toBe(reply.body.next_cursor !== null);
      cursor = reply.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(created.map((c) => c.id).reverse());
  });

  it('filters by status, customer and inclusive creation bounds', async () => {
    const ids = async (query: string) =>
      (await api(`/v1/charges?${query}`, { apikey: m.apikey })).body.data.map((c: { id: string }) => c.id);
    expect(await ids('status=paid')).toEqual([created[1].id]);
    expect(await ids('status=expired')).toEqual([created[2].id]);
    expect(await ids('status=pending')).toHaveLength(10);
    expect(await ids('customer_id=529.982.247-25')).toEqual([
      created[9].id,
      created[6].id,
      created[3].id,
      created[0].id,
    ]);
    const from = created[4].created_at;
    const to = created[7].created_at;
    expect(await ids(`created_after=${from}&created_before=${to}`)).toEqual([
      created[7].id,
      created[6].id,
      created[5].id,
      created[4].id,
    ]);
  });

  it('rejects page/offset, bad limits, cursors, statuses and dates with 400', async () => {
    for (const [query, param] of [
      ['page=2', 'page'],
      ['offset=10', 'offset'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=ten', 'limit'],
      ['starting_after=abc', 'starting_after'],
      ['status=waiting', 'status'],
      ['created_after=yesterday', 'created_after'],
      ['created_after=2026-02-30', 'created_after'],
      ['created_before=2026-11-23T24:00:00Z', 'created_before'],
      // Bounds the wrong way round (DynamoDB refuses such a range: a 500 before): either may be
      // the wrong one, so no `param`.
      ['created_after=2026-11-23T05:00:00Z&created_before=2026-11-23T04:59:59Z', undefined],
      ['created_after=2026-11-23&created_before=2026-11-22', undefined],
    ]) {
      const reply = await api(`/v1/charges?${query}`, { apikey: m.apikey });
      expectError(reply, 400, 'invalid_request_error', 'invalid_request');
      expect(reply.body.error.param).toBe(param);
    }
  });

  it('keeps a stable order with no duplicates or gaps while charges are created concurrently', async () => {
    const fresh = await merchant();
    const before: string[] = [];
    for (let i = 0; i < 15; i++) before.push((await newCharge(fresh.apikey)).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    const inserting = Promise.all(Array.from({ length: 15 }, () => newCharge(fresh.apikey)));
    do {
      const reply: any = await api(`/v1/charges?limit=4${cursor ? `&starting_after=${cursor}` : ''}`, {
        apikey: fresh.apikey,
      });
      seen.push(...reply.body.data.map((c: { id: string }) => c.id));
      cursor = reply.body.next_cursor;
    } while (cursor);
    await inserting;
    expect(new Set(seen).size).toBe(seen.length);
    // Every charge that existed before paging started is seen, in order.
    expect(seen.filter((id) => before.includes(id))).toEqual([...before].reverse());
    const sorted = [...seen].sort().reverse();
    expect(seen).toEqual(sorted);
  });
});
