/**
 * `npm run bench`: boots the service as a child process on its own ports, load-tests an
 * authenticated read and the charge create (beside the same DynamoDB transaction sent raw),
 * reports DynamoDB calls per request, the Lambda bundle sizes and their cold init, prints the
 * report and writes it to .bench/results.json. Fails (exit 1) on any non-2xx answer under load
 * or when the runtime does not start. See docs/benchmarks.md.
 *
 * `npm run bench -- --only webhooks` runs the webhook section alone (about 90 s, on a fresh
 * runtime as in the full run) and writes .bench/webhooks.json; `--only deliveries` the delivery
 * list and stats at 100 and 10 000 deliveries of a scope (delivery-queries.ts, about a minute)
 * and writes .bench/deliveries.json; `--only payments` the refunds and payment reads one at a
 * time (payments.ts, about 20 s) and the payment list at 100 and 10 000 payments of a scope
 * (payment-queries.ts), and writes .bench/payments.json; `--only stats` the stats and metrics at
 * 1 000 and 100 000 payments of a scope counted by the outbox into the day aggregates
 * (payment-stats.ts, several minutes: the stream counts 100 000 seeded payments first), and writes
 * .bench/stats.json; it fails when a p50 at 100 000 is over 1.5× the one at 1 000; `--only cost`
 * the DynamoDB capacity units of one charge's lifecycle (cost.ts, about 45 s), .bench/cost.json;
 * `--only cold` the cold init step alone (about 40 s on a quiet machine), .bench/cold.json.
 */

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Group, groups } from '../../shared/routes.ts';
import { type BundleInfo, bundleAll, lambdaBundling, unbenchedFunctions } from './bundle.ts';
import {
  CREATE_BODY,
  measureQrEncoding,
  measureRawTransactions,
  prepareChargeBench,
  probeCreates,
} from './charges.ts';
import { type ColdTarget, coldStartRequest, measureColdStarts } from './cold-start.ts';
import { type CostResults, costSection, measureCost } from './cost.ts';
import { cpuShares, sampleCpu, waitForQuietRuntime } from './cpu.ts';
import { type DeliveryQueryResults, measureDeliveryQueries } from './delivery-queries.ts';
import { callsPerRoute, measureDynamoDbRoundTrip, runDashboardPath } from './dynamodb-calls.ts';
import { assertAllOk, type LoadTarget, measureLoad, runLoad } from './load.ts';
import { measurePaymentQueries, type PaymentQueryResults } from './payment-queries.ts';
import { measurePaymentStats, type PaymentStatsResults, STATS_RATIO_GOAL } from './payment-stats.ts';
import { type PaymentProbeRow, probePayments } from './payments.ts';
import {
  type BenchResults,
  bundleSizes,
  coldSection,
  deliveryQuerySection,
  formatReport,
  machine,
  paymentQuerySection,
  paymentStatsSection,
  paymentsSection,
  webhookSection,
  writeResults,
} from './report.ts';
import { type BenchRuntime, benchSettings, repoRoot, startBenchRuntime } from './runtime.ts';
import { round } from './stats.ts';
import { measureWebhooks, type WebhookPlan, type WebhookResults } from './webhooks.ts';

const RESULTS_FILE = join(repoRoot, '.bench', 'results.json');
const WEBHOOK_RESULTS_FILE = join(repoRoot, '.bench', 'webhooks.json');
const DELIVERY_RESULTS_FILE = join(repoRoot, '.bench', 'deliveries.json');
const PAYMENT_RESULTS_FILE = join(repoRoot, '.bench', 'payments.json');
const STATS_RESULTS_FILE = join(repoRoot, '.bench', 'stats.json');
const COST_RESULTS_FILE = join(repoRoot, '.bench', 'cost.json');
const COLD_RESULTS_FILE = join(repoRoot, '.bench', 'cold.json');
/** Lifecycles the cost section averages over. */
const COST_CHARGES = 50;
/** `--only <section>`: the sections that can run alone (the others share one runtime, in order). */
const SECTIONS = ['webhooks', 'deliveries', 'payments', 'stats', 'cost', 'cold'] as const;
/** Concurrent: throughput and latency under load. Sequential: the latency of one request alone. */
const LOAD = { connections: 10, warmupSeconds: 2, durationSeconds: 10, sequentialSeconds: 5 } as const;
/** The raw DynamoDB baseline of the create: as many transactions in flight, as long. */
const RAW = {
  inFlight: LOAD.connections,
  warmupSeconds: LOAD.warmupSeconds,
  durationSeconds: LOAD.durationSeconds,
  sequentialSeconds: LOAD.sequentialSeconds,
} as const;
/** QR images rendered to time the one CPU-heavy step of a create. */
const QR_IMAGES = 50;
const COLD_RUNS = 5;
/**
 * Webhook latency at steady pay rates (open loop; the first run is a warm-up, dropped), then
 * the deliveries/s of the dispatchers draining a full queue. See test/bench/webhooks.ts.
 */
