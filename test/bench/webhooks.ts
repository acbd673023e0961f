/**
 * Webhooks end to end: a charge paid in the sandbox → its outbox event in the same transaction
 * → the runtime's stream poller (the local stand-in for the DynamoDB Streams event source
 * mapping) fans it out into a delivery and an SQS message → one of the 4 dispatcher pollers
 * (the stand-in for the SQS event source mapping) POSTs it, signed, to a receiver in this
 * process (webhook-receiver.ts).
 *
 * 1. Latency at a steady rate: pays sent open-loop on a timer (not one after the other), each
 *    timed from the moment its request was sent to the moment its signed delivery arrived,
 *    and split into the stages the service stamps: the event's `created_at`, the delivery's
 *    `createdAt` (fan-out) and `enqueuedAt` (message sent), read from the table.
 * 2. Throughput: the receiver holds its answers while a burst of charges is paid, so the
 *    deliveries pile up in the queue; released, the dispatchers drain it at their own pace.
 */

import type { LocalSettings } from '../../infra/local/settings.ts';
import { BENCH_VELOCITY, tableCharges } from './charges.ts';
import { type CpuShare, cpuShares, sampleCpu } from './cpu.ts';
import { type BenchRuntime, useBenchDynamoDb } from './runtime.ts';
import { percentile, round } from './stats.ts';
import { type Arrival, startReceiver, type WebhookReceiver } from './webhook-receiver.ts';

export interface WebhookPlan {
  /** Pays per second and seconds, in order; a `warmup` run is reported apart, not among `runs`. */
  rates: readonly { perSecond: number; seconds: number; warmup?: boolean }[];
  /** Charges paid as fast as `burstInFlight` requests allow, with the receiver holding its answers. */
  burst: number;
  burstInFlight: number;
  /** How long a run waits for its last deliveries after its last pay was sent. */
  deliveryWaitSeconds: number;
  /** The goal for the p99 of pay sent → delivery received. */
  p99GoalMs: number;
}

const EVENT = 'charge.paid';
const PAY_ROUTE = 'POST /v1/sandbox/charges/{id}/pay';
const REQUEST_TIMEOUT_MS = 30_000;
/** Charges written to the table at a time before the runs (not timed). */
const CREATE_IN_FLIGHT = 10;
/** The dispatcher gives a receiver 30 s; the burst releases its held answers well before. */
const MAX_HOLD_MS = 22_000;

