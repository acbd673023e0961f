import { describe, expect, it } from 'vitest';
import { config } from '../../shared/config.ts';
import { chunkByItems } from '../../shared/domain/counter-chunks.ts';
import {
  attemptResult,
  attemptStart,
  destinationOf,
  leaseHeldForMs,
  leftOverFromSpentCycle,
  processingLeaseMs,
} from '../../shared/domain/delivery-attempt.ts';
import { fanOutTargets } from '../../shared/domain/fan-out.ts';
import { SCOPE_PARTITIONS } from '../../shared/domain/scope-partitions.ts';
import {
  type CountItem,
  countDelta,
  counterItemIdsOf,
  countShardOf,
  DELIVERY_COUNT_SHARDS,
  type DeliveryCountChange,
  deliveryIdFor,
  deliveryStats,
  firstPageSize,
  planDeliveryQuery,
  publicDelivery,
  type SourcePage,
  sumCountChanges,
  takeNewest,
} from '../../shared/domain/webhook-deliveries.ts';
import { lambdaTimeoutSeconds, webhookQueues } from '../../shared/resources.ts';

describe('fan-out targets', () => {
  const createdAt = '2026-11-21T10:00:00.000Z';
  const endpoints = [
    { id: 'we_a', status: 'ACTIVE', events: ['charge.paid', 'payment.completed'], createdAt },
    { id: 'we_b', status: 'INACTIVE', events: ['charge.paid'], createdAt },
    { id: 'we_c', status: 'ACTIVE', events: ['charge.created'], createdAt },
  ];

  it('sends an event only to endpoints that existed when it was recorded', () => {
    const later = {
      id: 'we_d',
      status: 'ACTIVE',
      events: ['charge.paid'],
      createdAt: '2026-11-21T10:00:00.001Z',
    };
    const event = { eventType: 'charge.paid', family: 'canonical' as const };
    expect(fanOutTargets({ ...event, recordedAt: createdAt }, [...endpoints, later])).toEqual([
      { endpointId: 'we_a' },
    ]);
    expect(
      fanOutTargets({ ...event, recordedAt: '2026-11-21T10:00:00.001Z' }, [...endpoints, later]),
    ).toEqual([{ endpointId: 'we_a' }, { endpointId: 'we_d' }]);
    // An event recorded before the time was stored goes to every subscribed endpoint.
    expect(fanOutTargets(event, [...endpoints, later])).toEqual([
      { endpointId: 'we_a' },
      { endpointId: 'we_d' },
    ]);
  });

  it('sends an event to every ACTIVE endpoint subscribed to its type', () => {
    expect(fanOutTargets({ eventType: 'charge.paid', family: 'canonical' }, endpoints)).toEqual([
      { endpointId: 'we_a' },
    ]);
    expect(fanOutTargets({ eventType: 'charge.expired', family: 'canonical' }, endpoints)).toEqual([]);
  });

  it("adds a legacy event's webhookUrl whatever the endpoints subscribe to, and only for legacy events", () => {
    const url = 'https://shop.example/hook';
    expect(
      fanOutTargets({ eventType: 'payment.created', family: 'legacy', webhookUrl: url }, endpoints),
    ).toEqual([{ url }]);
    expect(
      fanOutTargets({ eventType: 'payment.completed', family: 'legacy', webhookUrl: url }, endpoints),
    ).toEqual([{ endpointId: 'we_a' }, { url }]);
    expect(
      fanOutTargets({ eventType: 'charge.paid', family: 'canonical', webhookUrl: url }, endpoints),
    ).toEqual([{ endpointId: 'we_a' }]);
  });
});