const WEBHOOKS: WebhookPlan = {
  // Ascending; the warm-up also warms DynamoDB Local's JIT (a cold JVM pays far slower).
  rates: [
    { perSecond: 50, seconds: 4, warmup: true },
    { perSecond: 25, seconds: 8 },
    { perSecond: 50, seconds: 10 },
    { perSecond: 100, seconds: 10 },
  ],
  // About what the fan-out enqueues while the receiver may hold its answers (< 30 s).
  burst: 800,
  burstInFlight: 10,
  deliveryWaitSeconds: 30,
  p99GoalMs: 1000,
};
const ROUND_TRIP_CALLS = 200;
/** The run takes about 7 minutes; past this something hangs, and the runtime must still be stopped. */
const WATCHDOG_MS = 720_000;
/** `--only stats` seeds 100 000 payments and waits for the stream to count them: far longer. */
const STATS_WATCHDOG_MS = 1_800_000;

let runtime: BenchRuntime | undefined;
/** A check failed after the report was written (it is still printed, with every figure). */
let failed = false;
/** Temp folders to remove however the run ends. */
const tempDirs: string[] = [];

async function cleanUp(): Promise<void> {
  await runtime?.stop();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
}

/** Progress goes to stderr so that stdout carries only the report. */
const step = (message: string) => console.error(`[bench] ${message}`);

async function abort(reason: string, code: number): Promise<never> {
  console.error(`[bench] ${reason}`);
  await cleanUp();
  process.exit(code);
}

const isGroup = (name: string): name is Group => (groups as readonly string[]).includes(name);

/** Every bundle, then the hot-path group again without source maps, to show what they cost at init. */
function coldTargets(bundles: readonly BundleInfo[], r: BenchRuntime): ColdTarget[] {
  const targets: ColdTarget[] = bundles.map((bundle) =>
    bundle.kind === 'api' && isGroup(bundle.name)
      ? { bundle, request: coldStartRequest(bundle.name, r.demo) }
      : { bundle },
  );
  const wallets = targets.find((t) => t.bundle.name === 'wallets');
  if (wallets) targets.push({ ...wallets, label: 'wallets, no source maps', sourceMaps: false });
  return targets;
}

/** Once the runtime is idle: every bundle's cold init in fresh processes, and the CPU meanwhile. */
async function measureCold(bundles: readonly BundleInfo[], r: BenchRuntime) {
  const coldStartQuietWait = await waitForQuietRuntime(r.pid);
  const targets = coldTargets(bundles, r);
  step(`cold starts: ${targets.length} targets × ${COLD_RUNS} fresh node processes`);
  const cpuBefore = sampleCpu(r.pid);
  const startedAt = performance.now();
  const coldStarts = await measureColdStarts(targets, r.settings, COLD_RUNS);
  const cpuAfter = sampleCpu(r.pid);
  const coldStartCpu =
    cpuBefore && cpuAfter
      ? cpuShares(cpuBefore, cpuAfter, (performance.now() - startedAt) / 1000, 1)
      : undefined;
  return { coldStarts, coldStartCpu, coldStartQuietWait };
}

/** Warm-up (dropped: it loads the handler, fills caches, lets V8 and the JVM's JIT settle), then the runs. */
async function loadTests(target: LoadTarget, r: BenchRuntime) {
  assertAllOk('warm-up', await runLoad(target, LOAD.connections, LOAD.warmupSeconds));
  const concurrent = await measureLoad(target, LOAD.connections, LOAD.durationSeconds, r);
  assertAllOk(`${LOAD.connections} connections`, concurrent);
  const sequential = await measureLoad(target, 1, LOAD.sequentialSeconds, r);
  assertAllOk('1 connection', sequential);
  return { method: target.method ?? 'GET', url: target.url, concurrent, sequential };
}