export interface Percentiles {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export interface RateRun {
  targetPerSecond: number;
  targetSeconds: number;
  /** Pays sent per second, first to last send. */
  sentPerSecond: number;
  /** The latest a send left after its planned time (the timer and the event loop). */
  maxSendSlipMs: number;
  paysSent: number;
  paysOk: number;
  payErrors: Record<string, number>;
  delivered: number;
  /** Delivered per second, first to last arrival. */
  deliveredPerSecond: number;
  /** Pay request sent → signed delivery received by the receiver. */
  endToEndMs: Percentiles;
  /** Pay request sent → its response received. */
  payMs: Percentiles;
  /** The pay's time inside its handler (the runtime's request log): the rest of `payMs` is waiting. */
  payHandlerMs: Percentiles;
  /** DynamoDB calls per pay (request log, auth included). */
  payDynamodbCalls: number;
  /** The stages of the end-to-end time (service timestamps, whole milliseconds). */
  stagesMs: {
    /** Pay request sent → the event's `created_at` (API, auth, charge read). */
    toEvent: Percentiles;
    /** Event `created_at` → delivery `createdAt`: the rest of the pay, the stream poll wait, the fan-out reads. */
    eventToDelivery: Percentiles;
    /** Pay response received → delivery `createdAt`: the stream lag after the commit (about). */
    responseToDelivery: Percentiles;
    /** Delivery `createdAt` → `enqueuedAt`: SendMessageBatch. */
    deliveryToEnqueued: Percentiles;
    /** `enqueuedAt` → received: the queue wait of the dispatcher pollers, their BatchGetItem and PROCESSING update, the POST. */
    enqueuedToReceived: Percentiles;
  };
  /** Deliveries that took more than one attempt. */
  retried: number;
  goalMet: boolean;
  cpu: CpuShare[] | undefined;
}

export interface BurstRun {
  charges: number;
  inFlight: number;
  paysPerSecond: number;
  payErrors: Record<string, number>;
  /** Deliveries created per second by the fan-out (delivery `createdAt`, 5th to 95th percentile). */
  fanOutPerSecond: number;
  /** Messages waiting when the receiver answered again (all enqueued = `charges`). */
  enqueuedAtRelease: number;
  /** Requests the dispatchers had sent into the held receiver. */
  heldRequests: number;
  heldMs: number;
  delivered: number;
  /**
   * Deliveries received per second after the release, over the 5th to 95th percentile of the
   * arrivals of the deliveries that were on the queue at the release (the dispatchers' pace).
   */
  deliveredPerSecond: number;
  /** The same from the release to the last arrival. */
  deliveredPerSecondOverall: number;
  drainSeconds: number;
  cpu: CpuShare[] | undefined;
}

export interface WebhookResults {
  event: string;
  receiver: string;
  warmup: RateRun | undefined;
  runs: RateRun[];
  burst: BurstRun;
  /** Over every request the receiver got: must be 0. */
  badSignatures: number;
  duplicates: number;
  malformed: number;
  receiverRequests: number;
  /** What failed (any entry fails the bench). */
  failures: string[];
  totalSeconds: number;
}

/** The store modules of this process, pointed at the bench runtime's DynamoDB Local (as charges.ts does). */
async function loadStore(s: LocalSettings) {
  useBenchDynamoDb(s);
  const [accounts, apiKeys, client, keys, ddb] = await Promise.all([
    import('../../shared/store/accounts.ts'),
    import('../../shared/services/issue-api-key.ts'),
    import('../../shared/store/client.ts'),
    import('../../shared/store/keys.ts'),
    import('@aws-sdk/lib-dynamodb'),
  ]);
  return { accounts, apiKeys, client, keys, ddb };
}

type Store = Awaited<ReturnType<typeof loadStore>>;

const summarize = (values: readonly number[]): Percentiles => {
  const ms = (p: number) => round(percentile(values, p));
  return { count: values.length, p50: ms(50), p90: ms(90), p99: ms(99), max: ms(100) };
};

const countError = (errors: Record<string, number>, name: string) => {
  errors[name] = (errors[name] ?? 0) + 1;
};

class Api {
  private readonly baseUrl: string;
  private readonly apiKey: string;

  constructor(baseUrl: string, apiKey: string) {
    this.baseUrl = baseUrl;
    this.apiKey = apiKey;
  }

