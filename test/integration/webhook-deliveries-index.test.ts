/**
 * The delivery list and stats read counters and index cells, not the history: totals of every
 * filter combination, newest-first order across merged cells, the offset cap, and counters that
 * stay exact when changes of the same delivery (or of deliveries sharing counters) race.
 * Deliveries are written through the store modules into a real merchant's test scope (no event
 * items: nothing reaches the outbox or the queue), and read through the API.
 */

import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { MerchantScope } from '../../shared/domain/scope.ts';
import type { DeliveryStatus } from '../../shared/domain/webhook-deliveries.ts';
import { countDelta, deliveryStatuses } from '../../shared/domain/webhook-deliveries.ts';
import { countInDeliveries } from '../../shared/services/count-in-deliveries.ts';
import { applyChange } from '../../shared/services/dispatch-delivery.ts';
import { newDelivery } from '../../shared/services/fan-out-event.ts';
import { db, tableName } from '../../shared/store/client.ts';
import { deliveryKey, eventKey } from '../../shared/store/keys.ts';
import {
  changeDelivery,
  createDelivery,
  type Delivery,
  getDelivery,
  putNewDeliveries,
} from '../../shared/store/webhook-deliveries.ts';
import { merchant } from '../helpers/charges.ts';
import { api, expectError } from '../helpers/http.ts';

const EP1 = `we_${'1'.repeat(24)}`;
const EP2 = `we_${'2'.repeat(24)}`;
const TYPES = ['charge.paid', 'charge.created', 'payment.completed'] as const;

interface Seeded {
  delivery: Delivery;
  eventAt: string;
}

const base = Date.parse('2026-11-01T00:00:00.000Z');
let seq = 0;
/** A delivery of a distinct event (its time one millisecond after the previous one). */
function seed(
  scope: MerchantScope,
  target: { endpointId: string } | { url: string },
  type: string,
  status: DeliveryStatus,
) {
  const eventAt = new Date(base + seq * 1000).toISOString();
  const eventId = `evt_${scope.accountId}_${seq++}`;
  const ref = {
    id: eventId,
    sk: eventKey(scope, eventAt, eventId).sk,
    eventType: type,
    accountId: scope.accountId,
    mode: scope.mode,
    createdAt: eventAt,
    family: type.startsWith('payment.') ? ('legacy' as const) : ('canonical' as const),
  };
  return { delivery: { ...newDelivery(ref, target, new Date()), status }, eventAt, eventSk: ref.sk };
}

const list = async (apikey: string, query: string) =>
  (await api(`/v1/webhooks/deliveries?${query}`, { apikey })).body;
const stats = async (apikey: string) => (await api('/v1/webhooks/stats', { apikey })).body;