async function bench(workDir: string, dataDir: string): Promise<BenchResults> {
  const startedAt = performance.now();
  step('bundling the Lambda handlers');
  const bundles = await bundleAll(workDir);

  step('starting node bin/local.ts --in-memory');
  const settings = benchSettings(dataDir);
  const bootStartedAt = performance.now();
  runtime = await startBenchRuntime(settings);
  const runtimeBootMs = Math.round(performance.now() - bootStartedAt);

  step(
    `load test: ${LOAD.warmupSeconds} s warm-up, ${LOAD.durationSeconds} s at ${LOAD.connections} connections, ${LOAD.sequentialSeconds} s at 1`,
  );
  const url = `${settings.baseUrl}/v1/wallets/balance`;
  const load = await loadTests({ url, headers: { apikey: runtime.demo.test_api_key } }, runtime);

  step('dashboard path (login, list API keys) and DynamoDB Local round trips');
  await runDashboardPath(settings.baseUrl, runtime.demo);
  const dynamodbRoundTrip = await measureDynamoDbRoundTrip(
    `http://${settings.host}:${settings.dynamoDbPort}`,
    ROUND_TRIP_CALLS,
  );

  // Before the charge loads: their outbox events keep the runtime's stream poller busy for a
  // while after them, which would share the cores with the cold-start processes.
  const { coldStarts, coldStartCpu, coldStartQuietWait } = await measureCold(bundles, runtime);

  step(
    `charges: a bench account with high velocity limits, then POST /v1/charges: ${LOAD.warmupSeconds} s warm-up, ${LOAD.durationSeconds} s at ${LOAD.connections} connections, ${LOAD.sequentialSeconds} s at 1`,
  );
  const chargeBench = await prepareChargeBench(settings);
  const createLoad = await loadTests(
    {
      url: `${settings.baseUrl}/v1/charges`,
      method: 'POST',
      headers: { apikey: chargeBench.apiKey },
      body: CREATE_BODY,
      uniqueIdempotencyKey: true,
    },
    runtime,
  );
  // Before the probes: the table shows the load alone (a replay or a customer query would mix in).
  await runtime.settle();
  const dynamodbCalls = callsPerRoute(runtime.requestLogs);
  step('charges: create, replay and create with a customer document, one at a time');
  const createProbe = await probeCreates(settings.baseUrl, chargeBench.apiKey, runtime);
  step('payments: refunds and the reads around them, one at a time');
  const payments = await probePayments(settings.baseUrl, chargeBench.apiKey, runtime);
  step(
    `charges: the create's TransactWriteItems sent raw, ${RAW.warmupSeconds} s warm-up, ${RAW.durationSeconds} s with ${RAW.inFlight} in flight, ${RAW.sequentialSeconds} s with 1`,
  );
  const rawTransactions = await measureRawTransactions(chargeBench, runtime, RAW);
  const qrMsPerImage = await measureQrEncoding(chargeBench, QR_IMAGES);

  // A fresh runtime: the loads above leave their stream records (every item they wrote) for
  // the stream poller to work through, which would be measured instead of the webhooks.
  step('webhooks: restarting the runtime');
  await runtime.stop();
  runtime = await startBenchRuntime(settings);
  const webhooks = await measureWebhooks(runtime, WEBHOOKS, step);
  const deliveryQueries = await measureDeliveryQueries(runtime, step);
  const paymentQueries = await measurePaymentQueries(runtime, step);

  return {
    generatedAt: new Date().toISOString(),
    machine: machine(),
    runtimeBootMs,
    load,
    charges: {
      load: createLoad,
      raw: rawTransactions,
      createPerRawRatio: round(
        createLoad.concurrent.requestsPerSecond / rawTransactions.concurrent.transactionsPerSecond,
        2,
      ),
      probe: createProbe,
      qrMsPerImage,
    },
    dynamodbCalls,
    dynamodbRoundTrip,
    payments,
    bundling: lambdaBundling,
    bundles: bundleSizes(bundles),
    coldStarts,
    coldStartCpu,
    coldStartQuietWait,
    unbenchedFunctions: unbenchedFunctions(),
    webhooks,
    deliveryQueries,
    paymentQueries,
    totalSeconds: round((performance.now() - startedAt) / 1000),
  };
}

