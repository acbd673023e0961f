/**
 * Cost per charge: the DynamoDB read and write units of one full lifecycle, create → Pix
 * received (sandbox pay) → `charge.paid` delivered to an endpoint, averaged over `charges`
 * lifecycles. The API's units come from the request log, the background work's (outbox
 * fan-out and counters, webhook dispatcher) from the runtime's invocation log; both are
 * counted by the SDK middleware (`ReturnConsumedCapacity: TOTAL`, shared/store/client.ts).
 * Also: the sizes of the items a create writes, and what a GET and an idempotent replay cost.
 */

import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { itemSize } from '../helpers/item-size.ts';
import { BENCH_VELOCITY, tableCharges } from './charges.ts';
import { type Sent, send as sendNamed } from './payments.ts';
import type { BenchRuntime, InvocationLog, RequestLog } from './runtime.ts';
import { useBenchDynamoDb } from './runtime.ts';
import { percentile, round } from './stats.ts';
import { startReceiver } from './webhook-receiver.ts';

const EVENT = 'charge.paid';
/** Background work counts as done once no invocation was logged for this long. */
const QUIET_MS = 1_500;
const DELIVERY_TIMEOUT_MS = 60_000;
/** GETs of charges whose QR image the runtime has not rendered yet. */
const UNCACHED_GETS = 20;

export interface UnitsPerCharge {
  read: number;
  write: number;
}

export interface CostResults {
  charges: number;
  event: string;
  /** Units per lifecycle, by step. */
  steps: Record<'create' | 'pay' | 'fanOut' | 'delivery' | 'counters', UnitsPerCharge>;
  total: UnitsPerCharge & { units: number };
  /** The scheduler's own runs while the lifecycles ran (not per charge: it polls its queues). */
  scheduler: UnitsPerCharge & { runs: number };
  getCharge: UnitsPerCharge & { handlerMsP50: number; handlerMsP90: number };
  /** The same GET of charges the runtime never rendered (written through the store): a cache miss. */
  getChargeUncached: { requests: number; handlerMsP50: number; handlerMsP90: number };
  replay: UnitsPerCharge & { handlerMsP50: number };
  /** Rendering one QR image (uncached, in this process): what a read missing the cache adds. */
  qrRenderMs: number;
  /** Stored size (DynamoDB's item size rules, approximate) of the items a create writes. */
  itemBytes: { charge: number; idempotency: number; events: number[] };
}

const send = (
  baseUrl: string,
  apiKey: string,
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) => sendNamed(baseUrl, apiKey, 'cost', method, path, body, headers);

/** Resolves once no background invocation was logged for `QUIET_MS`. */
async function backgroundQuiet(runtime: BenchRuntime): Promise<void> {
  let seen = runtime.invocationLogs.length;
  let quietSince = Date.now();
  while (Date.now() - quietSince < QUIET_MS) {
    await sleep(100);
    // The scheduler runs on its own clock whatever we do: it does not keep the wait going.
    const busy = runtime.invocationLogs.slice(seen).some((l) => l.function !== 'scheduler');
    seen = runtime.invocationLogs.length;
    if (busy) quietSince = Date.now();
  }
}

const sumRequests = (logs: readonly (RequestLog | undefined)[]) => ({
  read: logs.reduce((s, l) => s + (l?.dynamodbReadUnits ?? Number.NaN), 0),
  write: logs.reduce((s, l) => s + (l?.dynamodbWriteUnits ?? Number.NaN), 0),
});

const sumInvocations = (logs: readonly InvocationLog[], part?: string) => ({
  read: logs.reduce((s, l) => s + (part ? (l.parts?.[part]?.readUnits ?? 0) : l.dynamodbReadUnits), 0),
  write: logs.reduce((s, l) => s + (part ? (l.parts?.[part]?.writeUnits ?? 0) : l.dynamodbWriteUnits), 0),
});

const perCharge = (units: { read: number; write: number }, n: number): UnitsPerCharge => ({
  read: round(units.read / n, 2),
  write: round(units.write / n, 2),
});

