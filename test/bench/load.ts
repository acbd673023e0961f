/** The HTTP load tests: autocannon against an authenticated route of the bench runtime. */

import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import { type CpuShare, cpuShares, sampleCpu } from './cpu.ts';
import type { BenchRuntime } from './runtime.ts';
import { percentile, round } from './stats.ts';

export interface LoadTarget {
  url: string;
  /** @default 'GET' */
  method?: 'GET' | 'POST';
  headers: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  /** A fresh `Idempotency-Key` on every request: each one is a new create, never a replay. */
  uniqueIdempotencyKey?: boolean;
}

export interface LoadResult {
  connections: number;
  durationSeconds: number;
  requests: number;
  requestsPerSecond: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
}

export interface MeasuredLoad extends LoadResult {
  /** Time inside the handler (the runtime's `durationMs`), i.e. without HTTP and queueing in front of it. */
  handlerMs: { p50: number; p90: number };
  /** CPU used during the run, per process; absent where /proc is not available. */
  cpu: CpuShare[] | undefined;
}

/** `connections` keep one request in flight each, for `seconds`. */
export async function runLoad(target: LoadTarget, connections: number, seconds: number): Promise<LoadResult> {
  const body = target.body === undefined ? undefined : JSON.stringify(target.body);
  const headers = { ...target.headers, ...(body !== undefined && { 'content-type': 'application/json' }) };
  const r = await autocannon({
    url: target.url,
    method: target.method ?? 'GET',
    headers,
    ...(body !== undefined && { body }),
    // setupRequest runs before every request: the key is a UUID, 41 characters with its prefix.
    ...(target.uniqueIdempotencyKey && {
      requests: [
        {
          setupRequest: (request) => ({
            ...request,
            headers: { ...request.headers, 'idempotency-key': `bench-${randomUUID()}` },
          }),
        },
      ],
    }),
    connections,
    duration: seconds,
    // Seconds per request: a stuck server shows up as timeouts, not as a hung bench.
    timeout: 10,
  });
  return {
    connections,
    durationSeconds: r.duration,
    requests: r.requests.total,
    requestsPerSecond: round(r.requests.average),
    latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max },
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    statusCodes: Object.fromEntries(
      Object.entries(r.statusCodeStats ?? {}).map(([status, stats]) => [status, stats.count ?? 0]),
    ),
  };
}

/** A run, with the handler time from the runtime's log lines and the CPU each process used meanwhile. */
export async function measureLoad(
  target: LoadTarget,
  connections: number,
  seconds: number,
  runtime: BenchRuntime,
): Promise<MeasuredLoad> {
  const before = sampleCpu(runtime.pid);
  const firstLog = runtime.requestLogs.length;
  const result = await runLoad(target, connections, seconds);
  const after = sampleCpu(runtime.pid);
  await runtime.settle();
  const durations = runtime.requestLogs.slice(firstLog).map((log) => log.durationMs);
  return {
    ...result,
    handlerMs: { p50: percentile(durations, 50), p90: percentile(durations, 90) },
    cpu: before && after ? cpuShares(before, after, result.durationSeconds, result.requests) : undefined,
  };
}

/** Any failed request makes the figures describe something else than the route: the bench fails. */
export function assertAllOk(name: string, r: LoadResult): void {
  if (r.non2xx + r.errors + r.timeouts === 0) return;
  const statuses = Object.entries(r.statusCodes)
    .map(([status, count]) => `${status}×${count}`)
    .join(', ');
  throw new Error(
    `${name}: ${r.non2xx} non-2xx answers (${statuses}), ${r.errors} errors, ${r.timeouts} timeouts under load.`,
  );
}
