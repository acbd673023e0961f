/**
 * The delivery list and stats do not grow with a scope's history: two merchant scopes, one with
 * 100 deliveries and one with 10 000 (same mix of statuses, event types and destinations),
 * seeded through the store modules straight into the bench runtime's DynamoDB Local (batch
 * writes, in parallel; not timed), then the same requests against both through the API,
 * alternating between the two so that a busy moment of the machine hits both alike.
 *
 * Beside them, what the code before the counters did on every request: a `Query` of every
 * delivery of the scope (projected to `status`, as the stats read it), timed from this process.
 */

import type { DeliveryStatus } from '../../shared/domain/webhook-deliveries.ts';
import { waitForQuietRuntime } from './cpu.ts';
import { type BenchRuntime, useBenchDynamoDb } from './runtime.ts';
import { percentile, round } from './stats.ts';

/** Deliveries per scope, small and large. */
export const DELIVERY_SCOPE_SIZES = [100, 10_000] as const;
const WARMUP = 10;
const SAMPLES = 100;
const SEED_CHUNK = 1_000;
/** The scope's two endpoints (ids only: nothing is sent); an endpoint id belongs to one scope. */
const endpointIds = (size: number) => {
  const tag = String(size).padStart(8, '0');
  return [`we_${'a'.repeat(16)}${tag}`, `we_${'b'.repeat(16)}${tag}`] as const;
};
const TYPES = ['charge.created', 'charge.paid', 'charge.expired', 'payment.completed'] as const;
/** Of every 100 deliveries: mostly delivered, as in a healthy account. */
const STATUS_MIX: [DeliveryStatus, number][] = [
  ['DELIVERED', 90],
  ['FAILED', 4],
  ['PENDING', 3],
  ['CANCELLED', 2],
  ['PROCESSING', 1],
];
/** About the size of a small event's JSON (a charge event with its QR image is ~12 KB). */
const BODY = JSON.stringify({ object: 'event', data: { object: { note: 'x'.repeat(400) } } });

/** Each a full page in both scopes (the 100-delivery scope has 90 DELIVERED, 25 charge.paid, 36 of its first endpoint DELIVERED), but the last. */
export const DELIVERY_QUERIES = [
  { label: 'GET /v1/webhooks/stats', path: '/v1/webhooks/stats' },
  { label: 'list, first page (25)', path: '/v1/webhooks/deliveries' },
  { label: 'list, offset=75 (the 4th page)', path: '/v1/webhooks/deliveries?offset=75' },
  {
    label: 'list status=DELIVERED offset=25 (a cell per event type)',
    path: '/v1/webhooks/deliveries?status=DELIVERED&offset=25',
  },
  {
    label: 'list eventType=charge.paid limit=20 (its status cells)',
    path: '/v1/webhooks/deliveries?eventType=charge.paid&limit=20',
  },
  { label: 'list endpointId (GSI1)', path: '/v1/webhooks/deliveries?endpointId={EP1}' },
  {
    label: 'list endpointId & status=DELIVERED (its cells)',
    path: '/v1/webhooks/deliveries?endpointId={EP1}&status=DELIVERED',
  },
  { label: 'list offset=1000 (the cap; empty at 100)', path: '/v1/webhooks/deliveries?offset=1000' },
] as const;

export interface QueryFigures {
  p50: number;
  p90: number;
  p99: number;
  /** DynamoDB calls per request (request log, auth included). */
  dynamodbCalls: number;
  /** Time in the handler (request log). */
  /** Sequential DynamoDB round trips (calls made together count once), where measured. */
  roundTrips?: number;
  handlerP50: number;
  total?: number;
  /** Deliveries on the page. */
  returned?: number;
}

export interface DeliveryQueryResults {
  sizes: number[];
  seedSeconds: number[];
  queries: { label: string; bySize: QueryFigures[] }[];
  /** The code before: every delivery of the scope read for each request (status only), ms p50 / p99. */
  readAll: { p50: number; p99: number; items: number }[];
  samples: number;
}

