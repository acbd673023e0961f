/** The benchmark report: a readable text for the terminal and the same figures as JSON. */

import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, totalmem } from 'node:os';
import { dirname } from 'node:path';
import { type BundleInfo, lambdaBundling } from './bundle.ts';
import { CREATE_BODY, type CreateProbe, type RawTransactResult } from './charges.ts';
import type { ColdStartResult } from './cold-start.ts';
import { type CpuShare, OTHERS } from './cpu.ts';
import type { DeliveryQueryResults } from './delivery-queries.ts';
import type { RoundTrip, RouteCalls } from './dynamodb-calls.ts';
import type { MeasuredLoad } from './load.ts';
import type { PaymentQueryResults } from './payment-queries.ts';
import type { PaymentStatsResults } from './payment-stats.ts';
import type { PaymentProbeRow } from './payments.ts';
import { round } from './stats.ts';
import type { Percentiles, RateRun, WebhookResults } from './webhooks.ts';

export interface Machine {
  cpuModel: string;
  cpus: number;
  memoryGiB: number;
  node: string;
  platform: string;
}

/** One route under load: many connections, then one. */
export interface LoadRuns {
  method: string;
  url: string;
  concurrent: MeasuredLoad;
  sequential: MeasuredLoad;
}

export interface BenchResults {
  generatedAt: string;
  machine: Machine;
  runtimeBootMs: number;
  load: LoadRuns;
  charges: {
    load: LoadRuns;
    /** The create's TransactWriteItems sent straight to DynamoDB Local. */
    raw: RawTransactResult;
    /** Creates per second over raw transactions per second, both at the same concurrency. */
    createPerRawRatio: number;
    probe: CreateProbe;
    /** CPU ms to render one create's QR image. */
    qrMsPerImage: number;
  };
  /** Of the loads (wallet read, charge create) alone: the probes are in `charges.probe`. */
  dynamodbCalls: RouteCalls[];
  dynamodbRoundTrip: RoundTrip;
  /** Refunds and payment reads, one at a time. */
  payments: PaymentProbeRow[];
  /** The options the bundles were built with (a copy of ServiceFunction's). */
  bundling: typeof lambdaBundling;
  bundles: { name: string; kb: number; gzipKb: number; sourceMapKb: number }[];
  coldStarts: ColdStartResult[];
  /** CPU by process while the cold starts ran (one after the other): "others" flags a busy machine. */
  coldStartCpu: CpuShare[] | undefined;
  /** How long the bench waited for the runtime to go idle before the cold starts. */
  coldStartQuietWait: { waitedSeconds: number; runtimeCores: number } | undefined;
  /** functions/ folders the bench neither bundles nor starts (see BACKGROUND_FUNCTIONS). */
  unbenchedFunctions: string[];
  /** On a fresh runtime, after everything else. */
  webhooks: WebhookResults;
  /** On the webhook section's runtime, after it. */
  deliveryQueries: DeliveryQueryResults;
  /** On the same runtime, after the delivery queries. */
  paymentQueries: PaymentQueryResults;
  totalSeconds: number;
}

export const machine = (): Machine => ({
  cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
  cpus: availableParallelism(),
  memoryGiB: round(totalmem() / 2 ** 30),
  node: process.version,
  platform: `${process.platform} ${process.arch}`,
});

const kb = (bytes: number) => round(bytes / 1024);

export const bundleSizes = (bundles: readonly BundleInfo[]) =>
  bundles.map((b) => ({
    name: b.name,
    kb: kb(b.bytes),
    gzipKb: kb(b.gzipBytes),
    sourceMapKb: kb(b.sourceMapBytes),
  }));

/** Left-aligned first column, right-aligned numbers. */
function table(
  header: readonly string[],
  rows: readonly (readonly (string | number | undefined)[])[],
): string {
  const cells = [header, ...rows].map((row) => row.map((cell) => (cell === undefined ? '-' : String(cell))));
  const widths = header.map((_, i) => Math.max(...cells.map((row) => row[i]?.length ?? 0)));
  const line = (row: readonly string[]) =>
    row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ');
  return cells.map((row) => `  ${line(row)}`).join('\n');
}