  async call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: { apikey: this.apiKey, 'content-type': 'application/json', ...headers },
      ...(body !== undefined && { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    return { status: response.status, text };
  }

  /** Pays a charge in full; an error name when it did not end paid. */
  async pay(chargeId: string): Promise<string | undefined> {
    try {
      const r = await this.call('POST', `/v1/sandbox/charges/${chargeId}/pay`, {});
      if (r.status !== 200) return `HTTP ${r.status}`;
      const outcome = (JSON.parse(r.text) as { outcome?: string }).outcome;
      return outcome === 'paid' ? undefined : `outcome ${outcome}`;
    } catch (error) {
      return error instanceof Error ? error.name : 'error';
    }
  }
}

interface Sent {
  chargeId: string;
  plannedAt: number;
  sentAt: number;
  respondedAt: number;
  error: string | undefined;
}

/** Open loop: pay `chargeIds[i]` at start + i / rate, whatever the earlier pays are doing. */
async function payAtRate(api: Api, chargeIds: readonly string[], perSecond: number): Promise<Sent[]> {
  const interval = 1000 / perSecond;
  const start = performance.now() + 10;
  const startEpoch = Date.now() + 10;
  const pending: Promise<Sent>[] = [];
  const payOne = async (chargeId: string, index: number): Promise<Sent> => {
    const sentAt = Date.now();
    const error = await api.pay(chargeId);
    return { chargeId, plannedAt: startEpoch + index * interval, sentAt, respondedAt: Date.now(), error };
  };
  await new Promise<void>((done) => {
    let next = 0;
    const tick = () => {
      while (next < chargeIds.length && start + next * interval <= performance.now()) {
        pending.push(payOne(chargeIds[next] as string, next));
        next++;
      }
      if (next >= chargeIds.length) done();
      else setTimeout(tick, Math.max(0, start + next * interval - performance.now()));
    };
    tick();
  });
  return Promise.all(pending);
}

interface DeliveryItem {
  id: string;
  createdAt: number;
  enqueuedAt: number;
  attempts: number;
}

/** The scope's deliveries of events at or after `fromIso`, straight from the table (with `enqueuedAt`). */
async function readDeliveries(
  store: Store,
  accountId: string,
  fromIso: string,
): Promise<Map<string, DeliveryItem>> {
  const byId = new Map<string, DeliveryItem>();
  // Deliveries are spread over the scope's partitions (by id).
  for (const pk of store.keys.scopePartitionPks({ accountId, mode: 'test' })) {
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await store.client.db.send(
        new store.ddb.QueryCommand({
          TableName: store.client.tableName(),
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: {
            ':pk': pk,
            // Delivery sort keys start with the event's time: those of events from `fromIso` on.
            ':from': `${store.keys.PREFIX.delivery}${fromIso}`,
            ':to': `${store.keys.PREFIX.delivery}~`,
          },
          ProjectionExpression: 'id, createdAt, enqueuedAt, attempts',
          ExclusiveStartKey,
        }),
      );
      for (const item of page.Items ?? [])
        byId.set(String(item.id), {
          id: String(item.id),
          createdAt: Date.parse(String(item.createdAt)),
          enqueuedAt: item.enqueuedAt === undefined ? Number.NaN : Date.parse(String(item.enqueuedAt)),
          attempts: Number(item.attempts ?? 0),
        });
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
  }
  return byId;
}

/** Pays at one rate, waits for the deliveries, and puts the timestamps together. */
async function rateRun(
  ctx: Context,
  chargeIds: readonly string[],
  rate: { perSecond: number; seconds: number },
): Promise<RateRun> {
  const fromIso = new Date(Date.now() - 1_000).toISOString();
  const firstLog = ctx.runtime.requestLogs.length;
  const before = sampleCpu(ctx.runtime.pid);
  const cpuStartedAt = Date.now();
  const sent = await payAtRate(ctx.api, chargeIds, rate.perSecond);
  const paid = sent.filter((s) => s.error === undefined);
  const lastSentAt = Math.max(...sent.map((s) => s.sentAt));
  const waitMs = Math.max(0, lastSentAt + ctx.plan.deliveryWaitSeconds * 1000 - Date.now());
  const delivered = await ctx.receiver.waitFor(
    paid.map((s) => s.chargeId),
    waitMs,
  );
  const after = sampleCpu(ctx.runtime.pid);
  const cpuSeconds = (Date.now() - cpuStartedAt) / 1000;
  const deliveries = await readDeliveries(ctx.store, ctx.accountId, fromIso);
  await ctx.runtime.settle();
  const payLogs = ctx.runtime.requestLogs.slice(firstLog).filter((log) => log.routeKey === PAY_ROUTE);

  const payErrors: Record<string, number> = {};
  for (const s of sent) if (s.error) countError(payErrors, s.error);
  const pairs = paid.flatMap((s) => {
    const arrival = ctx.receiver.arrivals.get(s.chargeId);
    return arrival ? [{ s, arrival, delivery: deliveries.get(arrival.deliveryId) }] : [];
  });
  const stage = (f: (p: { s: Sent; arrival: Arrival; delivery: DeliveryItem | undefined }) => number) =>
    summarize(pairs.map(f).filter(Number.isFinite));
  const endToEnd = summarize(pairs.map(({ s, arrival }) => arrival.arrivedAt - s.sentAt));
  const arrivals = pairs.map((p) => p.arrival.arrivedAt);
  const sendSpan = (lastSentAt - Math.min(...sent.map((s) => s.sentAt))) / 1000;
  const arrivalSpan = (Math.max(...arrivals) - Math.min(...arrivals)) / 1000;
  return {
    targetPerSecond: rate.perSecond,
    targetSeconds: rate.seconds,
    sentPerSecond: round((sent.length - 1) / sendSpan),
    maxSendSlipMs: round(Math.max(...sent.map((s) => s.sentAt - s.plannedAt))),
    paysSent: sent.length,
    paysOk: paid.length,
    payErrors,
    delivered,
    deliveredPerSecond: round((arrivals.length - 1) / arrivalSpan),
    endToEndMs: endToEnd,
    payMs: summarize(sent.map((s) => s.respondedAt - s.sentAt)),
    payHandlerMs: summarize(payLogs.map((log) => log.durationMs)),
    payDynamodbCalls: round(payLogs.reduce((sum, log) => sum + log.dynamodbCalls, 0) / payLogs.length, 2),
    stagesMs: {
      toEvent: stage(({ s, arrival }) => arrival.eventAt - s.sentAt),
      eventToDelivery: stage(
        ({ arrival, delivery }) => (delivery?.createdAt ?? Number.NaN) - arrival.eventAt,
      ),
      responseToDelivery: stage(({ s, delivery }) => (delivery?.createdAt ?? Number.NaN) - s.respondedAt),
      deliveryToEnqueued: stage(
        ({ delivery }) => (delivery?.enqueuedAt ?? Number.NaN) - (delivery?.createdAt ?? Number.NaN),
      ),
      enqueuedToReceived: stage(
        ({ arrival, delivery }) => arrival.arrivedAt - (delivery?.enqueuedAt ?? Number.NaN),
      ),
    },
    retried: pairs.filter((p) => (p.delivery?.attempts ?? 1) > 1).length,
    goalMet: delivered === paid.length && paid.length === sent.length && endToEnd.p99 <= ctx.plan.p99GoalMs,
    cpu: before && after ? cpuShares(before, after, cpuSeconds, paid.length) : undefined,
  };
}

/** Rate of the middle 90% of sorted timestamps (ms), per second: the ramp-up and the tail left out. */
function steadyRate(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  if (sorted.length < 20) return Number.NaN;
  const from = Math.floor(sorted.length * 0.05);
  const to = Math.ceil(sorted.length * 0.95) - 1;
  return round((to - from) / (((sorted[to] ?? 0) - (sorted[from] ?? 0)) / 1000));
}

/** The deliveries of `chargeIds` pile up behind a receiver that does not answer, then drain. */
async function burstRun(ctx: Context, chargeIds: readonly string[], inFlight: number): Promise<BurstRun> {
  const { receiver } = ctx;
  // No look-back (the rate runs take 1 s): every event of the burst is created after this, on
  // this machine's clock, and the last deliveries of the run before must not count as enqueued.
  const fromIso = new Date().toISOString();
  receiver.hold();
  const heldFrom = Date.now();
  const payErrors: Record<string, number> = {};
  let next = 0;
  const payStartedAt = Date.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < chargeIds.length) {
        const error = await ctx.api.pay(chargeIds[next++] as string);
        if (error) countError(payErrors, error);
      }
    }),
  );
  const paysPerSecond = round(chargeIds.length / ((Date.now() - payStartedAt) / 1000));
  const paid = chargeIds.length - Object.values(payErrors).reduce((a, b) => a + b, 0);

  // Until every delivery is on the queue (or the held requests near the dispatcher's timeout).
  let enqueued = 0;
  while (Date.now() - heldFrom < MAX_HOLD_MS) {
    const deliveries = await ctx.readDeliveries(fromIso);
    enqueued = [...deliveries.values()].filter((d) => Number.isFinite(d.enqueuedAt)).length;
    if (enqueued >= paid) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const before = sampleCpu(ctx.runtime.pid);
  const releasedAt = Date.now();
  const heldRequests = receiver.release();
  const delivered = await receiver.waitFor(chargeIds, ctx.plan.deliveryWaitSeconds * 1000);
  const after = sampleCpu(ctx.runtime.pid);
  const arrivals = chargeIds.flatMap((id) => {
    const at = receiver.arrivals.get(id)?.arrivedAt;
    return at !== undefined && at >= releasedAt ? [at] : [];
  });
  const lastAt = Math.max(...arrivals);
  const deliveries = await ctx.readDeliveries(fromIso);
  return {
    charges: chargeIds.length,
    inFlight,
    paysPerSecond,
    payErrors,
    fanOutPerSecond: steadyRate([...deliveries.values()].map((d) => d.createdAt)),
    enqueuedAtRelease: enqueued,
    heldRequests,
    heldMs: releasedAt - heldFrom,
    delivered,
    // The first `enqueued` arrivals came off the full queue; any later ones at the fan-out's pace.
    deliveredPerSecond: steadyRate([...arrivals].sort((a, b) => a - b).slice(0, enqueued)),
    deliveredPerSecondOverall: round(arrivals.length / ((lastAt - releasedAt) / 1000)),
    drainSeconds: round((lastAt - releasedAt) / 1000, 2),
    cpu:
      before && after ? cpuShares(before, after, (lastAt - releasedAt) / 1000, arrivals.length) : undefined,
  };
}

