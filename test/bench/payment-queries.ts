/**
 * The payment list does not grow with a scope's history: two merchant scopes, one with 100
 * payments and one with 10 000 over the same week (same mix of statuses, each item the size of a
 * real charge, QR image included), seeded through the store's item builder straight into the
 * bench runtime's DynamoDB Local (batch writes, not timed; the outbox then counts them from the
 * stream), then the same requests against both through the API, alternating between the two so
 * that a busy moment of the machine hits both alike.
 *
 * Beside them, what a `total` without counters would cost: a `Select: COUNT` query of every
 * payment of the scope, timed from this process.
 */

import { DEFAULT_SETTINGS } from '../../shared/domain/account-settings.ts';
import type { ChargeRecord } from '../../shared/domain/charges.ts';
import { waitForQuietRuntime } from './cpu.ts';
import type { QueryFigures } from './delivery-queries.ts';
import { type BenchRuntime, useBenchDynamoDb } from './runtime.ts';
import { percentile, round } from './stats.ts';

/** Payments per scope, small and large. */
export const PAYMENT_SCOPE_SIZES = [100, 10_000] as const;
const WARMUP = 10;
const SAMPLES = 100;
const SEED_CHUNK = 1_000;
/** Both scopes' payments spread over the same week, up to a minute ago. */
const SPAN_MS = 7 * 86_400_000;
const COUNTED_WAIT_MS = 180_000;

const day = (msAgo: number) => new Date(Date.now() - msAgo).toISOString().slice(0, 10);
const at = (msAgo: number) => new Date(Date.now() - msAgo).toISOString();

/** Each against both scopes; `{…}` placeholders are filled once, so both get the same query. */
export const PAYMENT_QUERIES = [
  { label: 'list, first page (20, newest first)', path: '/v1/payments' },
  { label: 'list limit=100', path: '/v1/payments?limit=100' },
  { label: 'list page=5 (skips 80)', path: '/v1/payments?page=5' },
  { label: 'list status=PAID (its cell)', path: '/v1/payments?status=PAID' },
  { label: 'list status=EXPIRED (+ awaiting past expiry)', path: '/v1/payments?status=EXPIRED' },
  {
    label: 'list two whole days (day counters)',
    path: `/v1/payments?startDate=${day(4 * 86_400_000)}&endDate=${day(3 * 86_400_000)}`,
  },
  {
    label: 'list 30 h between two instants (+ edge minutes)',
    path: `/v1/payments?startDate=${at(3 * 86_400_000 + 1234)}&endDate=${at(2 * 86_400_000 - 4321 + 21_600_000)}`,
  },
  {
    label: 'sortBy=amount over 6 h (in memory)',
    path: `/v1/payments?sortBy=amount&startDate=${at(86_400_000)}&endDate=${at(86_400_000 - 21_600_000)}`,
  },
  { label: 'list page=10 limit=100 (deepest; empty at 100)', path: '/v1/payments?page=10&limit=100' },
] as const;

export interface PaymentQueryResults {
  sizes: number[];
  seedSeconds: number[];
  /** From the last write of the seed until `total` showed every payment (the stream's counting). */
  countedSeconds: number[];
  queries: { label: string; bySize: QueryFigures[] }[];
  /** Without counters: a COUNT query of every payment of the scope, ms p50 / p99. */
  countAll: { p50: number; p99: number; items: number }[];
  samples: number;
}

export async function loadStore(runtime: BenchRuntime) {
  useBenchDynamoDb(runtime.settings);
  const [accounts, apiKeys, client, keys, seed, qrImage, ddb] = await Promise.all([
    import('../../shared/store/accounts.ts'),
    import('../../shared/services/issue-api-key.ts'),
    import('../../shared/store/client.ts'),
    import('../../shared/store/keys.ts'),
    import('../helpers/payments.ts'),
    import('../../shared/store/qr-image.ts'),
    import('@aws-sdk/lib-dynamodb'),
  ]);
  return { accounts, apiKeys, client, keys, seed, qrImage, ddb };
}
export type Store = Awaited<ReturnType<typeof loadStore>>;

