/** The benchmark report: a readable text for the terminal and the same figures as JSON. */

import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, totalmem } from 'node:os';
import { dirname } from 'node:path';
import { type BundleInfo, lambdaBundling } from './bundle.ts';
import type { ColdStartResult } from './cold-start.ts';
import { OTHERS } from './cpu.ts';
import type { RoundTrip, RouteCalls } from './dynamodb-calls.ts';
import type { MeasuredLoad } from './load.ts';
import { round } from './stats.ts';

export interface Machine {
  cpuModel: string;
  cpus: number;
  memoryGiB: number;
  node: string;
  platform: string;
}

export interface BenchResults {
  generatedAt: string;
  machine: Machine;
  runtimeBootMs: number;
  load: { url: string; concurrent: MeasuredLoad; sequential: MeasuredLoad };
  dynamodbCalls: RouteCalls[];
  dynamodbRoundTrip: RoundTrip;
  /** The options the bundles were built with (a copy of ServiceFunction's). */
  bundling: typeof lambdaBundling;
  bundles: { name: string; kb: number; gzipKb: number; sourceMapKb: number }[];
  coldStarts: ColdStartResult[];
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

function interference(runs: readonly MeasuredLoad[]): string | undefined {
  const worst = Math.max(...runs.map((r) => r.cpu?.find((c) => c.process === OTHERS)?.cores ?? 0));
  return worst > INTERFERENCE_CORES
    ? `  WARNING: other processes kept ${worst} cores busy during the load test: these figures are disturbed, run again on a quiet machine.`
    : undefined;
}

/** Per process: cores kept busy and CPU ms per request, in each run. */
function cpuTable(runs: readonly MeasuredLoad[]): string | undefined {
  const [first] = runs;
  if (!first?.cpu) return undefined;
  const header = [
    'CPU by process',
    ...runs.flatMap((r) => [`cores @${r.connections}`, `ms/req @${r.connections}`]),
  ];
  const rows = first.cpu.map((share) => [
    share.process,
    ...runs.flatMap((r) => {
      const same = r.cpu?.find((c) => c.process === share.process);
      return [same?.cores, same?.cpuMsPerRequest];
    }),
  ]);
  return table(header, rows);
}

function loadSection(load: BenchResults['load']): string {
  const runs = [load.concurrent, load.sequential];
  return [
    `HTTP load: GET ${new URL(load.url).pathname} with the test API key, after a warm-up (latencies in ms, handler = time inside the Lambda handler)`,
    loadTable(runs),
    cpuTable(runs),
    interference(runs),
  ]
    .filter((part) => part !== undefined)
    .join('\n');
}

function callsSection(routes: readonly RouteCalls[], rtt: RoundTrip): string {
  const rows = routes.map((r) => [
    r.routeKey,
    r.requests,
    r.dynamodbCalls.mean,
    r.dynamodbCalls.min,
    r.dynamodbCalls.max,
    r.handlerMs.p50,
    Object.entries(r.statuses)
      .map(([status, count]) => `${status}×${count}`)
      .join(' '),
  ]);
  return [
    'DynamoDB calls per request (runtime request log)',
    table(['route', 'requests', 'mean', 'min', 'max', 'handler p50 ms (all runs)', 'statuses'], rows),
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

function coldSection(cold: readonly ColdStartResult[]): string {
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
    `Cold init in a fresh node process (median of ${cold[0]?.runs ?? 0} runs)`,
    table(
      ['target', 'first request', 'status', 'DDB calls', 'import ms', 'first invoke ms', 'total ms'],
      rows,
    ),
    ...cold.flatMap((c) => (c.warning ? [`  WARNING: ${c.warning}`] : [])),
  ].join('\n');
}

export function formatReport(r: BenchResults): string {
  const m = r.machine;
  return [
    `Pix service benchmark, ${r.generatedAt}`,
    `${m.cpuModel}, ${m.cpus} CPUs, ${m.memoryGiB} GiB, node ${m.node} (${m.platform}); runtime booted in ${r.runtimeBootMs} ms`,
    '',
    loadSection(r.load),
    '',
    callsSection(r.dynamodbCalls, r.dynamodbRoundTrip),
    '',
    bundleSection(r.bundles),
    '',
    coldSection(r.coldStarts),
    '',
    `Total ${r.totalSeconds} s`,
  ].join('\n');
}

export function writeResults(file: string, results: BenchResults): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
}