/** The webhook section alone, on its own runtime: what `--only webhooks` runs. */
async function benchWebhooks(
  dataDir: string,
): Promise<{ machine: ReturnType<typeof machine>; webhooks: WebhookResults }> {
  step('starting node bin/local.ts --in-memory');
  runtime = await startBenchRuntime(benchSettings(dataDir));
  return { machine: machine(), webhooks: await measureWebhooks(runtime, WEBHOOKS, step) };
}

function onlySection(argv: readonly string[]): (typeof SECTIONS)[number] | undefined {
  const at = argv.indexOf('--only');
  if (at === -1) return undefined;
  const name = argv[at + 1];
  const section = SECTIONS.find((s) => s === name);
  if (!section) throw new Error(`--only takes one of: ${SECTIONS.join(', ')} (got ${name ?? 'nothing'})`);
  return section;
}

/** Prints the report, writes its figures to `file`, and names the webhook failures (they fail the run). */
function publish(
  file: string,
  report: string,
  results: { generatedAt: string; webhooks?: WebhookResults },
): void {
  console.log(report);
  writeResults(file, results);
  step(`results written to ${file}`);
  const failures = results.webhooks?.failures ?? [];
  for (const failure of failures) step(`FAILED (webhooks): ${failure}`);
  failed = failures.length > 0;
}

/** The delivery list and stats section alone, on its own runtime: what `--only deliveries` runs. */
async function benchDeliveries(
  dataDir: string,
): Promise<{ machine: ReturnType<typeof machine>; deliveryQueries: DeliveryQueryResults }> {
  step('starting node bin/local.ts --in-memory');
  runtime = await startBenchRuntime(benchSettings(dataDir));
  return { machine: machine(), deliveryQueries: await measureDeliveryQueries(runtime, step) };
}

/** The payments sections alone, on their own runtime: what `--only payments` runs. */
async function benchPayments(dataDir: string): Promise<{
  machine: ReturnType<typeof machine>;
  payments: PaymentProbeRow[];
  paymentQueries: PaymentQueryResults;
}> {
  step('starting node bin/local.ts --in-memory');
  const settings = benchSettings(dataDir);
  runtime = await startBenchRuntime(settings);
  const chargeBench = await prepareChargeBench(settings);
  step('payments: refunds and the reads around them, one at a time');
  const payments = await probePayments(settings.baseUrl, chargeBench.apiKey, runtime);
  return { machine: machine(), payments, paymentQueries: await measurePaymentQueries(runtime, step) };
}

/** The cost section alone, on its own runtime logging its background invocations: `--only cost`. */
async function benchCost(
  dataDir: string,
): Promise<{ machine: ReturnType<typeof machine>; cost: CostResults }> {
  step('starting node bin/local.ts --in-memory (LOG_LEVEL=debug: background invocations)');
  runtime = await startBenchRuntime(benchSettings(dataDir), { logLevel: 'debug' });
  return { machine: machine(), cost: await measureCost(runtime, COST_CHARGES, step) };
}

/** Stats and metrics at 1 k and 100 k payments alone, on their own runtime: what `--only stats` runs. */
async function benchStats(
  dataDir: string,
): Promise<{ machine: ReturnType<typeof machine>; paymentStats: PaymentStatsResults }> {
  step('starting node bin/local.ts --in-memory');
  runtime = await startBenchRuntime(benchSettings(dataDir));
  const seedAggregates = process.argv.includes('--seed-aggregates');
  return { machine: machine(), paymentStats: await measurePaymentStats(runtime, step, seedAggregates) };
}

/**
 * One section alone, on its own fresh runtime (`--only`): its report printed and its figures
 * written to `file`; `failures` (besides the webhooks') fail the run after the report.
 */