describe('an attempt', () => {
  const now = new Date('2026-11-21T10:00:00.000Z');
  const options = { now, retryScale: 1, random: () => 0.5 };

  it('goes to the endpoint (ACTIVE) or the override URL, or is cancelled with the reason', () => {
    const endpoint = { url: 'https://a.example/h', secret: 's1', status: 'ACTIVE' };
    expect(destinationOf({}, { endpoint })).toEqual({ url: endpoint.url, secret: 's1' });
    expect(destinationOf({}, { endpoint: { ...endpoint, status: 'INACTIVE' } })).toEqual({
      cancel: 'Endpoint is inactive',
    });
    expect(destinationOf({}, {})).toEqual({ cancel: 'Endpoint was deleted' });
    expect(destinationOf({ url: 'https://o.example' }, { overrideSecret: 's2' })).toEqual({
      url: 'https://o.example',
      secret: 's2',
    });
    expect(destinationOf({ url: 'https://o.example' }, {})).toEqual({ cancel: 'No override signing secret' });
  });

  it('starts a new cycle when back from the dead-letter queue', () => {
    expect(attemptStart({ status: 'PENDING', attempts: 3, cycleAttempts: 3, redriveCount: 0 })).toEqual({
      change: { status: 'PROCESSING', attempts: 4, cycleAttempts: 4 },
      cycleAttempts: 4,
    });
    expect(attemptStart({ status: 'FAILED', attempts: 30, cycleAttempts: 15, redriveCount: 1 })).toEqual({
      change: { status: 'PROCESSING', attempts: 31, cycleAttempts: 1, redriveCount: 2 },
      cycleAttempts: 1,
    });
    // A cycle whose last attempt died in PROCESSING is spent too: a redrive starts a new one.
    expect(attemptStart({ status: 'PROCESSING', attempts: 15, cycleAttempts: 15, redriveCount: 0 })).toEqual({
      change: { status: 'PROCESSING', attempts: 16, cycleAttempts: 1, redriveCount: 1 },
      cycleAttempts: 1,
    });
  });

  it('takes a message for a spent cycle as a redrive only when it was sent after the cycle ended', () => {
    const endedAt = '2026-11-24T06:00:00.000Z';
    const at = Date.parse(endedAt);
    const failed = { status: 'FAILED' as const, cycleAttempts: 15, updatedAt: endedAt };
    expect(leftOverFromSpentCycle(failed, at - 1)).toBe(true);
    expect(leftOverFromSpentCycle(failed, at)).toBe(false);
    // Its last attempt's dispatcher died: still PROCESSING, the cycle spent all the same.
    expect(leftOverFromSpentCycle({ ...failed, status: 'PROCESSING' }, at - 1)).toBe(true);
    expect(leftOverFromSpentCycle({ ...failed, status: 'PROCESSING', cycleAttempts: 14 }, at - 1)).toBe(
      false,
    );
    expect(leftOverFromSpentCycle({ ...failed, status: 'PENDING' }, at - 1)).toBe(false);
    // No sent time (a message without SQS's attributes): never taken for a left-over.
    expect(leftOverFromSpentCycle(failed, Number.NaN)).toBe(false);
  });

  it('is held off by another attempt in flight until its lease lapses', () => {
    const lease = processingLeaseMs(1500);
    const marked = (msAgo: number) => new Date(now.getTime() - msAgo).toISOString();
    expect(leaseHeldForMs({ status: 'PROCESSING', updatedAt: marked(1000) }, lease, now)).toBe(lease - 1000);
    expect(leaseHeldForMs({ status: 'PROCESSING', updatedAt: marked(lease) }, lease, now)).toBe(0);
    expect(leaseHeldForMs({ status: 'PENDING', updatedAt: marked(0) }, lease, now)).toBe(0);
  });

  it('holds its lease longer than its POST and shorter than the time its message takes to come back', () => {
    const lease = processingLeaseMs(config.webhookTimeoutMs);
    expect(lease).toBeGreaterThan(config.webhookTimeoutMs);
    expect(lease).toBeLessThan(webhookQueues.visibilityTimeoutSeconds * 1000);
    expect(lease).toBeLessThan(lambdaTimeoutSeconds.webhookDispatcher * 1000);
  });

  it('records a 2xx as DELIVERED', () => {
    expect(attemptResult({ attempts: 2 }, 3, { statusCode: 204 }, options)).toEqual({
      change: {
        status: 'DELIVERED',
        attempts: 3,
        cycleAttempts: 3,
        lastStatusCode: 204,
        lastError: null,
        lastResponseBody: null,
        nextRetryAt: null,
        deliveredAt: now.toISOString(),
      },
      outcome: { kind: 'done' },
    });
    // The success's own body (a failed attempt's must not stay), truncated as failures are.
    const ok = attemptResult({ attempts: 1 }, 2, { statusCode: 200, body: 'y'.repeat(2000) }, options);
    expect(ok.change.lastResponseBody).toBe('y'.repeat(1024));
  });

  it('records a failure and retries after the schedule, or marks FAILED at the end of a cycle', () => {
    const retry = attemptResult({ attempts: 0 }, 1, { statusCode: 302, body: 'x'.repeat(2000) }, options);
    expect(retry.outcome).toEqual({ kind: 'retry', delaySeconds: 10 });
    expect(retry.change).toMatchObject({
      status: 'PENDING',
      attempts: 1,
      lastStatusCode: 302,
      lastError: 'HTTP 302 (redirects are not followed)',
      nextRetryAt: '2026-11-21T10:00:10.000Z',
    });
    expect(retry.change.lastResponseBody).toHaveLength(1024);
    // An empty answer body is null on a failure too, as on a success.
    expect(
      attemptResult({ attempts: 0 }, 1, { statusCode: 500, body: '' }, options).change.lastResponseBody,
    ).toBeNull();
    const throttled = attemptResult({ attempts: 0 }, 1, { statusCode: 429, retryAfter: '120' }, options);
    expect(throttled.outcome).toEqual({ kind: 'retry', delaySeconds: 120 });
    const last = attemptResult({ attempts: 29 }, 15, { error: 'connect ECONNREFUSED' }, options);
    expect(last).toEqual({
      change: expect.objectContaining({ status: 'FAILED', attempts: 30, nextRetryAt: null }),
      outcome: { kind: 'retry', delaySeconds: 0 },
    });
  });
});

