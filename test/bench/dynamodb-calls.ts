/**
 * DynamoDB calls per request, read from the runtime's request log lines (counted there by the
 * SDK middleware in shared/store/client.ts), and the round trip of one call to DynamoDB Local,
 * which together explain most of a request's latency.
 */

import { DynamoDBClient, GetItemCommand, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import type { DemoAccount } from '../../infra/local/seed.ts';
import { table } from '../../shared/resources.ts';
import type { RequestLog } from './runtime.ts';
import { percentile, round, summarize } from './stats.ts';

export interface RouteCalls {
  routeKey: string;
  requests: number;
  statuses: Record<string, number>;
  dynamodbCalls: { mean: number; min: number; max: number };
  /** Sequential round trips (calls made together count once). */
  dynamodbRoundTrips: { mean: number; max: number };
  /** Server-side time in the handler (`durationMs` of the log line), excluding HTTP. */
  handlerMs: { p50: number; mean: number };
}

export function callsPerRoute(logs: readonly RequestLog[]): RouteCalls[] {
  const byRoute = Map.groupBy(logs, (log) => log.routeKey);
  return [...byRoute].map(([routeKey, entries]) => {
    const calls = summarize(entries.map((e) => e.dynamodbCalls));
    const trips = summarize(entries.map((e) => e.dynamodbRoundTrips));
    const durations = summarize(entries.map((e) => e.durationMs));
    const statuses: Record<string, number> = {};
    for (const e of entries) statuses[e.status] = (statuses[e.status] ?? 0) + 1;
    return {
      routeKey,
      requests: entries.length,
      statuses,
      dynamodbCalls: { mean: round(calls.mean, 2), min: calls.min, max: calls.max },
      dynamodbRoundTrips: { mean: round(trips.mean, 2), max: trips.max },
      handlerMs: { p50: durations.p50, mean: round(durations.mean) },
    };
  });
}

const REQUEST_TIMEOUT_MS = 10_000;

async function expectOk(response: Response, what: string): Promise<unknown> {
  const body: unknown = await response.json().catch(() => undefined);
  if (response.status !== 200)
    throw new Error(`${what} answered ${response.status}: ${JSON.stringify(body)}`);
  return body;
}

/** The dashboard path: log in with the demo owner, then list the API keys with the session token. */
export async function runDashboardPath(baseUrl: string, demo: DemoAccount): Promise<void> {
  const login = await fetch(`${baseUrl}/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: demo.email, password: demo.password }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const { token } = (await expectOk(login, 'POST /v1/auth/login')) as { token: string };
  const keys = await fetch(`${baseUrl}/v1/api-keys`, {
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  await expectOk(keys, 'GET /v1/api-keys');
}

export interface RoundTrip {
  calls: number;
  p50Ms: number;
  p90Ms: number;
}

/** Sequential GetItems of a missing key: the floor under every DynamoDB call a handler makes. */
export async function measureDynamoDbRoundTrip(endpoint: string, calls: number): Promise<RoundTrip> {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    requestHandler: { requestTimeout: REQUEST_TIMEOUT_MS },
  });
  try {
    const { TableNames } = await client.send(new ListTablesCommand({}));
    const TableName = TableNames?.[0];
    if (!TableName) throw new Error('DynamoDB Local has no table');
    const Key = { [table.partitionKey]: { S: 'BENCH#missing' }, [table.sortKey]: { S: 'BENCH' } };
    const get = new GetItemCommand({ TableName, Key });
    // The first calls open the connection and warm the client: not round trips.
    for (let i = 0; i < 20; i++) await client.send(get);
    const times: number[] = [];
    for (let i = 0; i < calls; i++) {
      const started = performance.now();
      await client.send(get);
      times.push(performance.now() - started);
    }
    return { calls, p50Ms: round(percentile(times, 50), 2), p90Ms: round(percentile(times, 90), 2) };
  } finally {
    client.destroy();
  }
}