/** Of every 100 payments: mostly paid, as in a healthy account. */
function statusFields(n: number, createdAtMs: number): Partial<ChargeRecord> {
  const share = n % 100;
  const paidAt = new Date(createdAtMs + 45_000).toISOString();
  if (share < 80)
    return { status: 'PAID', paidAt, fees: { providerFee: 8, platformFee: 12, netAmount: 980 } };
  if (share < 92)
    return {
      status: 'EXPIRED',
      failure: { reason: 'expired', providerErrorCode: 'expired', ttlSeconds: 3600, at: paidAt },
    };
  if (share < 96) return { status: 'REFUNDED', paidAt };
  // Still awaiting payment only if created within the hour; otherwise the window closed.
  return Date.now() - createdAtMs < 3_000_000
    ? { status: 'WAITING_PAYMENT' }
    : { status: 'REFUSED', brCode: undefined, qrCodeBase64: undefined };
}

/** `count` payments over the last `spanMs` (a week) in a new account's test scope; its API key. */
export async function seedScope(
  store: Store,
  count: number,
  extra: Partial<ChargeRecord> = {},
  spanMs: number = SPAN_MS,
  put: (charges: ChargeRecord[]) => Promise<void> = (charges) => store.seed.putCharges(charges),
) {
  const account = await store.accounts.createAccount({ name: `Bench payments ${count}` });
  const { apiKey } = await store.apiKeys.issueApiKey({
    accountId: account.id,
    mode: 'test',
    label: 'bench payments',
    actorUserId: 'bench',
  });
  const scope = { accountId: account.id, mode: 'test' as const };
  const end = Date.now() - 60_000;
  const step = spanMs / count;
  for (let from = 0; from < count; from += SEED_CHUNK) {
    const charges = Array.from({ length: Math.min(SEED_CHUNK, count - from) }, (_, i) => {
      const n = from + i;
      const createdAtMs = Math.round(end - spanMs + n * step);
      return store.seed.seededCharge(scope, createdAtMs, {
        amount: 1000 + ((n * 7919) % 100_000),
        customer: { name: `Customer ${n % 97}`, document: '52998224725' },
        metadata: { order: `A-${n}` },
        // As a create draws it: the day aggregates spread over the account's shards.
        walletShard: n % DEFAULT_SETTINGS.walletShards,
        ...extra,
        ...statusFields(n, createdAtMs),
      });
    });
    await put(charges);
  }
  return { apiKey, accountId: account.id, size: count };
}

/** Without counters: every payment of the scope counted by a query (what a total would read). */
async function countAll(store: Store, accountId: string): Promise<number> {
  const scope = { accountId, mode: 'test' as const };
  const range = store.keys.chargeSkRange({});
  let count = 0;
  for (const pk of store.keys.scopePartitionPks(scope)) {
    let next: Record<string, unknown> | undefined;
    do {
      const page = await store.client.db.send(
        new store.ddb.QueryCommand({
          TableName: store.client.tableName(),
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': pk, ':from': range.from, ':to': range.to },
          Select: 'COUNT',
          ExclusiveStartKey: next,
        }),
      );
      count += page.Count ?? 0;
      next = page.LastEvaluatedKey;
    } while (next);
  }
  return count;
}

