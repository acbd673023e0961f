/** The HTTP load test: autocannon against one authenticated route of the bench runtime. */

import autocannon from 'autocannon';
import { type CpuShare, cpuShares, sampleCpu } from './cpu.ts';
import { round } from './stats.ts';

export interface LoadTarget {
  url: string;
  headers: Record<string, string>;
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
}

export interface MeasuredLoad extends LoadResult {
  /** CPU used during the run, per process; absent where /proc is not available. */
  cpu: CpuShare[] | undefined;
}

/** `connections` keep one request in flight each, for `seconds`. */
export async function runLoad(target: LoadTarget, connections: number, seconds: number): Promise<LoadResult> {
  const r = await autocannon({
    url: target.url,
    headers: target.headers,
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
  };
}

/** A run with the CPU each process used during it (`runtimePid`: the runtime's process group). */
export async function measureLoad(
  target: LoadTarget,
  connections: number,
  seconds: number,
  runtimePid: number,
): Promise<MeasuredLoad> {
  const before = sampleCpu(runtimePid);
  const result = await runLoad(target, connections, seconds);
  const after = sampleCpu(runtimePid);
  const cpu = before && after ? cpuShares(before, after, result.durationSeconds, result.requests) : undefined;
  return { ...result, cpu };
}

/** Any failed request makes the figures describe something else than the route: the bench fails. */
export function assertAllOk(runs: Record<string, LoadResult>): void {
  for (const [name, r] of Object.entries(runs)) {
    if (r.non2xx + r.errors + r.timeouts > 0) {
      throw new Error(
        `${name}: ${r.non2xx} non-2xx answers, ${r.errors} errors, ${r.timeouts} timeouts under load.`,
      );
    }
  }
}