function loadTable(runs: readonly MeasuredLoad[]): string {
  const header = [
    'connections',
    'req/s',
    'requests',
    'p50 ms',
    'p90 ms',
    'p99 ms',
    'max ms',
    'handler p50',
    'handler p90',
    'non-2xx',
    'errors',
  ];
  const rows = runs.map((r) => [
    `${r.connections} for ${r.durationSeconds} s`,
    r.requestsPerSecond,
    r.requests,
    r.latencyMs.p50,
    r.latencyMs.p90,
    r.latencyMs.p99,
    r.latencyMs.max,
    r.handlerMs.p50,
    r.handlerMs.p90,
    r.non2xx,
    r.errors + r.timeouts,
  ]);
  return table(header, rows);
}

/** Other processes busy on the machine make every figure of the run pessimistic: say so. */
const INTERFERENCE_CORES = 0.2;

interface CpuColumn {
  label: string;
  cpu: CpuShare[] | undefined;
}

const columnsOf = (runs: readonly MeasuredLoad[]): CpuColumn[] =>
  runs.map((r) => ({ label: `@${r.connections}`, cpu: r.cpu }));

function interference(columns: readonly CpuColumn[]): string | undefined {
  const worst = Math.max(...columns.map((c) => c.cpu?.find((s) => s.process === OTHERS)?.cores ?? 0));
  return worst > INTERFERENCE_CORES
    ? `  WARNING: other processes kept ${worst} cores busy during the load test: these figures are disturbed, run again on a quiet machine.`
    : undefined;
}

/** Per process: cores kept busy and CPU ms per request (or transaction), in each run. */
function cpuTable(columns: readonly CpuColumn[]): string | undefined {
  const first = columns.find((c) => c.cpu)?.cpu;
  if (!first) return undefined;
  const header = ['CPU by process', ...columns.flatMap((c) => [`cores ${c.label}`, `ms/req ${c.label}`])];
  const rows = first.map((share) => [
    share.process,
    ...columns.flatMap((c) => {
      const same = c.cpu?.find((s) => s.process === share.process);
      return [same?.cores, same?.cpuMsPerRequest];
    }),
  ]);
  return table(header, rows);
}

function loadSection(load: LoadRuns, what: string): string {
  const runs = [load.concurrent, load.sequential];
  return [
    `HTTP load: ${load.method} ${new URL(load.url).pathname} ${what}, after a warm-up (latencies in ms, handler = time inside the Lambda handler)`,
    loadTable(runs),
    cpuTable(columnsOf(runs)),
    interference(columnsOf(runs)),
  ]
    .filter((part) => part !== undefined)
    .join('\n');
}

function rawSection(raw: RawTransactResult): string {
  const kb = (bytes: number) => round(bytes / 1024, 2);
  const total = raw.items.reduce((sum, item) => sum + item.bytes, 0);
  const runs = [raw.concurrent, raw.sequential];
  const rows = runs.map((r) => [
    `${r.inFlight} for ${r.durationSeconds} s`,
    r.transactionsPerSecond,
    r.transactions,
    r.latencyMs.p50,
    r.latencyMs.p90,
    r.latencyMs.p99,
    r.latencyMs.max,
    Object.entries(r.errors)
      .map(([name, count]) => `${name}×${count}`)
      .join(' ') || 0,
  ]);
  const columns = runs.map((r) => ({ label: `@${r.inFlight}`, cpu: r.cpu }));
  return [
    `Raw DynamoDB Local TransactWriteItems of a create's ${raw.items.length} items, built by the service's own functions, sent from the bench process with the service's document client (latencies in ms)`,
    `  items as JSON: ${raw.items.map((i) => `${i.kind} ${kb(i.bytes)}`).join(', ')} KB; ${kb(total)} KB in all`,
    table(['in flight', 'tx/s', 'transactions', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'errors'], rows),
    cpuTable(columns),
    interference(columns),
  ]
    .filter((part) => part !== undefined)
    .join('\n');
}