describe('delivery counters', () => {
  it('move one count from the old status to the new; a new delivery enters total; a write that kept the status adds nothing', () => {
    expect(countDelta(undefined, 'PENDING')).toEqual({ total: 1, PENDING: 1 });
    expect(countDelta('PENDING', 'PROCESSING')).toEqual({ PENDING: -1, PROCESSING: 1 });
    expect(countDelta('PROCESSING', 'PROCESSING')).toEqual({});
  });

  const scope = { accountId: 'acct_1', mode: 'test' as const };
  const change = (id: string, endpointId: string | null, delta: DeliveryCountChange['delta']) => ({
    scope,
    deliveryId: id,
    eventType: 'charge.paid',
    endpointId,
    delta,
  });

  it('sum a batch per counter item (type, and endpoint + type, per shard), leaving out zero sums', () => {
    // Ids ending in 0 and 4 share shard 0; 1 is shard 1.
    const sums = sumCountChanges([
      change('whd_0', 'we_1', { total: 1, PENDING: 1 }),
      change('whd_4', 'we_1', { PENDING: -1, PROCESSING: 1 }),
      change('whd_0', 'we_1', { PENDING: -1, PROCESSING: 1 }),
      change('whd_1', null, { total: 1, PENDING: 1 }),
    ]);
    expect(sums).toEqual([
      {
        cell: { scope, eventType: 'charge.paid', shard: 0 },
        delta: { total: 1, PENDING: -1, PROCESSING: 2 },
      },
      {
        cell: { scope, eventType: 'charge.paid', endpointId: 'we_1', shard: 0 },
        delta: { total: 1, PENDING: -1, PROCESSING: 2 },
      },
      { cell: { scope, eventType: 'charge.paid', shard: 1 }, delta: { total: 1, PENDING: 1 } },
    ]);
    expect(
      sumCountChanges([
        change('whd_0', null, { PENDING: -1, PROCESSING: 1 }),
        change('whd_4', null, { PENDING: 1, PROCESSING: -1 }),
      ]),
    ).toEqual([]);
  });

  it('chunk a batch so each transaction holds at most the limit: a marker per delivery plus its distinct counter items', () => {
    const many = Array.from({ length: 250 }, (_, n) => ({
      change: change(`whd_${n.toString(16)}`, `we_${n % 7}`, { total: 1, PENDING: 1 }),
    }));
    const itemIds = (c: (typeof many)[number]) => [
      `marker ${c.change.deliveryId}`,
      ...counterItemIdsOf(c.change),
    ];
    const chunks = chunkByItems(many, itemIds, 100);
    expect(chunks.flat()).toEqual(many);
    for (const chunk of chunks) {
      const counters = sumCountChanges(chunk.map((c) => c.change)).length;
      expect(chunk.length + counters).toBeLessThanOrEqual(100);
    }
    // 4 type counters + 28 endpoint counters at most: about 68 changes a chunk, not 33.
    expect(chunks.length).toBeLessThanOrEqual(4);
    // Changes of one delivery share its marker: 3 changes of 40 deliveries fit one transaction.
    const repeated = many.slice(0, 40).flatMap((c) => [c, c, c]);
    expect(chunkByItems(repeated, itemIds, 100)).toHaveLength(1);
    expect(chunkByItems([], itemIds, 100)).toEqual([]);
  });

  it('spread deliveries over the shards, each always in the same one', () => {
    const shards = new Set(
      Array.from({ length: 64 }, (_, n) => countShardOf(deliveryIdFor(`evt_${n}`, { endpointId: 'we_1' }))),
    );
    expect([...shards].sort()).toEqual([0, 1, 2, 3].slice(0, DELIVERY_COUNT_SHARDS));
    const id = deliveryIdFor('evt_1', { endpointId: 'we_1' });
    expect(countShardOf(id)).toBe(countShardOf(id));
  });

  it('sum into the stats', () => {
    const items: CountItem[] = [
      { eventType: 'charge.paid', endpointId: null, counts: { total: 3, DELIVERED: 2, FAILED: 1 } },
      { eventType: 'charge.paid', endpointId: null, counts: { total: 1, PENDING: 1 } },
      { eventType: 'charge.created', endpointId: null, counts: { total: 2, CANCELLED: 2 } },
    ];
    expect(deliveryStats(items)).toEqual({
      total: 6,
      PENDING: 1,
      PROCESSING: 0,
      DELIVERED: 2,
      FAILED: 1,
      CANCELLED: 2,
    });
  });
});

