/**
 * The payments surface, one request at a time (each with its own `x-request-id` to find its log
 * line): what a refund and the reads around it cost in DynamoDB calls and in sequential round
 * trips (calls made together count once), and the handler time of each. The routes are
 * exercised as a merchant would: a paid payment, a partial refund, the sandbox's confirmation,
 * the refund's replay, the refund list, the payment read, and the refund of the rest.
 */

import { randomUUID } from 'node:crypto';
import type { BenchRuntime } from './runtime.ts';
import { round } from './stats.ts';

const REQUEST_TIMEOUT_MS = 10_000;
/** Sequential refunds of one payment: the figures are their mean. */
const REFUNDS = 20;

export interface PaymentProbeRow {
  name: string;
  requests: number;
  status: number;
  dynamodbCalls: number;
  roundTrips: number;
  handlerMsP50: number;
}

export interface Sent {
  name: string;
  requestId: string;
  status: number;
  body: any;
}

/**
 * One request with its own `x-request-id` (to find its log line); a status ≥ 300 throws unless
 * `expected` says the answer is one the caller knows may come.
 */
export async function send(
  baseUrl: string,
  apiKey: string,
  name: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  expected: (status: number, text: string) => boolean = () => false,
): Promise<Sent> {
  const requestId = `bench-${randomUUID()}`;
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { apikey: apiKey, 'x-request-id': requestId, 'content-type': 'application/json', ...headers },
    ...(body !== undefined && { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await response.text();
  if (response.status >= 300 && !expected(response.status, text))
    throw new Error(`${method} ${path} (${name}) answered ${response.status}: ${text}`);
  return { name, requestId, status: response.status, body: JSON.parse(text) };
}

async function paidCharge(baseUrl: string, apiKey: string, amount: number): Promise<string> {
  const charge = await send(
    baseUrl,
    apiKey,
    'setup',
    'POST',
    '/v1/charges',
    { amount, payment_method: 'pix' },
    {
      'idempotency-key': randomUUID(),
    },
  );
  await send(baseUrl, apiKey, 'setup', 'POST', `/v1/sandbox/charges/${charge.body.id}/pay`, {
    payer_document: '52998224725',
  });
  return String(charge.body.id).replace(/^ch_/, '');
}

export async function probePayments(
  baseUrl: string,
  apiKey: string,
  runtime: BenchRuntime,
): Promise<PaymentProbeRow[]> {
  // Enough available money for every refund below, whatever the fees.
  await paidCharge(baseUrl, apiKey, 1_000_000);
  const paymentId = await paidCharge(baseUrl, apiKey, 100_000);
  const sent: Sent[] = [];
  for (let i = 0; i < REFUNDS; i++) {
    const body = { idempotencyKey: randomUUID(), amount: 1000 };
    const created = await send(
      baseUrl,
      apiKey,
      'POST …/refund (new, partial)',
      'POST',
      `/v1/payments/${paymentId}/refund`,
      body,
    );
    sent.push(created);
    // Right away: the scheduler confirms a sandbox refund by itself 2 s after the acquirer took
    // it, and on a busy machine it can get there first (`refund_final`): that answer is not a
    // confirmation, so it is left out of the confirmation's row.
    const confirmed = await send(
      baseUrl,
      apiKey,
      'POST /v1/sandbox/refunds/{id}/confirm',
      'POST',
      `/v1/sandbox/refunds/${created.body.id}/confirm`,
      undefined,
      {},
      (status, text) => status === 400 && text.includes('"refund_final"'),
    );
    if (confirmed.status < 300) sent.push(confirmed);
    sent.push(
      await send(baseUrl, apiKey, 'POST …/refund (replay)', 'POST', `/v1/payments/${paymentId}/refund`, body),
    );
    sent.push(await send(baseUrl, apiKey, 'GET …/refunds', 'GET', `/v1/payments/${paymentId}/refunds`));
    sent.push(await send(baseUrl, apiKey, 'GET /v1/payments/{id}', 'GET', `/v1/payments/${paymentId}`));
  }
  sent.push(
    await send(
      baseUrl,
      apiKey,
      'POST …/refund (the rest: completes the payment)',
      'POST',
      `/v1/payments/${paymentId}/refund`,
      {
        idempotencyKey: randomUUID(),
      },
    ),
  );
  await runtime.settle();
  const byName = Map.groupBy(sent, (s) => s.name);
  return [...byName].map(([name, requests]) => {
    const logs = requests.map((r) => runtime.requestLogs.find((log) => log.requestId === r.requestId));
    const mean = (values: number[]) =>
      round(values.reduce((a, b) => a + b, 0) / Math.max(1, values.length), 2);
    const durations = logs.map((l) => l?.durationMs ?? 0).sort((a, b) => a - b);
    return {
      name,
      requests: requests.length,
      status: requests[0]?.status ?? 0,
      dynamodbCalls: mean(logs.map((l) => l?.dynamodbCalls ?? Number.NaN)),
      roundTrips: mean(logs.map((l) => l?.dynamodbRoundTrips ?? Number.NaN)),
      handlerMsP50: durations[Math.floor(durations.length / 2)] ?? 0,
    };
  });
}