async function runAlone<R extends { machine: ReturnType<typeof machine>; webhooks?: WebhookResults }>(
  title: string,
  file: string,
  bench: (dataDir: string) => Promise<R>,
  sections: (results: R) => string[],
  failures: (results: R) => string[] = () => [],
): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pix-bench-data-'));
  tempDirs.push(dataDir);
  try {
    const results = { generatedAt: new Date().toISOString(), ...(await bench(dataDir)) };
    const m = results.machine;
    const report = [
      `Pix service benchmark (${title}), ${results.generatedAt}`,
      `${m.cpuModel}, ${m.cpus} CPUs, ${m.memoryGiB} GiB, node ${m.node} (${m.platform})`,
      '',
      ...sections(results),
    ].join('\n');
    publish(file, report, results);
    const more = failures(results);
    for (const failure of more) step(`FAILED (${failure})`);
    failed ||= more.length > 0;
  } finally {
    await cleanUp();
  }
}

/**
 * Bundled as deployed, nothing else can be imported beside them: a temp dir outside the
 * repository, unless modules are left external, which then resolve from node_modules as they
 * would from the Lambda runtime (.bench/ is gitignored).
 */
function bundleWorkDir(): string {
  const bundleParent = lambdaBundling.externalModules.length > 0 ? join(repoRoot, '.bench') : tmpdir();
  mkdirSync(bundleParent, { recursive: true });
  const workDir = mkdtempSync(join(bundleParent, 'pix-bench-bundles-'));
  tempDirs.push(workDir);
  return workDir;
}

/** The cold init step alone (bundles, then fresh processes against an idle runtime): `--only cold`. */
async function benchCold(dataDir: string) {
  step('bundling the Lambda handlers');
  const bundles = await bundleAll(bundleWorkDir());
  step('starting node bin/local.ts --in-memory');
  runtime = await startBenchRuntime(benchSettings(dataDir));
  return { machine: machine(), bundles: bundleSizes(bundles), ...(await measureCold(bundles, runtime)) };
}

async function main(): Promise<void> {
  const only = onlySection(process.argv.slice(2));
  const watchdogMs = only === 'stats' ? STATS_WATCHDOG_MS : WATCHDOG_MS;
  setTimeout(() => void abort(`gave up after ${watchdogMs / 1000} s`, 1), watchdogMs).unref();
  // The runtime runs in its own process group: Ctrl-C reaches only us, so we stop it.
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => void abort(`${signal}: stopping`, 130));

  if (only === 'webhooks')
    return runAlone('webhooks only', WEBHOOK_RESULTS_FILE, benchWebhooks, (r) => [
      webhookSection(r.webhooks),
    ]);
  if (only === 'deliveries')
    return runAlone('delivery list and stats only', DELIVERY_RESULTS_FILE, benchDeliveries, (r) => [
      deliveryQuerySection(r.deliveryQueries),
    ]);
  if (only === 'cost')
    return runAlone('cost per charge only', COST_RESULTS_FILE, benchCost, (r) => [costSection(r.cost)]);
  if (only === 'cold')
    return runAlone('cold init only', COLD_RESULTS_FILE, benchCold, (r) => [coldSection(r)]);
  if (only === 'payments')
    return runAlone('payments only', PAYMENT_RESULTS_FILE, benchPayments, (r) => [
      paymentsSection(r.payments),
      '',
      paymentQuerySection(r.paymentQueries),
    ]);
  if (only === 'stats')
    return runAlone(
      'stats and metrics only',
      STATS_RESULTS_FILE,
      benchStats,
      (r) => [paymentStatsSection(r.paymentStats)],
      (r) =>
        r.paymentStats.queries
          .filter((q) => q.p50Ratio > r.paymentStats.ratioGoal)
          .map((q) => `stats: ${q.label} p50 ratio ${q.p50Ratio}× > ${STATS_RATIO_GOAL}×`),
    );
  const workDir = bundleWorkDir();
  const dataDir = mkdtempSync(join(tmpdir(), 'pix-bench-data-'));
  tempDirs.push(dataDir);
  try {
    const results = await bench(workDir, dataDir);
    publish(RESULTS_FILE, formatReport(results), results);
  } finally {
    await cleanUp();
  }
}

/** On macOS a piped stdout is asynchronous: let the report reach the pipe before exiting. */
const flushStdout = () => new Promise<void>((resolve) => process.stdout.write('', () => resolve()));

try {
  await main();
  await flushStdout();
  // Explicit: keep-alive sockets of fetch and the SDK would otherwise hold the process a while.
  process.exit(failed ? 1 : 0);
} catch (error) {
  console.error(`[bench] FAILED: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
