/**
 * Creating charges. The bench makes its own account, since the demo account's default velocity
 * limit (1000 live charges per account and mode) would stop the load test with 403s; it then
 * probes a create, its replay and a create with a customer document for their DynamoDB calls,
 * and measures the baseline a create is compared with: the same 6-item TransactWriteItems sent
 * straight to DynamoDB Local from this process, with the same concurrency.
 */

import { randomUUID } from 'node:crypto';
import type { LocalSettings } from '../../infra/local/settings.ts';
import type { ChargeRecord } from '../../shared/domain/charges.ts';
import type { TransactItem } from '../../shared/store/client.ts';
import type { MerchantScope } from '../../shared/store/keys.ts';
import { type CpuShare, cpuShares, sampleCpu } from './cpu.ts';
import { type BenchRuntime, useBenchDynamoDb } from './runtime.ts';
import { percentile, round } from './stats.ts';

/** High enough that no bench run reaches them: the limits are not what is measured. */
export const BENCH_VELOCITY = { accountMaxPending: 10_000_000, customerMaxCharges: 1_000_000 } as const;
/** The body of every create the bench sends (the minimum the API takes). */
export const CREATE_BODY = { amount: 1050, payment_method: 'pix' } as const;
/** A valid CPF: a create with a customer document also runs the customer velocity query. */
const BENCH_CPF = '52998224725';
const ROUTE_ID = 'createCharge';
const REQUEST_TIMEOUT_MS = 10_000;

/**
 * Points this process's copy of the store modules at the bench runtime's DynamoDB Local and
 * imports them. Only now: the SDK client reads the endpoint and region from the environment.
 */
async function loadStore(s: LocalSettings) {
  useBenchDynamoDb(s);
  const [accounts, apiKeys, charges, client, domainCharges, pixIds, ids, brCode, createCharge, qrImage] =
    await Promise.all([
      import('../../shared/store/accounts.ts'),
      import('../../shared/services/issue-api-key.ts'),
      import('../../shared/store/charges.ts'),
      import('../../shared/store/client.ts'),
      import('../../shared/domain/charges.ts'),
      import('../../shared/domain/pix-ids.ts'),
      import('../../shared/ids.ts'),
      import('../../shared/domain/br-code.ts'),
      import('../../shared/services/create-charge.ts'),
      import('../../shared/store/qr-image.ts'),
    ]);
  return {
    accounts,
    apiKeys,
    charges,
    client,
    domainCharges,
    pixIds,
    ids,
    brCode,
    createCharge,
    qrImage,
  };
}

type Store = Awaited<ReturnType<typeof loadStore>>;

export interface ChargeBench {
  /** A test-mode key of the bench's own account (sandbox acquirer, high velocity limits). */
  apiKey: string;
  /** The items of one create, as create-charge.ts builds them, each call with new ids. */
  newCreateItems(): TransactItem[];
  /** Sends one TransactWriteItems with the service's own document client. */
  transact(items: TransactItem[]): Promise<void>;
  /** The QR image of a create's BR Code, as create-charge.ts renders it. */
  renderQr(): Promise<string>;
}

/** Two accounts with high limits: one behind an API key for HTTP, one for the raw transactions. */
export async function prepareChargeBench(s: LocalSettings): Promise<ChargeBench> {
  const store = await loadStore(s);
  const settings = { velocity: BENCH_VELOCITY };
  const httpAccount = await store.accounts.createAccount({ name: 'Bench Store', settings });
  const { apiKey } = await store.apiKeys.issueApiKey({
    accountId: httpAccount.id,
    mode: 'test',
    label: 'bench',
    actorUserId: 'bench',
  });
  const rawAccount = await store.accounts.createAccount({ name: 'Bench Raw', settings });
  const scope: MerchantScope = { accountId: rawAccount.id, mode: 'test' };
  const template = await chargeTemplate(store, scope, rawAccount.settings, s.baseUrl);
  const { TransactWriteCommand } = await import('@aws-sdk/lib-dynamodb');
  return {
    apiKey,
    newCreateItems: () => createItems(store, template, rawAccount.settings),
    transact: async (items) => {
      await store.client.db.send(new TransactWriteCommand({ TransactItems: items }));
    },
    renderQr: () => store.qrImage.renderQrPngBase64(template.brCode ?? ''),
  };
}

type AccountSettings = Awaited<ReturnType<Store['accounts']['createAccount']>>['settings'];