async function loadStore(runtime: BenchRuntime) {
  useBenchDynamoDb(runtime.settings);
  const [accounts, apiKeys, client, keys, deliveries, events, fanOut, ddb] = await Promise.all([
    import('../../shared/store/accounts.ts'),
    import('../../shared/services/issue-api-key.ts'),
    import('../../shared/store/client.ts'),
    import('../../shared/store/keys.ts'),
    import('../../shared/store/webhook-deliveries.ts'),
    import('../../shared/store/events.ts'),
    import('../../shared/services/fan-out-event.ts'),
    import('@aws-sdk/lib-dynamodb'),
  ]);
  return { accounts, apiKeys, client, keys, deliveries, events, fanOut, ddb };
}
type Store = Awaited<ReturnType<typeof loadStore>>;

const statusOf = (n: number): DeliveryStatus => {
  let at = n % 100;
  for (const [status, share] of STATUS_MIX) {
    if (at < share) return status;
    at -= share;
  }
  return 'DELIVERED';
};

/** `count` deliveries (and their event items) in a new account's test scope; its API key. */
async function seedScope(
  store: Store,
  count: number,
): Promise<{ apiKey: string; accountId: string; size: number }> {
  const account = await store.accounts.createAccount({ name: `Bench deliveries ${count}` });
  const { apiKey } = await store.apiKeys.issueApiKey({
    accountId: account.id,
    mode: 'test',
    label: 'bench deliveries',
    actorUserId: 'bench',
  });
  const scope = { accountId: account.id, mode: 'test' as const };
  const start = Date.now() - count * 1000;
  for (let from = 0; from < count; from += SEED_CHUNK) {
    const rows = Array.from({ length: Math.min(SEED_CHUNK, count - from) }, (_, i) => {
      const n = from + i;
      const type = TYPES[n % TYPES.length] as (typeof TYPES)[number];
      const createdAt = new Date(start + n * 1000).toISOString();
      const event = {
        id: `evt_bench${String(n).padStart(15, '0')}`,
        family: type.startsWith('payment.') ? ('legacy' as const) : ('canonical' as const),
        type,
        chargeId: `bench${n}`,
        createdAt,
        recordedAt: createdAt,
        payload: JSON.parse(BODY) as Record<string, unknown>,
      };
      const target =
        n % 10 === 9
          ? { url: 'https://shop.example/hook' }
          : { endpointId: endpointIds(count)[n % 2] as string };
      const ref = {
        id: event.id,
        sk: store.keys.eventKey(scope, createdAt, event.id).sk,
        eventType: type,
        accountId: scope.accountId,
        mode: scope.mode,
        createdAt,
        family: event.family,
      };
      const delivery = { ...store.fanOut.newDelivery(ref, target, new Date()), status: statusOf(n) };
      return { event, delivery, at: { createdAt, sk: ref.sk } };
    });
    // The event items as the outbox writes them (BatchWriteItem, 25 a call).
    const eventItems = store.events
      .outboxItems(
        scope,
        rows.map((r) => r.event),
      )
      .map((t) => (t as { Put: { Item: Record<string, unknown> } }).Put.Item);
    await Promise.all(
      Array.from({ length: Math.ceil(eventItems.length / 25) }, async (_, b) => {
        let pending: Record<string, unknown>[] = eventItems
          .slice(b * 25, b * 25 + 25)
          .map((Item) => ({ PutRequest: { Item } }));
        while (pending.length > 0) {
          const { UnprocessedItems } = await store.client.db.send(
            new store.ddb.BatchWriteCommand({ RequestItems: { [store.client.tableName()]: pending } }),
          );
          pending = (UnprocessedItems?.[store.client.tableName()] as Record<string, unknown>[]) ?? [];
        }
      }),
    );
    await store.deliveries.putNewDeliveries(
      scope,
      rows.map((r) => ({ delivery: r.delivery, event: r.at })),
    );
  }
  return { apiKey, accountId: account.id, size: count };
}

/** The code before: every delivery of the scope, status only (what the stats read). */
async function readAll(store: Store, accountId: string): Promise<number> {
  const pages = await Promise.all(
    store.keys.scopePartitionPks({ accountId, mode: 'test' }).map((pk) =>
      store.client.queryAll({
        TableName: store.client.tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': pk, ':prefix': store.keys.PREFIX.delivery },
        ProjectionExpression: '#s',
        ExpressionAttributeNames: { '#s': 'status' },
      }),
    ),
  );
  return pages.flat().length;
}

