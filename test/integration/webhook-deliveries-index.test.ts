/**
 * The delivery list and stats read counters and index cells, not the history: totals of every
 * filter combination, newest-first order across merged cells, the offset cap, and counters that
 * the table's stream keeps exact: each creation and status change counted once, whether the
 * changes race or the stream delivers its records again. Deliveries are written through the
 * store modules into a real merchant's test scope (no event items: nothing is fanned out or
 * queued; the runtime's stream poller counts them), and read through the API. Counters follow
 * the stream, so every check of them waits for it (`eventually`).
 */

import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as outbox } from '../../functions/outbox/index.ts';
import { ATTEMPTABLE } from '../../shared/domain/delivery-attempt.ts';
import type { MerchantScope } from '../../shared/domain/scope.ts';
import type { Counts, DeliveryStatus } from '../../shared/domain/webhook-deliveries.ts';
import { deliveryStatuses, emptyCounts } from '../../shared/domain/webhook-deliveries.ts';
import { newDelivery } from '../../shared/services/fan-out-event.ts';
import { db, tableName } from '../../shared/store/client.ts';
import { countedMarkerKey, deliveryKey, eventKey, PREFIX } from '../../shared/store/keys.ts';
import {
  changeDelivery,
  createDelivery,
  type Delivery,
  getDelivery,
  putNewDeliveries,
  readDeliveryCounts,
} from '../../shared/store/webhook-deliveries.ts';
import { merchant } from '../helpers/charges.ts';
import { eventually } from '../helpers/eventually.ts';
import { api, expectError } from '../helpers/http.ts';
import { scopeItems } from '../helpers/scope-items.ts';
import { streamRecord } from '../helpers/stream-records.ts';

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

const add = (into: Counts, status: DeliveryStatus) => {
  into.total++;
  into[status]++;
};
const sum = (items: { counts: Partial<Counts> }[]) => {
  const counts = emptyCounts();
  for (const item of items)
    for (const name of Object.keys(counts) as (keyof Counts)[]) counts[name] += item.counts[name] ?? 0;
  return counts;
};

/** Every delivery of the scope read from the table, counted: what the counters must say. */
async function recount(scope: MerchantScope) {
  const items = await scopeItems(scope, PREFIX.delivery);
  const all = emptyCounts();
  const byEndpoint = new Map<string, Counts>();
  for (const item of items) {
    add(all, item.status);
    if (item.endpointId === null) continue;
    const counts = byEndpoint.get(item.endpointId) ?? emptyCounts();
    add(counts, item.status);
    byEndpoint.set(item.endpointId, counts);
  }
  return { all, byEndpoint: Object.fromEntries(byEndpoint) };
}

/** The counters as they are: the scope's (the stats) and each endpoint's. */
async function counters(scope: MerchantScope, endpointIds: readonly string[]) {
  const all = sum(await readDeliveryCounts(scope, {}));
  const byEndpoint: Record<string, Counts> = {};
  for (const endpointId of endpointIds) {
    const counts = sum(await readDeliveryCounts(scope, { endpointId }));
    if (counts.total !== 0 || Object.values(counts).some(Boolean)) byEndpoint[endpointId] = counts;
  }
  return { all, byEndpoint };
}

/** Waits until the stream has caught up: the counters equal a recount of the deliveries. */
async function countersCaughtUp(scope: MerchantScope, endpointIds: readonly string[] = [EP1, EP2]) {
  return eventually(
    async () => {
      const expected = await recount(scope);
      expect(await counters(scope, endpointIds)).toEqual(expected);
      return expected.all;
    },
    { message: 'the counters equal a recount of the deliveries' },
  );
}

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
    // The stream counts them: the list's totals and cells follow the counters.
    expect((await countersCaughtUp(scope)).total).toBe(60);
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