function chargesSection(charges: BenchResults['charges']): string {
  const { probe, raw } = charges;
  return [
    loadSection(
      charges.load,
      `${JSON.stringify(CREATE_BODY)} with a new Idempotency-Key per request (each one a new charge)`,
    ),
    '',
    rawSection(raw),
    '',
    `  create / raw transaction at ${raw.concurrent.inFlight} in flight: ${charges.load.concurrent.requestsPerSecond} / ${raw.concurrent.transactionsPerSecond} = ${charges.createPerRawRatio} (goal >= 0.5)`,
    `  QR image of a create (qrcode, PNG 320 px, base64), rendered in the bench process: ${charges.qrMsPerImage} ms CPU each`,
    '',
    'DynamoDB calls of single creates, one at a time (request log; auth included)',
    table(
      ['request', 'status', 'replayed', 'DDB calls'],
      probe.requests.map((r) => [r.name, r.status, r.replayed ? 'yes' : 'no', r.dynamodbCalls]),
    ),
    `  a create's response: ${round(probe.responseBytes / 1024, 2)} KB`,
    '  sequential DynamoDB round trips, by construction (create-charge.ts, authenticate.ts), not measured:',
    '    auth: GetItem (key) -> UpdateItem (rate counter) || GetItem (account, cached 60 s) = 2',
    '    new create after auth: BatchGetItem || Query and GetItem of the guard (only with a customer) -> TransactWriteItems = 2',
    '    replay after auth: BatchGetItem = 1',
  ].join('\n');
}

function callsSection(routes: readonly RouteCalls[], rtt: RoundTrip): string {
  const rows = routes.map((r) => [
    r.routeKey,
    r.requests,
    r.dynamodbCalls.mean,
    r.dynamodbCalls.min,
    r.dynamodbCalls.max,
    r.dynamodbRoundTrips.mean,
    r.handlerMs.p50,
    Object.entries(r.statuses)
      .map(([status, count]) => `${status}×${count}`)
      .join(' '),
  ]);
  return [
    'DynamoDB calls per request (runtime request log)',
    table(
      [
        'route',
        'requests',
        'mean',
        'min',
        'max',
        'round trips (mean)',
        'handler p50 ms (all runs)',
        'statuses',
      ],
      rows,
    ),
    `  one DynamoDB Local round trip (GetItem, sequential, ${rtt.calls} calls): p50 ${rtt.p50Ms} ms, p90 ${rtt.p90Ms} ms`,
  ].join('\n');
}

function bundleSection(bundles: BenchResults['bundles']): string {
  const rows = bundles.map((b) => [b.name, b.kb, b.gzipKb, b.sourceMapKb]);
  return [
    `Lambda bundles (esbuild with the ServiceFunction options; external: ${lambdaBundling.externalModules.join(', ') || 'none, AWS SDK bundled'})`,
    table(['bundle', 'minified KB', 'gzip KB', 'source map KB'], rows),
  ].join('\n');
}

export function coldSection(
  r: Pick<BenchResults, 'coldStarts' | 'coldStartCpu' | 'coldStartQuietWait'>,
): string {
  const { coldStarts: cold, coldStartCpu: cpu, coldStartQuietWait: quiet } = r;
  const rows = cold.map((c) => [
    c.name,
    c.route,
    c.status,
    c.dynamodbCalls,
    c.medianImportMs,
    c.medianInvokeMs,
    c.medianInitPlusInvokeMs,
  ]);
  return [
    `Cold init in a fresh node process (median of ${cold[0]?.runs ?? 0} runs), against the runtime's DynamoDB Local${quiet ? ` once the runtime was idle (after ${quiet.waitedSeconds} s: ${quiet.runtimeCores} cores)` : ''}`,
    table(
      ['target', 'first request', 'status', 'DDB calls', 'import ms', 'first invoke ms', 'total ms'],
      rows,
    ),
    ...cold.flatMap((c) => (c.warning ? [`  WARNING: ${c.warning}`] : [])),
    interference([{ label: 'cold starts', cpu }])?.replace('the load test', 'the cold starts'),
  ]
    .filter((part) => part !== undefined)
    .join('\n');
}

const p3 = (p: Percentiles) => (p.count === 0 ? '-' : `${p.p50} / ${p.p90} / ${p.p99}`);
const rateLabel = (run: RateRun) => `${run.targetPerSecond}/s for ${run.targetSeconds} s`;