export async function measureDeliveryQueries(
  runtime: BenchRuntime,
  step: (message: string) => void,
): Promise<DeliveryQueryResults> {
  const store = await loadStore(runtime);
  const scopes: { apiKey: string; accountId: string; size: number }[] = [];
  const seedSeconds: number[] = [];
  for (const size of DELIVERY_SCOPE_SIZES) {
    step(`deliveries: seeding ${size} deliveries and their events in one scope (batch writes)`);
    const startedAt = performance.now();
    scopes.push(await seedScope(store, size));
    seedSeconds.push(round((performance.now() - startedAt) / 1000));
  }
  // The event items went through the stream (no endpoints: nothing to fan out); let it drain.
  await waitForQuietRuntime(runtime.pid, { maxSeconds: 60 });
  await runtime.settle();

  const baseUrl = runtime.settings.baseUrl;
  const get = async (apiKey: string, path: string, requestId: string) => {
    const sentAt = performance.now();
    const response = await fetch(`${baseUrl}${path}`, {
      headers: { apikey: apiKey, 'x-request-id': requestId },
    });
    const body = (await response.json()) as { total?: number; data?: unknown[] };
    if (response.status !== 200)
      throw new Error(`${path} answered ${response.status}: ${JSON.stringify(body)}`);
    return { ms: performance.now() - sentAt, total: body.total, returned: body.data?.length };
  };

  const queries: DeliveryQueryResults['queries'] = [];
  for (const [q, query] of DELIVERY_QUERIES.entries()) {
    step(`deliveries: ${query.label}, ${WARMUP} + ${SAMPLES} requests per scope, alternating`);
    const times: number[][] = scopes.map(() => []);
    const totals: (number | undefined)[] = scopes.map(() => undefined);
    const returned: (number | undefined)[] = scopes.map(() => undefined);
    for (let n = 0; n < WARMUP + SAMPLES; n++) {
      for (const [s, scope] of scopes.entries()) {
        const path = query.path.replace('{EP1}', endpointIds(scope.size)[1]);
        const r = await get(scope.apiKey, path, `dq-${q}-${s}-${n}`);
        if (n >= WARMUP) times[s]?.push(r.ms);
        totals[s] = r.total;
        returned[s] = r.returned;
      }
    }
    await runtime.settle();
    queries.push({
      label: query.label,
      bySize: scopes.map((_, s) => {
        const logs = runtime.requestLogs
          .filter((log) => log.requestId.startsWith(`dq-${q}-${s}-`))
          .slice(WARMUP);
        const ms = times[s] ?? [];
        return {
          p50: round(percentile(ms, 50)),
          p90: round(percentile(ms, 90)),
          p99: round(percentile(ms, 99)),
          dynamodbCalls: round(
            logs.reduce((sum, log) => sum + log.dynamodbCalls, 0) / Math.max(1, logs.length),
            2,
          ),
          handlerP50: round(
            percentile(
              logs.map((log) => log.durationMs),
              50,
            ),
          ),
          ...(totals[s] !== undefined && { total: totals[s] }),
          ...(returned[s] !== undefined && { returned: returned[s] }),
        };
      }),
    });
  }

  step('deliveries: the code before (every delivery of the scope read per request), 20 reads per scope');
  const readAllResults: DeliveryQueryResults['readAll'] = [];
  for (const scope of scopes) {
    const ms: number[] = [];
    let items = 0;
    for (let n = 0; n < 23; n++) {
      const startedAt = performance.now();
      items = await readAll(store, scope.accountId);
      if (n >= 3) ms.push(performance.now() - startedAt);
    }
    readAllResults.push({ p50: round(percentile(ms, 50)), p99: round(percentile(ms, 99)), items });
  }
  return {
    sizes: [...DELIVERY_SCOPE_SIZES],
    seedSeconds,
    queries,
    readAll: readAllResults,
    samples: SAMPLES,
  };
}