describe('counters kept by the stream', () => {
  const create = (scope: MerchantScope, s: ReturnType<typeof seed>) =>
    createDelivery(scope, s.delivery, { createdAt: s.eventAt, sk: s.eventSk });

  it('counts a delivery created by concurrent stream runs once', async () => {
    const m = await merchant();
    const scope: MerchantScope = { accountId: m.accountId, mode: 'test' };
    const s = seed(scope, { endpointId: EP1 }, 'charge.paid', 'PENDING');
    const results = await Promise.all(Array.from({ length: 8 }, () => create(scope, s)));
    expect(results.every((r) => r.id === s.delivery.id)).toBe(true);
    expect(await countersCaughtUp(scope)).toMatchObject({ total: 1, PENDING: 1 });
    expect(await stats(m.apikey)).toMatchObject({ total: 1, PENDING: 1 });
    expect((await list(m.apikey, `endpointId=${EP1}&status=PENDING`)).total).toBe(1);
  });

  it('applies exactly one of concurrent changes from the same status, and counts only that one', async () => {
    const m = await merchant();
    const scope: MerchantScope = { accountId: m.accountId, mode: 'test' };
    const s = seed(scope, { endpointId: EP1 }, 'charge.paid', 'PENDING');
    await create(scope, s);
    const ref = deliveryKey(scope, s.eventAt, s.delivery.id);
    const targets: DeliveryStatus[] = ['PROCESSING', 'DELIVERED', 'CANCELLED', 'FAILED', 'DELIVERED'];
    const won = await Promise.all(
      targets.map((status) => changeDelivery(ref, s.delivery, ['PENDING'], { status }, new Date())),
    );
    expect(won.filter(Boolean)).toHaveLength(1);
    const final = (await getDelivery(ref))?.status as DeliveryStatus;
    expect(await countersCaughtUp(scope)).toEqual({ ...emptyCounts(), total: 1, [final]: 1 });
    expect((await list(m.apikey, `status=${final}&eventType=charge.paid&endpointId=${EP1}`)).total).toBe(1);
    expect((await list(m.apikey, 'status=PENDING')).total).toBe(0);
  });

  it('equals a full recount after racing attempts of the same delivery (as duplicate messages would)', async () => {
    const m = await merchant();
    const scope: MerchantScope = { accountId: m.accountId, mode: 'test' };
    const s = seed(scope, { endpointId: EP2 }, 'charge.created', 'PENDING');
    await create(scope, s);
    const ref = deliveryKey(scope, s.eventAt, s.delivery.id);
    // PROCESSING from any attemptable status (several win: PROCESSING → PROCESSING moves no count) …
    await Promise.all(
      Array.from({ length: 6 }, () =>
        changeDelivery(ref, s.delivery, ATTEMPTABLE, { status: 'PROCESSING' }, new Date()),
      ),
    );
    // … then the results, from PROCESSING only: the first one wins.
    const won = await Promise.all(
      Array.from({ length: 6 }, (_, n) =>
        changeDelivery(
          ref,
          s.delivery,
          ['PROCESSING'],
          n % 2 ? { status: 'DELIVERED', attempts: 1 } : { status: 'PENDING', attempts: 1 },
          new Date(),
        ),
      ),
    );
    expect(won.filter(Boolean)).toHaveLength(1);
    const final = (await getDelivery(ref))?.status as DeliveryStatus;
    expect(await countersCaughtUp(scope)).toEqual({ ...emptyCounts(), total: 1, [final]: 1 });
  });

  it('equals a full recount when many deliveries sharing counter items change at once', async () => {
    const m = await merchant();
    const scope: MerchantScope = { accountId: m.accountId, mode: 'test' };
    const rows = Array.from({ length: 40 }, (_, n) =>
      seed(scope, n % 5 ? { endpointId: EP1 } : { url: 'https://o.example/h' }, 'charge.paid', 'PENDING'),
    );
    await Promise.all(rows.map((s) => create(scope, s)));
    await Promise.all(
      rows.map(async (s, n) => {
        const ref = deliveryKey(scope, s.eventAt, s.delivery.id);
        await changeDelivery(ref, s.delivery, ATTEMPTABLE, { status: 'PROCESSING' }, new Date());
        // A racing cancellation of some (as an endpoint deletion would), then the attempt's result.
        await Promise.all([
          n % 3 === 0 &&
            changeDelivery(ref, s.delivery, ['PENDING', 'PROCESSING'], { status: 'CANCELLED' }, new Date()),
          changeDelivery(
            ref,
            s.delivery,
            ['PROCESSING'],
            { status: n % 4 ? 'DELIVERED' : 'PENDING' },
            new Date(),
          ),
        ]);
      }),
    );
    const counts = await countersCaughtUp(scope);
    expect(counts.total).toBe(40);
    expect(await stats(m.apikey)).toEqual(counts);
    expect((await list(m.apikey, `endpointId=${EP1}&status=DELIVERED&limit=100`)).data).toHaveLength(
      (await recount(scope)).byEndpoint[EP1]?.DELIVERED ?? 0,
    );
  });
});