describe('the delivery list plan', () => {
  const byType: CountItem[] = [
    { eventType: 'charge.paid', endpointId: null, counts: { total: 5, DELIVERED: 4, FAILED: 1 } },
    { eventType: 'charge.created', endpointId: null, counts: { total: 2, DELIVERED: 2 } },
    { eventType: 'charge.paid', endpointId: null, counts: { total: 1, PENDING: 1 } },
  ];
  const ofEndpoint: CountItem[] = [
    { eventType: 'charge.paid', endpointId: 'we_1', counts: { total: 3, DELIVERED: 3 } },
    { eventType: 'charge.created', endpointId: 'we_1', counts: { total: 1, PENDING: 1 } },
  ];

  it('reads the scope or the endpoint partition when no status or type is asked', () => {
    expect(planDeliveryQuery({}, byType)).toEqual({
      total: 8,
      sources: Array.from({ length: SCOPE_PARTITIONS }, (_, partition) => ({
        kind: 'scope',
        partition,
        matches: 8 / SCOPE_PARTITIONS,
      })),
    });
    expect(planDeliveryQuery({ endpointId: 'we_1' }, ofEndpoint)).toEqual({
      total: 4,
      sources: [{ kind: 'endpoint', endpointId: 'we_1', matches: 4 }],
    });
  });

  it('reads only the cells that hold matches, with their total', () => {
    expect(planDeliveryQuery({ status: 'DELIVERED' }, byType)).toEqual({
      total: 6,
      sources: [
        { kind: 'cell', status: 'DELIVERED', eventType: 'charge.created', matches: 2 },
        { kind: 'cell', status: 'DELIVERED', eventType: 'charge.paid', matches: 4 },
      ],
    });
    expect(planDeliveryQuery({ eventType: 'charge.paid' }, byType)).toEqual({
      total: 6,
      sources: [
        { kind: 'cell', status: 'PENDING', eventType: 'charge.paid', matches: 1 },
        { kind: 'cell', status: 'DELIVERED', eventType: 'charge.paid', matches: 4 },
        { kind: 'cell', status: 'FAILED', eventType: 'charge.paid', matches: 1 },
      ],
    });
    expect(planDeliveryQuery({ status: 'FAILED', eventType: 'charge.created' }, byType)).toEqual({
      total: 0,
      sources: [],
    });
    expect(planDeliveryQuery({ status: 'PENDING', endpointId: 'we_1' }, ofEndpoint)).toEqual({
      total: 1,
      sources: [
        { kind: 'cell', status: 'PENDING', eventType: 'charge.created', endpointId: 'we_1', matches: 1 },
      ],
    });
    expect(planDeliveryQuery({ eventType: 'charge.paid', endpointId: 'we_1' }, ofEndpoint).total).toBe(3);
  });
});