/** Seconds until `counted()` reaches `size` (the outbox counting seeded payments from the stream). */
export async function secondsUntilCounted(
  counted: () => Promise<unknown>,
  size: number,
  timeoutMs: number,
  progress?: (counted: unknown) => void,
): Promise<number> {
  const startedAt = performance.now();
  for (let n = 1; ; n++) {
    const now = await counted();
    if (now === size) return round((performance.now() - startedAt) / 1000);
    if (performance.now() - startedAt > timeoutMs)
      throw new Error(`${size} seeded payments not counted after ${timeoutMs / 1000} s (${String(now)})`);
    if (n % 50 === 0) progress?.(now);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A GET with the API key, timed from this process; 200 or it throws. */
export async function timedGet(baseUrl: string, apiKey: string, path: string, requestId: string) {
  const sentAt = performance.now();
  const response = await fetch(`${baseUrl}${path}`, {
    headers: { apikey: apiKey, 'x-request-id': requestId },
  });
  const body = (await response.json()) as Record<string, unknown> & { total?: number; data?: unknown[] };
  if (response.status !== 200)
    throw new Error(`${path} answered ${response.status}: ${JSON.stringify(body)}`);
  return { ms: performance.now() - sentAt, body, total: body.total, returned: body.data?.length };
}

/**
 * Each query against every scope, `WARMUP` + `SAMPLES` times, alternating between the scopes so
 * that a busy moment of the machine hits them alike; client percentiles and, from the runtime's
 * request log, DynamoDB calls, round trips and handler time per request.
 */
export async function timeQueriesAlternating(
  runtime: BenchRuntime,
  scopes: readonly { apiKey: string }[],
  list: readonly { label: string; path: string }[],
  idPrefix: string,
  step: (message: string) => void,
): Promise<{ label: string; bySize: QueryFigures[] }[]> {
  const queries: { label: string; bySize: QueryFigures[] }[] = [];
  for (const [q, query] of list.entries()) {
    step(`${query.label}, ${WARMUP} + ${SAMPLES} requests per scope, alternating`);
    const times: number[][] = scopes.map(() => []);
    const totals: (number | undefined)[] = scopes.map(() => undefined);
    const returned: (number | undefined)[] = scopes.map(() => undefined);
    for (let n = 0; n < WARMUP + SAMPLES; n++) {
      for (const [s, scope] of scopes.entries()) {
        const r = await timedGet(
          runtime.settings.baseUrl,
          scope.apiKey,
          query.path,
          `${idPrefix}-${q}-${s}-${n}`,
        );
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
          .filter((log) => log.requestId.startsWith(`${idPrefix}-${q}-${s}-`))
          .slice(WARMUP);
        const ms = times[s] ?? [];
        const perRequest = (sum: number) => round(sum / Math.max(1, logs.length), 2);
        return {
          p50: round(percentile(ms, 50)),
          p90: round(percentile(ms, 90)),
          p99: round(percentile(ms, 99)),
          dynamodbCalls: perRequest(logs.reduce((sum, log) => sum + log.dynamodbCalls, 0)),
          roundTrips: perRequest(logs.reduce((sum, log) => sum + log.dynamodbRoundTrips, 0)),
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
  return queries;
}

export async function measurePaymentQueries(
  runtime: BenchRuntime,
  step: (message: string) => void,
): Promise<PaymentQueryResults> {
  const store = await loadStore(runtime);
  const brCode = `00020101021226850014br.gov.bcb.pix2563pay.example.com/pix/${'A'.repeat(22)}52040000530398654071000.005802BR5913BENCH PAYMENT6009SAO PAULO62070503***6304ABCD`;
  const qr = { brCode, qrCodeBase64: await store.qrImage.qrPngBase64(brCode) };
  const get = (apiKey: string, path: string, requestId: string) =>
    timedGet(runtime.settings.baseUrl, apiKey, path, requestId);

  const scopes: { apiKey: string; accountId: string; size: number }[] = [];
  const seedSeconds: number[] = [];
  const countedSeconds: number[] = [];
  for (const size of PAYMENT_SCOPE_SIZES) {
    step(`payments: seeding ${size} payments over a week in one scope (batch writes)`);
    const startedAt = performance.now();
    const scope = await seedScope(store, size, qr);
    seedSeconds.push(round((performance.now() - startedAt) / 1000));
    scopes.push(scope);
    step('payments: waiting for the outbox to count them from the stream');
    countedSeconds.push(
      await secondsUntilCounted(
        async () => (await get(scope.apiKey, '/v1/payments?limit=1', 'pq-wait')).total,
        size,
        COUNTED_WAIT_MS,
      ),
    );
  }
  await waitForQuietRuntime(runtime.pid, { maxSeconds: 60 });
  await runtime.settle();

  const queries = await timeQueriesAlternating(runtime, scopes, PAYMENT_QUERIES, 'pq', (message) =>
    step(`payments: ${message}`),
  );

  step('payments: without counters (every payment of the scope counted per request), 5 reads per scope');
  const countAllResults: PaymentQueryResults['countAll'] = [];
  for (const scope of scopes) {
    const ms: number[] = [];
    let items = 0;
    // One warm-up, then 5: at 10 000 payments each read takes seconds on DynamoDB Local.
    for (let n = 0; n < 6; n++) {
      const startedAt = performance.now();
      items = await countAll(store, scope.accountId);
      if (n >= 1) ms.push(performance.now() - startedAt);
    }
    countAllResults.push({ p50: round(percentile(ms, 50)), p99: round(percentile(ms, 99)), items });
  }
  return {
    sizes: [...PAYMENT_SCOPE_SIZES],
    seedSeconds,
    countedSeconds,
    queries,
    countAll: countAllResults,
    samples: SAMPLES,
  };
}