/** A charge as the sandbox create makes it, with its BR Code and QR image (computed once). */
async function chargeTemplate(
  store: Store,
  scope: MerchantScope,
  settings: AccountSettings,
  baseUrl: string,
): Promise<ChargeRecord> {
  const now = new Date();
  const id = store.ids.newChargeId(now.getTime());
  const brCode = store.brCode.buildDynamicBrCode({
    locationUrl: store.domainCharges.pixLocation(baseUrl, id),
    merchantName: settings.merchantName,
    merchantCity: settings.merchantCity,
    mcc: settings.mcc,
    amount: CREATE_BODY.amount,
  });
  return {
    id,
    ...scope,
    amount: CREATE_BODY.amount,
    currency: 'BRL',
    status: 'WAITING_PAYMENT',
    paymentMethod: 'pix',
    customer: {},
    metadata: {},
    idempotencyKey: '',
    baseUrl,
    provider: 'sandbox',
    txid: '',
    brCode,
    qrCodeBase64: await store.qrImage.renderQrPngBase64(brCode),
    expiresAt: new Date(now.getTime() + settings.defaultExpiresIn * 1000).toISOString(),
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
  };
}

/** New ids, times, events and stored response each time; the BR Code and QR of the template. */
function createItems(store: Store, template: ChargeRecord, settings: AccountSettings): TransactItem[] {
  return newChargeItems(store, template, settings, true).items;
}

/** A create's items for a new charge; `withEvents: false` leaves out its outbox events. */
function newChargeItems(
  store: Store,
  template: ChargeRecord,
  settings: AccountSettings,
  withEvents: boolean,
): { chargeId: string; items: TransactItem[] } {
  const now = new Date();
  const at = now.toISOString();
  const idempotencyKey = `bench-raw-${randomUUID()}`;
  const charge: ChargeRecord = {
    ...template,
    id: store.ids.newChargeId(now.getTime()),
    idempotencyKey,
    txid: store.pixIds.deriveTxid({
      ...template,
      routeId: ROUTE_ID,
      idempotencyKey,
      keyWindow: 0,
      requestHash: 'f'.repeat(64),
    }),
    expiresAt: new Date(now.getTime() + settings.defaultExpiresIn * 1000).toISOString(),
    createdAt: at,
    updatedAt: at,
  };
  const { events, ...withoutEvents } = store.createCharge.newChargeItems(charge, {
    routeId: ROUTE_ID,
    idempotencyKey,
    record: {
      requestHash: 'f'.repeat(64),
      response: { status: 201, body: store.domainCharges.serializeCharge(charge, now.getTime()) },
    },
    counterBelow: settings.velocity.accountMaxPending,
  });
  const items = store.client.flattenItems(withEvents ? { ...withoutEvents, events } : withoutEvents).list;
  return { chargeId: charge.id, items };
}

/**
 * Test-mode charges written straight to the table for `accountId`, each with the items a create
 * writes but WITHOUT its outbox events: charges to act on (pay) that leave the stream poller
 * nothing to fan out. `inFlight` transactions at a time; resolves with their public ids (`ch_…`).
 */