export async function measureCost(
  runtime: BenchRuntime,
  charges: number,
  step: (message: string) => void,
): Promise<CostResults> {
  const s = runtime.settings;
  useBenchDynamoDb(s);
  const [accounts, apiKeys, client, keys, qrImage, { GetCommand }] = await Promise.all([
    import('../../shared/store/accounts.ts'),
    import('../../shared/services/issue-api-key.ts'),
    import('../../shared/store/client.ts'),
    import('../../shared/store/keys.ts'),
    import('../../shared/store/qr-image.ts'),
    import('@aws-sdk/lib-dynamodb'),
  ]);
  const account = await accounts.createAccount({
    name: 'Bench Cost',
    settings: { velocity: BENCH_VELOCITY },
  });
  const { apiKey } = await apiKeys.issueApiKey({
    accountId: account.id,
    mode: 'test',
    label: 'bench cost',
    actorUserId: 'bench',
  });
  const receiver = await startReceiver();
  try {
    const endpoint = await send(s.baseUrl, apiKey, 'POST', '/v1/webhooks/endpoints', {
      url: receiver.url,
      events: [EVENT],
    });
    receiver.setSecret(String(endpoint.body.secret));
    const lifecycle = async (idempotencyKey: string) => {
      const created = await send(
        s.baseUrl,
        apiKey,
        'POST',
        '/v1/charges',
        { amount: 1050, payment_method: 'pix' },
        {
          'idempotency-key': idempotencyKey,
        },
      );
      return created;
    };
    // Warm-up: one lifecycle end to end (caches, JIT, the endpoint list), not counted.
    const warm = await lifecycle(randomUUID());
    await send(s.baseUrl, apiKey, 'POST', `/v1/sandbox/charges/${warm.body.id}/pay`, {});
    if ((await receiver.waitFor([warm.body.id], DELIVERY_TIMEOUT_MS)) !== 1)
      throw new Error('the warm-up delivery did not arrive');
    await backgroundQuiet(runtime);

    step(`cost: ${charges} charges created, paid and ${EVENT} delivered`);
    const firstInvocation = runtime.invocationLogs.length;
    const creates: Sent[] = [];
    const keysSent: string[] = [];
    for (let i = 0; i < charges; i++) {
      const key = randomUUID();
      keysSent.push(key);
      creates.push(await lifecycle(key));
    }
    const pays: Sent[] = [];
    for (const created of creates)
      pays.push(await send(s.baseUrl, apiKey, 'POST', `/v1/sandbox/charges/${created.body.id}/pay`, {}));
    const ids = creates.map((c) => String(c.body.id));
    const delivered = await receiver.waitFor(ids, DELIVERY_TIMEOUT_MS);
    if (delivered !== charges) throw new Error(`${charges - delivered} deliveries did not arrive`);
    // The deliveries' DELIVERED changes still go through the stream (the delivery counters).
    await backgroundQuiet(runtime);
    await runtime.settle();
    const invocations = runtime.invocationLogs.slice(firstInvocation);

    const requestLog = (sent: Sent) => runtime.requestLogs.find((l) => l.requestId === sent.requestId);
    const outbox = invocations.filter((l) => l.function === 'outbox');
    const outboxUnits = sumInvocations(outbox);
    const fanOut = sumInvocations(outbox, 'fan-out');
    const steps = {
      create: perCharge(sumRequests(creates.map(requestLog)), charges),
      pay: perCharge(sumRequests(pays.map(requestLog)), charges),
      fanOut: perCharge(fanOut, charges),
      delivery: perCharge(
        sumInvocations(invocations.filter((l) => l.function === 'webhook-dispatcher')),
        charges,
      ),
      counters: perCharge(
        { read: outboxUnits.read - fanOut.read, write: outboxUnits.write - fanOut.write },
        charges,
      ),
    };
    const read = round(
      Object.values(steps).reduce((sum, u) => sum + u.read, 0),
      2,
    );
    const write = round(
      Object.values(steps).reduce((sum, u) => sum + u.write, 0),
      2,
    );
    const schedulerRuns = invocations.filter((l) => l.function === 'scheduler');
    const scheduler = sumInvocations(schedulerRuns);

    step('cost: GET /v1/charges/{id} and idempotent replays of the same charges');
    const gets: Sent[] = [];
    for (const id of ids) gets.push(await send(s.baseUrl, apiKey, 'GET', `/v1/charges/${id}`));
    const replays: Sent[] = [];
    for (const key of keysSent.slice(0, 10))
      replays.push(
        await send(
          s.baseUrl,
          apiKey,
          'POST',
          '/v1/charges',
          { amount: 1050, payment_method: 'pix' },
          {
            'idempotency-key': key,
          },
        ),
      );
    // Each with a BR Code of its own, written from this process: the runtime renders each once.
    const unrendered: string[] = [];
    for (let i = 0; i < UNCACHED_GETS; i++) unrendered.push(...(await tableCharges(s, account.id, 1, 1)));
    const uncachedGets: Sent[] = [];
    for (const id of unrendered) uncachedGets.push(await send(s.baseUrl, apiKey, 'GET', `/v1/charges/${id}`));
    await runtime.settle();
    const getLogs = gets.map(requestLog);
    const uncachedMs = uncachedGets.map((g) => requestLog(g)?.durationMs ?? Number.NaN);
    const getMs = getLogs.map((l) => l?.durationMs ?? Number.NaN);
    const replayLogs = replays.map(requestLog);

    // The items of the first create, as stored now (the charge is paid by now: its final shape).
    const scope = { accountId: account.id, mode: 'test' as const };
    const rawId = ids[0]?.replace(/^ch_/, '') ?? '';
    const get = async (key: { pk: string; sk: string }) =>
      (await client.db.send(new GetCommand({ TableName: client.tableName(), Key: key }))).Item;
    const chargeItem = await get(keys.chargeKey(scope, rawId));
    const idempotencyItem = await get(keys.idempotencyKey(scope, 'createCharge', keysSent[0] ?? ''));
    const eventItems = (
      await Promise.all(
        keys.scopePartitionPks(scope).map((pk) =>
          client.queryAll({
            TableName: client.tableName(),
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :event)',
            FilterExpression: 'chargeId = :charge',
            ExpressionAttributeValues: { ':pk': pk, ':event': keys.PREFIX.event, ':charge': rawId },
          }),
        ),
      )
    ).flat();

    const brCodes = creates.map((c) => String(c.body.pix.br_code));
    const renderStartedAt = performance.now();
    for (const brCode of brCodes) await qrImage.renderQrPngBase64(brCode);
    const qrRenderMs = round((performance.now() - renderStartedAt) / brCodes.length, 2);

    return {
      charges,
      event: EVENT,
      qrRenderMs,
      steps,
      total: { read, write, units: round(read + write, 2) },
      scheduler: { ...perCharge(scheduler, 1), runs: schedulerRuns.length },
      getCharge: {
        ...perCharge(sumRequests(getLogs), gets.length),
        handlerMsP50: percentile(getMs, 50),
        handlerMsP90: percentile(getMs, 90),
      },
      getChargeUncached: {
        requests: uncachedGets.length,
        handlerMsP50: percentile(uncachedMs, 50),
        handlerMsP90: percentile(uncachedMs, 90),
      },
      replay: {
        ...perCharge(sumRequests(replayLogs), replays.length),
        handlerMsP50: percentile(
          replayLogs.map((l) => l?.durationMs ?? Number.NaN),
          50,
        ),
      },
      itemBytes: {
        charge: itemSize(chargeItem),
        idempotency: itemSize(idempotencyItem),
        events: eventItems.map(itemSize),
      },
    };
  } finally {
    await receiver.close();
  }
}