describe('filters, totals and order over the cells', () => {
  let m: { accountId: string; apikey: string };
  let seeded: (Seeded & { eventSk: string })[];
  beforeAll(async () => {
    m = await merchant();
    const scope: MerchantScope = { accountId: m.accountId, mode: 'test' };
    seeded = [];
    // 60 deliveries over 2 endpoints + the override URL, 3 event types, every status.
    for (let n = 0; n < 60; n++) {
      const target =
        n % 3 === 0
          ? { endpointId: EP1 }
          : n % 3 === 1
            ? { endpointId: EP2 }
            : { url: 'https://o.example/h' };
      seeded.push(
        seed(
          scope,
          target,
          TYPES[n % TYPES.length] as string,
          deliveryStatuses[(n * 7) % 5] as DeliveryStatus,
        ),
      );
    }
    await putNewDeliveries(
      scope,
      seeded.map((s) => ({ delivery: s.delivery, event: { createdAt: s.eventAt, sk: s.eventSk } })),
    );
  });

  const newestFirst = (rows: Seeded[]) =>
    [...rows].sort((a, b) => b.eventAt.localeCompare(a.eventAt)).map((s) => s.delivery.id);

  it('answers every combination of status, eventType and endpointId with its total and its matches, newest first', async () => {
    const statuses = [undefined, ...deliveryStatuses];
    const types = [undefined, ...TYPES];
    const endpoints = [undefined, EP1, EP2];
    for (const status of statuses)
      for (const eventType of types)
        for (const endpointId of endpoints) {
          const matches = seeded.filter(
            (s) =>
              (status === undefined || s.delivery.status === status) &&
              (eventType === undefined || s.delivery.eventType === eventType) &&
              (endpointId === undefined || s.delivery.endpointId === endpointId),
          );
          const query = new URLSearchParams({
            limit: '100',
            ...(status && { status }),
            ...(eventType && { eventType }),
            ...(endpointId && { endpointId }),
          });
          const reply = await list(m.apikey, query.toString());
          expect({ query: query.toString(), total: reply.total }).toEqual({
            query: query.toString(),
            total: matches.length,
          });
          expect(reply.data.map((d: { id: string }) => d.id)).toEqual(newestFirst(matches));
        }
  });

  it('pages with offset and limit over the merged cells without gaps or duplicates', async () => {
    const expected = newestFirst(seeded.filter((s) => s.delivery.eventType === 'charge.paid'));
    const ids: string[] = [];
    for (let offset = 0; offset < expected.length; offset += 3) {
      const page = await list(m.apikey, `eventType=charge.paid&limit=3&offset=${offset}`);
      expect(page).toMatchObject({ total: expected.length, limit: 3, offset });
      ids.push(...page.data.map((d: { id: string }) => d.id));
    }
    expect(ids).toEqual(expected);
    const beyond = await list(m.apikey, `eventType=charge.paid&limit=3&offset=${expected.length}`);
    expect(beyond).toMatchObject({ data: [], total: expected.length });
  });

  it('keeps the record shape (no index or counter attributes)', async () => {
    const [first] = (await list(m.apikey, 'limit=1&status=FAILED')).data;
    expect(Object.keys(first).sort()).toEqual(
      [
        'attempts',
        'createdAt',
        'deliveredAt',
        'endpointId',
        'eventId',
        'eventType',
        'id',
        'lastError',
        'lastResponseBody',
        'lastStatusCode',
        'maxAttempts',
        'nextRetryAt',
        'payload',
        'redriveCount',
        'status',
        'updatedAt',
        ...(first.url === undefined ? [] : ['url']),
      ].sort(),
    );
  });

  it('counts the stats per status', async () => {
    const expected = Object.fromEntries(
      deliveryStatuses.map((s) => [s, seeded.filter((d) => d.delivery.status === s).length]),
    );
    expect(await stats(m.apikey)).toEqual({ total: 60, ...expected });
  });

  it('shows another scope nothing of an endpoint id it does not own', async () => {
    const stranger = await merchant();
    expect(await list(stranger.apikey, `endpointId=${EP1}`)).toEqual({
      data: [],
      total: 0,
      limit: 25,
      offset: 0,
    });
    expect(await list(stranger.apikey, `endpointId=${EP1}&status=DELIVERED`)).toMatchObject({
      data: [],
      total: 0,
    });
  });
});

describe('the offset cap', () => {
  it('takes an offset up to 1000 and answers 400 on param offset beyond', async () => {
    const m = await merchant();
    expect((await api('/v1/webhooks/deliveries?offset=1000', { apikey: m.apikey })).body).toEqual({
      data: [],
      total: 0,
      limit: 25,
      offset: 1000,
    });
    const reply = await api('/v1/webhooks/deliveries?offset=1001', { apikey: m.apikey });
    expectError(reply, 400, 'invalid_request_error', 'invalid_request');
    expect(reply.body.error.param).toBe('offset');
  });
});

