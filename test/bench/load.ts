/** The HTTP load test: autocannon against one authenticated route of the bench runtime. */

import autocannon from 'autocannon';
import { round } from './stats.ts';

export interface LoadOptions {
  url: string;
  headers: Record<string, string>;
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
}

export interface LoadResult {
  url: string;
  connections: number;
  durationSeconds: number;
  requests: number;
  requestsPerSecond: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Non-2xx answers of the warm-up, which count as failures too. */
  warmupNon2xx: number;
}

const attack = (o: LoadOptions, seconds: number) =>
  autocannon({
    url: o.url,
    headers: o.headers,
    connections: o.connections,
    duration: seconds,
    // Seconds per request: a stuck server shows up as timeouts, not as a hung bench.
    timeout: 10,
  });

/**
 * A short warm-up first, whose figures are dropped: it loads the handler module, fills the
 * account cache and lets V8 and DynamoDB Local's JIT settle, none of which is steady state.
 */
export async function loadTest(o: LoadOptions): Promise<LoadResult> {
  const warmup = await attack(o, o.warmupSeconds);
  const r = await attack(o, o.durationSeconds);
  return {
    url: o.url,
    connections: o.connections,
    durationSeconds: r.duration,
    requests: r.requests.total,
    requestsPerSecond: round(r.requests.average),
    latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max },
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    warmupNon2xx: warmup.non2xx + warmup.errors,
  };
}