export async function tableCharges(
  s: LocalSettings,
  accountId: string,
  count: number,
  inFlight: number,
): Promise<string[]> {
  const store = await loadStore(s);
  const account = await store.accounts.getAccount(accountId);
  if (!account) throw new Error(`no account ${accountId}`);
  const template = await chargeTemplate(store, { accountId, mode: 'test' }, account.settings, s.baseUrl);
  const { TransactWriteCommand } = await import('@aws-sdk/lib-dynamodb');
  const ids: string[] = [];
  let started = 0;
  const worker = async () => {
    while (started < count) {
      started++;
      const { chargeId, items } = newChargeItems(store, template, account.settings, false);
      await store.client.db.send(new TransactWriteCommand({ TransactItems: items }));
      ids.push(store.pixIds.publicChargeId(chargeId));
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return ids;
}

/** Each item's size as JSON: a little above the size DynamoDB counts (names and values), in bytes. */
export function itemSizes(items: readonly TransactItem[]): { kind: string; bytes: number }[] {
  return items.map((item) => {
    const [kind, operation] = Object.entries(item)[0] ?? ['?', {}];
    const body =
      (operation as { Item?: unknown; Key?: unknown }).Item ?? (operation as { Key?: unknown }).Key;
    return { kind, bytes: Buffer.byteLength(JSON.stringify(body ?? {})) };
  });
}

export interface RawRun {
  inFlight: number;
  durationSeconds: number;
  transactions: number;
  transactionsPerSecond: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  /** Failed transactions by error name (none expected: every one writes new keys). */
  errors: Record<string, number>;
  cpu: CpuShare[] | undefined;
}

export interface RawTransactResult {
  /** The same concurrency as the HTTP create load: the figure the create is compared with. */
  concurrent: RawRun;
  /** One at a time: the latency of the transaction alone. */
  sequential: RawRun;
  items: { kind: string; bytes: number }[];
}

/** `inFlight` loops, each sending its next transaction when the previous one answered. */
async function runTransactions(bench: ChargeBench, inFlight: number, seconds: number) {
  const latencies: number[] = [];
  const errors: Record<string, number> = {};
  const startedAt = performance.now();
  const deadline = startedAt + seconds * 1000;
  const loop = async () => {
    while (performance.now() < deadline) {
      const items = bench.newCreateItems();
      const sentAt = performance.now();
      try {
        await bench.transact(items);
        latencies.push(performance.now() - sentAt);
      } catch (error) {
        const name = error instanceof Error ? error.name : 'unknown';
        errors[name] = (errors[name] ?? 0) + 1;
      }
    }
  };
  await Promise.all(Array.from({ length: inFlight }, loop));
  return { latencies, errors, wallSeconds: (performance.now() - startedAt) / 1000 };
}

/** A measured run, with the CPU each process used meanwhile. */
async function measureRun(
  bench: ChargeBench,
  runtime: BenchRuntime,
  inFlight: number,
  seconds: number,
): Promise<RawRun> {
  const before = sampleCpu(runtime.pid);
  const { latencies, errors, wallSeconds } = await runTransactions(bench, inFlight, seconds);
  const after = sampleCpu(runtime.pid);
  const ms = (p: number) => round(percentile(latencies, p));
  return {
    inFlight,
    durationSeconds: round(wallSeconds),
    transactions: latencies.length,
    transactionsPerSecond: round(latencies.length / wallSeconds),
    latencyMs: { p50: ms(50), p90: ms(90), p99: ms(99), max: ms(100) },
    errors,
    cpu: before && after ? cpuShares(before, after, wallSeconds, latencies.length) : undefined,
  };
}

/** Warm-up (dropped), then `inFlight` at a time, then one at a time. */
export async function measureRawTransactions(
  bench: ChargeBench,
  runtime: BenchRuntime,
  run: { inFlight: number; warmupSeconds: number; durationSeconds: number; sequentialSeconds: number },
): Promise<RawTransactResult> {
  await runTransactions(bench, run.inFlight, run.warmupSeconds);
  const concurrent = await measureRun(bench, runtime, run.inFlight, run.durationSeconds);
  const sequential = await measureRun(bench, runtime, 1, run.sequentialSeconds);
  return { concurrent, sequential, items: itemSizes(bench.newCreateItems()) };
}

/** CPU time of the QR image a create renders (qrcode, PNG, 320 px), in this process: ms per image. */
export async function measureQrEncoding(bench: ChargeBench, images: number): Promise<number> {
  for (let i = 0; i < 10; i++) await bench.renderQr();
  const startedAt = process.cpuUsage();
  for (let i = 0; i < images; i++) await bench.renderQr();
  const { user, system } = process.cpuUsage(startedAt);
  return round((user + system) / 1000 / images, 2);
}

export interface CreateProbe {
  /** What was sent, and the DynamoDB calls of its request log line. */
  requests: { name: string; status: number; replayed: boolean; dynamodbCalls: number | undefined }[];
  /** Size of a create's JSON response (it carries the QR image as base64). */
  responseBytes: number;
}

/**
 * One at a time, each with its own `x-request-id` to find its log line: a new create, the same
 * key and body again (a replay), and a create with a customer document.
 */
export async function probeCreates(
  baseUrl: string,
  apiKey: string,
  runtime: BenchRuntime,
): Promise<CreateProbe> {
  const key = `bench-probe-${randomUUID()}`;
  const withDocument = { ...CREATE_BODY, customer: { name: 'Bench Customer', document: BENCH_CPF } };
  const probes = [
    { name: 'new create', key, body: CREATE_BODY },
    { name: 'replay (same key and body)', key, body: CREATE_BODY },
    { name: 'new create with customer.document', key: `${key}-doc`, body: withDocument },
  ];
  const sent: { name: string; requestId: string; status: number; replayed: boolean; bytes: number }[] = [];
  for (const probe of probes) {
    const requestId = `bench-${randomUUID()}`;
    const response = await fetch(`${baseUrl}/v1/charges`, {
      method: 'POST',
      headers: {
        apikey: apiKey,
        'content-type': 'application/json',
        'idempotency-key': probe.key,
        'x-request-id': requestId,
      },
      body: JSON.stringify(probe.body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    if (response.status !== 201)
      throw new Error(`POST /v1/charges (${probe.name}) answered ${response.status}: ${text}`);
    const replayed = response.headers.get('idempotent-replayed') === 'true';
    sent.push({
      name: probe.name,
      requestId,
      status: response.status,
      replayed,
      bytes: Buffer.byteLength(text),
    });
  }
  if (!sent[1]?.replayed || sent[0]?.replayed)
    throw new Error('the second create with the same key was not a replay');
  await runtime.settle();
  const callsOf = (requestId: string) =>
    runtime.requestLogs.find((log) => log.requestId === requestId)?.dynamodbCalls;
  return {
    requests: sent.map((s) => ({
      name: s.name,
      status: s.status,
      replayed: s.replayed,
      dynamodbCalls: callsOf(s.requestId),
    })),
    responseBytes: sent[0]?.bytes ?? 0,
  };
}