describe('stream records delivered again', () => {
  const record = streamRecord;
  const run = (records: unknown[]) => outbox({ Records: records } as unknown as DynamoDBStreamEvent);

  it('counts each record once when a batch (or a part of it) is processed again', async () => {
    const m = await merchant();
    const scope: MerchantScope = { accountId: m.accountId, mode: 'test' };
    // Deliveries that exist only in these records: the runtime's own stream has nothing of them.
    const item = (s: ReturnType<typeof seed>, status: DeliveryStatus) => ({
      ...deliveryKey(scope, s.eventAt, s.delivery.id),
      type: 'webhookDelivery',
      accountId: scope.accountId,
      mode: scope.mode,
      ...s.delivery,
      status,
    });
    const a = seed(scope, { endpointId: EP1 }, 'charge.paid', 'PENDING');
    const b = seed(scope, { url: 'https://o.example/h' }, 'payment.completed', 'PENDING');
    const other = seed(scope, { endpointId: EP2 }, 'charge.paid', 'DELIVERED');
    const batch = [
      record('INSERT', item(a, 'PENDING')),
      record('MODIFY', { ...item(a, 'PENDING'), enqueuedAt: 'now' }, item(a, 'PENDING')),
      record('MODIFY', item(a, 'PROCESSING'), item(a, 'PENDING')),
      record('INSERT', item(b, 'PENDING')),
      record('MODIFY', item(a, 'DELIVERED'), item(a, 'PROCESSING')),
      // Another endpoint's delivery, created already delivered.
      record('INSERT', item(other, 'DELIVERED')),
    ];
    const expected = {
      all: { ...emptyCounts(), total: 3, PENDING: 1, DELIVERED: 2 },
      byEndpoint: {
        [EP1]: { ...emptyCounts(), total: 1, DELIVERED: 1 },
        [EP2]: { ...emptyCounts(), total: 1, DELIVERED: 1 },
      },
    };
    expect(await run(batch)).toEqual({ batchItemFailures: [] });
    expect(await counters(scope, [EP1, EP2])).toEqual(expected);
    // One marker per counted delivery, holding its counted records: the enqueued mark moved no
    // count and is not there.
    const markers = await Promise.all(
      [a, b, other].map(
        async (s) =>
          (
            await db.send(
              new GetCommand({
                TableName: tableName(),
                Key: countedMarkerKey(deliveryKey(scope, s.eventAt, s.delivery.id)),
                ConsistentRead: true,
              }),
            )
          ).Item,
      ),
    );
    const idsOf = (...at: number[]) => new Set(at.map((n) => batch[n]?.eventID));
    expect(markers.map((marker) => marker?.counted)).toEqual([idsOf(0, 2, 4), idsOf(3), idsOf(5)]);
    expect(markers[0]?.expiresAt).toBeGreaterThan(Date.now() / 1000 + 47 * 3600);

    // The same batch again (a retry after a failure reported at its first record) …
    expect(await run(batch)).toEqual({ batchItemFailures: [] });
    expect(await counters(scope, [EP1, EP2])).toEqual(expected);
    // … and a retry from its middle, with records that are new: only those count.
    const c = seed(scope, { endpointId: EP1 }, 'charge.paid', 'PENDING');
    const more = [
      record('INSERT', item(c, 'PENDING')),
      record('MODIFY', item(b, 'FAILED'), item(b, 'PENDING')),
    ];
    expect(await run([...batch.slice(3), ...more])).toEqual({ batchItemFailures: [] });
    expect(await counters(scope, [EP1, EP2])).toEqual({
      all: { ...emptyCounts(), total: 4, PENDING: 1, DELIVERED: 2, FAILED: 1 },
      byEndpoint: {
        [EP1]: { ...emptyCounts(), total: 2, PENDING: 1, DELIVERED: 1 },
        [EP2]: expected.byEndpoint[EP2],
      },
    });
  });

  it('counts a creation once when its delivery already has a marker (its first marker is refused)', async () => {
    const m = await merchant();
    const scope: MerchantScope = { accountId: m.accountId, mode: 'test' };
    const a = seed(scope, { endpointId: EP1 }, 'charge.paid', 'PENDING');
    const item = (status: DeliveryStatus) => ({
      ...deliveryKey(scope, a.eventAt, a.delivery.id),
      type: 'webhookDelivery',
      accountId: scope.accountId,
      mode: scope.mode,
      ...a.delivery,
      status,
    });
    // A change counted before the creation (no order is assumed): the creation's put of a first
    // marker fails, and the creation is added to the existing marker instead, once.
    const change = record('MODIFY', item('PROCESSING'), item('PENDING'));
    const creation = record('INSERT', item('PENDING'));
    expect(await run([change])).toEqual({ batchItemFailures: [] });
    expect(await run([creation])).toEqual({ batchItemFailures: [] });
    expect(await run([creation, change])).toEqual({ batchItemFailures: [] });
    expect((await counters(scope, [EP1])).byEndpoint[EP1]).toEqual({
      ...emptyCounts(),
      total: 1,
      PROCESSING: 1,
    });
  });

  it('reports the first record of a batch whose counting failed, and counts it on the retry', async () => {
    const m = await merchant();
    const scope: MerchantScope = { accountId: m.accountId, mode: 'test' };
    const item = (s: ReturnType<typeof seed>, eventType = s.delivery.eventType) => ({
      ...deliveryKey(scope, s.eventAt, s.delivery.id),
      type: 'webhookDelivery',
      accountId: scope.accountId,
      mode: scope.mode,
      ...s.delivery,
      eventType,
    });
    const a = seed(scope, { endpointId: EP1 }, 'charge.paid', 'PENDING');
    const b = seed(scope, { endpointId: EP1 }, 'charge.paid', 'PENDING');
    // A counter key over DynamoDB's 1 KB sort-key limit: the transaction is refused.
    const poisoned = [
      { eventName: 'MODIFY', dynamodb: { SequenceNumber: 'x', NewImage: {} } },
      record('INSERT', item(a)),
      record('INSERT', item(b, 'x'.repeat(1100))),
    ];
    expect(await run(poisoned)).toEqual({
      batchItemFailures: [{ itemIdentifier: poisoned[1]?.dynamodb.SequenceNumber }],
    });
    expect((await counters(scope, [EP1])).all.total).toBe(0);
    // Retried from there (the poison record fixed, as if it had been skipped): each counted once.
    const retry = [
      poisoned[1],
      {
        ...poisoned[2],
        dynamodb: { ...(poisoned[2] as ReturnType<typeof record>).dynamodb, NewImage: marshall(item(b)) },
      },
    ];
    expect(await run(retry)).toEqual({ batchItemFailures: [] });
    expect(await run(retry)).toEqual({ batchItemFailures: [] });
    expect((await counters(scope, [EP1])).byEndpoint[EP1]).toEqual({
      ...emptyCounts(),
      total: 2,
      PENDING: 2,
    });
  });
});