export function webhookSection(w: WebhookResults): string {
  const runs = w.runs;
  const { burst } = w;
  const rows = runs.map((run) => [
    rateLabel(run),
    run.sentPerSecond,
    run.maxSendSlipMs,
    `${run.paysOk}/${run.paysSent}`,
    run.delivered,
    run.deliveredPerSecond,
    run.endToEndMs.p50,
    run.endToEndMs.p90,
    run.endToEndMs.p99,
    run.endToEndMs.max,
    run.goalMet ? 'yes' : 'NO',
  ]);
  const stages: [string, (run: RateRun) => Percentiles][] = [
    ['pay request: sent -> response', (run) => run.payMs],
    ['   of which in the pay handler', (run) => run.payHandlerMs],
    ['1. sent -> event created_at (API, auth, charge read)', (run) => run.stagesMs.toEvent],
    ['2. event -> delivery createdAt (commit, stream poll, fan-out)', (run) => run.stagesMs.eventToDelivery],
    ['   of which pay response -> delivery createdAt', (run) => run.stagesMs.responseToDelivery],
    ['3. delivery createdAt -> enqueuedAt (SQS send)', (run) => run.stagesMs.deliveryToEnqueued],
    ['4. enqueuedAt -> received (queue wait, dispatch, POST)', (run) => run.stagesMs.enqueuedToReceived],
    ['end to end: sent -> received', (run) => run.endToEndMs],
  ];
  const columns = runs.map((run) => ({ label: `@${run.targetPerSecond}/s`, cpu: run.cpu }));
  return [
    `Webhooks: ${w.event} after POST /v1/sandbox/charges/{id}/pay, to a receiver on 127.0.0.1 (200 at once, checks each signature); fresh runtime, stream poller every 200 ms when idle, 4 dispatcher pollers`,
    table(
      [
        'pays (open loop)',
        'sent/s',
        'max slip ms',
        'paid',
        'delivered',
        'delivered/s',
        'p50 ms',
        'p90 ms',
        'p99 ms',
        'max ms',
        'p99 <= 1 s',
      ],
      rows,
    ),
    table(
      ['stage, p50 / p90 / p99 ms', ...runs.map(rateLabel)],
      stages.map(([label, of]) => [label, ...runs.map((run) => p3(of(run)))]),
    ),
    `  DynamoDB calls per pay (request log, auth included): ${runs.map((run) => run.payDynamodbCalls).join(' / ')}`,
    cpuTable(columns),
    interference(columns),
    `  burst: ${burst.charges} charges paid at ${burst.inFlight} in flight, ${burst.paysPerSecond} pays/s; fan-out ${burst.fanOutPerSecond} deliveries/s (stream poller, receiver holding its answers)`,
    `  queue drain: ${burst.enqueuedAtRelease} deliveries enqueued when the receiver answered again (after ${round(burst.heldMs / 1000)} s, ${burst.heldRequests} requests held): ${burst.deliveredPerSecond} deliveries/s (5th-95th percentile), ${burst.deliveredPerSecondOverall}/s overall, ${burst.delivered} delivered in ${burst.drainSeconds} s`,
    cpuTable([{ label: 'drain', cpu: burst.cpu }]),
    `  receiver: ${w.receiverRequests} requests, ${w.badSignatures} bad signatures, ${w.duplicates} duplicates, ${w.malformed} malformed; ${w.totalSeconds} s in all`,
    ...w.failures.map((f) => `  FAILED: ${f}`),
  ]
    .filter((part) => part !== undefined)
    .join('\n');
}

const count = (n: number) => n.toLocaleString('en-US');

export function paymentsSection(rows: readonly PaymentProbeRow[]): string {
  return [
    'Payments, one request at a time (runtime request log; round trips: sequential DynamoDB calls, calls made together count once; auth included)',
    table(
      ['request', 'requests', 'status', 'DynamoDB calls', 'round trips', 'handler p50 ms'],
      rows.map((r) => [r.name, r.requests, r.status, r.dynamodbCalls, r.roundTrips, r.handlerMsP50]),
    ),
  ].join('\n');
}