describe('counters under races', () => {
  it('counts a delivery created by concurrent stream runs once', async () => {
    const m = await merchant();
    const scope: MerchantScope = { accountId: m.accountId, mode: 'test' };
    const s = seed(scope, { endpointId: EP1 }, 'charge.paid', 'PENDING');
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        createDelivery(
          scope,
          s.delivery,
          { createdAt: s.eventAt, sk: s.eventSk },
          countDelta(undefined, 'PENDING'),
        ),
      ),
    );
    expect(results.every((r) => r.id === s.delivery.id)).toBe(true);
    expect(await stats(m.apikey)).toMatchObject({ total: 1, PENDING: 1 });
    expect((await list(m.apikey, `endpointId=${EP1}&status=PENDING`)).total).toBe(1);
  });

  it('applies exactly one of concurrent changes of the same delivery, and counts only that one', async () => {
    const m = await merchant();
    const scope: MerchantScope = { accountId: m.accountId, mode: 'test' };
    const s = seed(scope, { endpointId: EP1 }, 'charge.paid', 'PENDING');
    await createDelivery(
      scope,
      s.delivery,
      { createdAt: s.eventAt, sk: s.eventSk },
      countDelta(undefined, 'PENDING'),
    );
    const ref = deliveryKey(scope, s.eventAt, s.delivery.id);
    const read = await getDelivery(ref);
    if (!read) throw new Error('not created');
    const targets: DeliveryStatus[] = [
      'PROCESSING',
      'DELIVERED',
      'CANCELLED',
      'FAILED',
      'PROCESSING',
      'DELIVERED',
    ];
    // Every change was decided from the same read (PENDING): one wins, the others change nothing.
    const won = await Promise.all(
      targets.map((status) =>
        changeDelivery(ref, read, { status }, countDelta('PENDING', status), new Date()),
      ),
    );
    expect(won.filter(Boolean)).toHaveLength(1);
    const final = (await getDelivery(ref))?.status as DeliveryStatus;
    expect(await stats(m.apikey)).toEqual({
      ...Object.fromEntries(deliveryStatuses.map((st) => [st, st === final ? 1 : 0])),
      total: 1,
    });
    expect((await list(m.apikey, `status=${final}&eventType=charge.paid&endpointId=${EP1}`)).total).toBe(1);
    expect((await list(m.apikey, 'status=PENDING')).total).toBe(0);
  });

  it('stays exact when racing attempts re-read and apply on top (as the dispatcher does)', async () => {
    const m = await merchant();
    const scope: MerchantScope = { accountId: m.accountId, mode: 'test' };
    const s = seed(scope, { endpointId: EP2 }, 'charge.created', 'PENDING');
    await createDelivery(
      scope,
      s.delivery,
      { createdAt: s.eventAt, sk: s.eventSk },
      countDelta(undefined, 'PENDING'),
    );
    const ref = deliveryKey(scope, s.eventAt, s.delivery.id);
    const read = await getDelivery(ref);
    if (!read) throw new Error('not created');
    // PROCESSING from any attemptable status, as duplicate messages of one delivery would.
    await Promise.all(
      Array.from({ length: 6 }, () =>
        applyChange(
          ref,
          read,
          ['PENDING', 'PROCESSING', 'FAILED'],
          () => ({ status: 'PROCESSING' }),
          new Date(),
        ),
      ),
    );
    await Promise.all(
      Array.from({ length: 6 }, (_, n) =>
        applyChange(
          ref,
          { ...read, status: 'PROCESSING' },
          ['PROCESSING'],
          () => (n % 2 ? { status: 'DELIVERED', attempts: 1 } : { status: 'PENDING', attempts: 1 }),
          new Date(),
        ),
      ),
    );
    const final = (await getDelivery(ref))?.status as DeliveryStatus;
    expect(['DELIVERED', 'PENDING']).toContain(final);
    expect(await stats(m.apikey)).toEqual({
      ...Object.fromEntries(deliveryStatuses.map((st) => [st, st === final ? 1 : 0])),
      total: 1,
    });
  });

  it('stays exact when many deliveries sharing counter items change at once', async () => {
    const m = await merchant();
    const scope: MerchantScope = { accountId: m.accountId, mode: 'test' };
    const rows = Array.from({ length: 40 }, () => seed(scope, { endpointId: EP1 }, 'charge.paid', 'PENDING'));
    await Promise.all(
      rows.map((s) =>
        createDelivery(
          scope,
          s.delivery,
          { createdAt: s.eventAt, sk: s.eventSk },
          countDelta(undefined, 'PENDING'),
        ),
      ),
    );
    await Promise.all(
      rows.map(async (s, n) => {
        const ref = deliveryKey(scope, s.eventAt, s.delivery.id);
        const read = await getDelivery(ref);
        if (!read) throw new Error('not created');
        await applyChange(ref, read, ['PENDING'], () => ({ status: 'PROCESSING' }), new Date());
        await applyChange(
          ref,
          { ...read, status: 'PROCESSING' },
          ['PROCESSING'],
          () => ({ status: n % 4 ? 'DELIVERED' : 'PENDING' }),
          new Date(),
        );
      }),
    );
    expect(await stats(m.apikey)).toEqual({
      total: 40,
      PENDING: 10,
      PROCESSING: 0,
      DELIVERED: 30,
      FAILED: 0,
      CANCELLED: 0,
    });
    expect((await list(m.apikey, `endpointId=${EP1}&status=DELIVERED&limit=100`)).data).toHaveLength(30);
  });

  it('counts a delivery written before the counters at its next change', async () => {
    const m = await merchant();
    const scope: MerchantScope = { accountId: m.accountId, mode: 'test' };
    const s = seed(scope, { endpointId: EP1 }, 'charge.paid', 'PENDING');
    const ref = deliveryKey(scope, s.eventAt, s.delivery.id);
    // As the earlier code wrote it: no cell index keys, no counters, no `counted`.
    await db.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...ref,
          type: 'webhookDelivery',
          accountId: m.accountId,
          mode: 'test',
          gsi1pk: `WHDELIV#${EP1}`,
          gsi1sk: `${s.eventAt}#${s.delivery.id}`,
          eventSk: s.eventSk,
          ...s.delivery,
        },
      }),
    );
    expect((await stats(m.apikey)).total).toBe(0);
    const read = await getDelivery(ref);
    expect(read?.counted).toBe(false);
    if (!read) throw new Error('not written');
    const won = await Promise.all(
      Array.from({ length: 4 }, () =>
        changeDelivery(ref, read, { status: 'PROCESSING' }, countDelta(undefined, 'PROCESSING'), new Date()),
      ),
    );
    expect(won.filter(Boolean)).toHaveLength(1);
    expect(await stats(m.apikey)).toMatchObject({ total: 1, PROCESSING: 1, PENDING: 0 });
    expect(
      (await list(m.apikey, 'status=PROCESSING&eventType=charge.paid')).data.map((d: { id: string }) => d.id),
    ).toEqual([s.delivery.id]);
  });

  it('counts in finished deliveries written before the counters (count-webhook-deliveries), once, even run twice at once', async () => {
    const m = await merchant();
    const scope: MerchantScope = { accountId: m.accountId, mode: 'test' };
    const statuses: DeliveryStatus[] = ['DELIVERED', 'DELIVERED', 'FAILED', 'CANCELLED', 'PENDING'];
    const rows = statuses.map((status) => seed(scope, { endpointId: EP2 }, 'charge.created', status));
    for (const s of rows) {
      const ref = deliveryKey(scope, s.eventAt, s.delivery.id);
      await db.send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...ref,
            type: 'webhookDelivery',
            accountId: m.accountId,
            mode: 'test',
            gsi1pk: `WHDELIV#${EP2}`,
            gsi1sk: `${s.eventAt}#${s.delivery.id}`,
            eventSk: s.eventSk,
            ...s.delivery,
          },
        }),
      );
    }
    expect((await stats(m.apikey)).total).toBe(0);
    const counted = await Promise.all([countInDeliveries(scope), countInDeliveries(scope)]);
    expect(counted[0] + counted[1]).toBe(5);
    expect(await countInDeliveries(scope)).toBe(0);
    expect(await stats(m.apikey)).toEqual({
      total: 5,
      PENDING: 1,
      PROCESSING: 0,
      DELIVERED: 2,
      FAILED: 1,
      CANCELLED: 1,
    });
    const delivered = await list(m.apikey, `status=DELIVERED&endpointId=${EP2}`);
    expect(delivered.total).toBe(2);
    expect(delivered.data.map((d: { updatedAt: string }) => d.updatedAt)).toEqual(
      rows
        .filter((s) => s.delivery.status === 'DELIVERED')
        .map((s) => s.delivery.updatedAt)
        .reverse(),
    );
  });
});