describe('merging partitions newest first', () => {
  it('reads each partition its share of the page first, and two standard deviations more', () => {
    expect(firstPageSize(25, 90, 100)).toBe(25); // 22.5 + 2 × 1.5 + 1, at most the page
    expect(firstPageSize(25, 10, 100)).toBe(7); // 2.5 + 2 × 1.5 + 1
    expect(firstPageSize(25, 100, 100)).toBe(25);
    expect(firstPageSize(25, 0, 0)).toBe(25);
    expect(firstPageSize(10, 1, 16)).toBe(4); // one of 16 partitions: 0.625 + 2 × 0.77 + 1
  });

  const page = (items: string[], more = false): SourcePage<string> => ({ items, more });

  it('takes the newest heads across partitions', () => {
    const out: string[] = [];
    expect(takeNewest([page(['9', '5', '1']), page(['8', '7']), page([])], (s) => s, out, 4)).toBe('done');
    expect(out).toEqual(['9', '8', '7', '5']);
  });

  it('asks for a refill when a partition that may hold more runs out', () => {
    const a = page(['9', '3'], false);
    const b = page(['8'], true);
    const out: string[] = [];
    expect(takeNewest([a, b], (s) => s, out, 4)).toBe('refill');
    expect(out).toEqual(['9', '8']);
    b.items.push('4');
    b.more = false;
    expect(takeNewest([a, b], (s) => s, out, 4)).toBe('done');
    expect(out).toEqual(['9', '8', '4', '3']);
  });
});

describe('a delivery as the list shows it', () => {
  const delivery = {
    id: 'whd_1',
    endpointId: 'we_1',
    eventId: 'evt_1',
    eventType: 'charge.paid',
    status: 'DELIVERED' as const,
    attempts: 2,
    maxAttempts: 15,
    lastStatusCode: 200,
    lastError: null,
    lastResponseBody: 'ok',
    nextRetryAt: null,
    deliveredAt: '2026-11-24T00:00:01.000Z',
    createdAt: '2026-11-24T00:00:00.000Z',
    updatedAt: '2026-11-24T00:00:01.000Z',
    redriveCount: 0,
    cycleAttempts: 2,
  };

  it('carries the event as sent, and not the attempts of the current cycle', () => {
    const shown = publicDelivery(delivery, '{"id":"evt_1","type":"charge.paid"}');
    expect(shown.payload).toEqual({ id: 'evt_1', type: 'charge.paid' });
    expect(shown).not.toHaveProperty('cycleAttempts');
    expect(shown).toMatchObject({ id: 'whd_1', attempts: 2, status: 'DELIVERED' });
  });

  it('shows a null payload when the event body is gone', () => {
    expect(publicDelivery(delivery, undefined).payload).toBeNull();
  });
});