export function deliveryQuerySection(d: DeliveryQueryResults): string {
  const sizes = d.sizes.map(count);
  return [
    `Delivery list and stats at ${sizes.join(' and ')} deliveries of one scope (seeded in ${d.seedSeconds.join(' / ')} s; ${d.samples} requests each, sequential, the scopes alternating): client p50 / p90 / p99 ms, DynamoDB calls (auth included), handler p50 ms, deliveries on the page, total`,
    table(
      [
        'request',
        ...d.sizes.flatMap((size) => [`@${count(size)} p50/p90/p99`, 'calls', 'handler', 'rows', 'total']),
      ],
      d.queries.map((q) => [
        q.label,
        ...q.bySize.flatMap((f) => [
          `${f.p50} / ${f.p90} / ${f.p99}`,
          f.dynamodbCalls,
          f.handlerP50,
          f.returned,
          f.total,
        ]),
      ]),
    ),
    `  before (every delivery of the scope read per request, status only): ${d.readAll
      .map((r) => `${count(r.items)} items p50 ${r.p50} ms, p99 ${r.p99} ms`)
      .join('; ')}`,
  ].join('\n');
}

export function paymentQuerySection(p: PaymentQueryResults): string {
  const sizes = p.sizes.map(count);
  return [
    `Payment list at ${sizes.join(' and ')} payments of one scope over a week (seeded in ${p.seedSeconds.join(' / ')} s, counted from the stream in ${p.countedSeconds.join(' / ')} s; ${p.samples} requests each, sequential, the scopes alternating): client p50 / p90 / p99 ms, DynamoDB calls and sequential round trips (auth included), handler p50 ms, payments on the page, total`,
    table(
      [
        'request',
        ...p.sizes.flatMap((size) => [
          `@${count(size)} p50/p90/p99`,
          'calls',
          'trips',
          'handler',
          'rows',
          'total',
        ]),
      ],
      p.queries.map((q) => [
        q.label,
        ...q.bySize.flatMap((f) => [
          `${f.p50} / ${f.p90} / ${f.p99}`,
          f.dynamodbCalls,
          f.roundTrips ?? '-',
          f.handlerP50,
          f.returned,
          f.total,
        ]),
      ]),
    ),
    `  without counters (a COUNT query of every payment of the scope per request): ${p.countAll
      .map((r) => `${count(r.items)} items p50 ${r.p50} ms, p99 ${r.p99} ms`)
      .join('; ')}`,
  ].join('\n');
}

export function paymentStatsSection(p: PaymentStatsResults): string {
  const sizes = p.sizes.map(count);
  return [
    `Stats and metrics at ${sizes.join(' and ')} payments of one scope over 30 days (${p.seededAggregates ? 'their day aggregates written as the stream would' : 'seeded'} in ${p.seedSeconds.join(' / ')} s, ${p.seededAggregates ? 'read back' : 'counted from the stream into the day aggregates'} in ${p.countedSeconds.join(' / ')} s; sequential, the scopes alternating): client p50 / p90 / p99 ms, DynamoDB calls (auth included), handler p50 ms, and the p50 ratio (goal at most ${p.ratioGoal}×)`,
    table(
      [
        'request',
        ...p.sizes.flatMap((size) => [`@${count(size)} p50/p90/p99`, 'calls', 'handler']),
        'p50 ratio',
      ],
      p.queries.map((q) => [
        q.label,
        ...q.bySize.flatMap((f) => [`${f.p50} / ${f.p90} / ${f.p99}`, f.dynamodbCalls, f.handlerP50]),
        `${q.p50Ratio}×`,
      ]),
    ),
  ].join('\n');
}

export function formatReport(r: BenchResults): string {
  const m = r.machine;
  return [
    `Pix service benchmark, ${r.generatedAt}`,
    `${m.cpuModel}, ${m.cpus} CPUs, ${m.memoryGiB} GiB, node ${m.node} (${m.platform}); runtime booted in ${r.runtimeBootMs} ms`,
    '',
    loadSection(r.load, 'with the test API key'),
    '',
    chargesSection(r.charges),
    '',
    callsSection(r.dynamodbCalls, r.dynamodbRoundTrip),
    '',
    bundleSection(r.bundles),
    '',
    coldSection(r),
    ...(r.unbenchedFunctions.length > 0
      ? [
          `  WARNING: functions/ ${r.unbenchedFunctions.join(', ')}: neither an API group nor in BACKGROUND_FUNCTIONS (test/bench/bundle.ts), not measured`,
        ]
      : []),
    '',
    webhookSection(r.webhooks),
    '',
    deliveryQuerySection(r.deliveryQueries),
    '',
    paymentsSection(r.payments),
    paymentQuerySection(r.paymentQueries),
    '',
    `Total ${r.totalSeconds} s`,
  ].join('\n');
}

export function writeResults(file: string, results: object): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
}