export function costSection(c: CostResults): string {
  const row = (name: string, u: UnitsPerCharge) =>
    `  ${name.padEnd(34)} ${String(u.read).padStart(8)} ${String(u.write).padStart(8)}`;
  return [
    `Cost per charge: DynamoDB capacity units of one lifecycle (create → sandbox pay → ${c.event} delivered), mean of ${c.charges}`,
    `  ${'step'.padEnd(34)} ${'read'.padStart(8)} ${'write'.padStart(8)}`,
    row('create (POST /v1/charges)', c.steps.create),
    row('pay (POST /v1/sandbox/…/pay)', c.steps.pay),
    row('outbox fan-out', c.steps.fanOut),
    row('delivery (webhook dispatcher)', c.steps.delivery),
    row('counters (outbox stream counting)', c.steps.counters),
    row('lifecycle', c.total),
    `  lifecycle total: ${c.total.units} units`,
    `  scheduler (not per charge): ${c.scheduler.runs} runs, ${c.scheduler.read} read, ${c.scheduler.write} write units in all`,
    `  GET /v1/charges/{id}: ${c.getCharge.read} read, ${c.getCharge.write} write units; handler p50 ${c.getCharge.handlerMsP50} ms, p90 ${c.getCharge.handlerMsP90} ms`,
    `  GET /v1/charges/{id} of ${c.getChargeUncached.requests} charges never rendered (QR cache miss): handler p50 ${c.getChargeUncached.handlerMsP50} ms, p90 ${c.getChargeUncached.handlerMsP90} ms`,
    `  idempotent replay: ${c.replay.read} read, ${c.replay.write} write units; handler p50 ${c.replay.handlerMsP50} ms`,
    `  one QR image rendered (uncached, bench process): ${c.qrRenderMs} ms`,
    `  stored item sizes (bytes): charge ${c.itemBytes.charge}, idempotency record ${c.itemBytes.idempotency}, events ${c.itemBytes.events.join(', ')}`,
  ].join('\n');
}