interface Context {
  runtime: BenchRuntime;
  plan: WebhookPlan;
  api: Api;
  store: Store;
  accountId: string;
  receiver: WebhookReceiver;
  readDeliveries(fromIso: string): Promise<Map<string, DeliveryItem>>;
}

/** The bench account set up as charges.ts does (high velocity limits), a test key and an endpoint. */
async function setUp(runtime: BenchRuntime, receiver: WebhookReceiver) {
  const s = runtime.settings;
  const store = await loadStore(s);
  const account = await store.accounts.createAccount({
    name: 'Bench Webhooks',
    settings: { velocity: BENCH_VELOCITY },
  });
  const { apiKey } = await store.apiKeys.issueApiKey({
    accountId: account.id,
    mode: 'test',
    label: 'bench webhooks',
    actorUserId: 'bench',
  });
  const api = new Api(s.baseUrl, apiKey);
  const r = await api.call('POST', '/v1/webhooks/endpoints', { url: receiver.url, events: [EVENT] });
  if (r.status !== 201) throw new Error(`POST /v1/webhooks/endpoints answered ${r.status}: ${r.text}`);
  receiver.setSecret((JSON.parse(r.text) as { secret: string }).secret);
  return { store, api, accountId: account.id };
}

export async function measureWebhooks(
  runtime: BenchRuntime,
  plan: WebhookPlan,
  step: (message: string) => void,
): Promise<WebhookResults> {
  const startedAt = performance.now();
  const receiver = await startReceiver();
  try {
    const { store, api, accountId } = await setUp(runtime, receiver);
    const ctx: Context = {
      runtime,
      plan,
      api,
      store,
      accountId,
      receiver,
      readDeliveries: (fromIso) => readDeliveries(store, accountId, fromIso),
    };
    const perRun = plan.rates.map((r) => Math.round(r.perSecond * r.seconds));
    const total = perRun.reduce((a, b) => a + b, 0) + plan.burst + 1;
    step(
      `webhooks: ${total} charges written to the table first (not timed), endpoint ${receiver.url} for ${EVENT}`,
    );
    const ids = await tableCharges(runtime.settings, accountId, total, CREATE_IN_FLIGHT);
    // Their items go through the stream first (no events, nothing to fan out): one pay
    // delivered means the stream poller has caught up.
    const sentinel = ids.shift() as string;
    const sentinelError = await api.pay(sentinel);
    if (sentinelError) throw new Error(`paying a charge failed: ${sentinelError}`);
    if ((await receiver.waitFor([sentinel], 60_000)) !== 1)
      throw new Error('the first webhook was not delivered within 60 s');

    let warmup: RateRun | undefined;
    const runs: RateRun[] = [];
    for (const [i, rate] of plan.rates.entries()) {
      step(
        `webhooks: ${rate.warmup ? 'warm-up, ' : ''}${rate.perSecond} pays/s for ${rate.seconds} s, open loop, then up to ${plan.deliveryWaitSeconds} s for the deliveries`,
      );
      const run = await rateRun(ctx, ids.splice(0, perRun[i] ?? 0), rate);
      if (rate.warmup) warmup = run;
      else runs.push(run);
    }
    step(
      `webhooks: ${plan.burst} charges paid at ${plan.burstInFlight} in flight with the receiver holding its answers, then the queue drains`,
    );
    const burst = await burstRun(ctx, ids.splice(0, plan.burst), plan.burstInFlight);

    const failures: string[] = [];
    const { counts } = receiver;
    if (counts.badSignatures > 0) failures.push(`${counts.badSignatures} deliveries with a bad signature`);
    if (counts.malformed > 0) failures.push(`${counts.malformed} deliveries with a malformed body`);
    for (const run of [...(warmup ? [warmup] : []), ...runs]) {
      if (run.delivered < run.paysOk)
        failures.push(
          `${run.targetPerSecond}/s: ${run.paysOk - run.delivered} of ${run.paysOk} paid charges not delivered within ${plan.deliveryWaitSeconds} s`,
        );
      if (run.paysOk < run.paysSent)
        failures.push(`${run.targetPerSecond}/s: ${run.paysSent - run.paysOk} pays failed`);
    }
    if (burst.delivered < burst.charges)
      failures.push(`burst: ${burst.charges - burst.delivered} of ${burst.charges} charges not delivered`);
    return {
      event: EVENT,
      receiver: receiver.url,
      warmup,
      runs,
      burst,
      badSignatures: counts.badSignatures,
      duplicates: counts.duplicates,
      malformed: counts.malformed,
      receiverRequests: counts.requests,
      failures,
      totalSeconds: round((performance.now() - startedAt) / 1000),
    };
  } finally {
    receiver.release();
    await receiver.close();
  }
}
