/**
 * `GET /v1/payments/stats` and `/metrics` over HTTP, read from the per-day aggregates the outbox
 * keeps from the table's stream: the expected figures are computed from the payments each test
 * made (over the API, or seeded through the store's item builder at chosen creation times for the
 * São Paulo day boundary and a holiday), and every check waits for the stream (`eventually` until
 * the whole expected body, a positive figure). A replayed stream batch counts once.
 */

import type { DynamoDBStreamEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { handler as outbox } from '../../functions/outbox/index.ts';
import {
  brazilBusinessDayWindow,
  isBrazilBusinessDay,
  isNationalHoliday,
} from '../../shared/domain/brazil-holidays.ts';
import { addDays, saoPauloDate, saoPauloDayStart } from '../../shared/domain/business-calendar.ts';
import type { ChargeRecord } from '../../shared/domain/charges.ts';
import { timeToPayBucket } from '../../shared/domain/payment-aggregates.ts';
import { timeToPayQuantile } from '../../shared/domain/payment-reports.ts';
import type { MerchantScope } from '../../shared/domain/scope.ts';
import { deliveryStats } from '../../shared/domain/webhook-deliveries.ts';
import { chargeItem } from '../../shared/store/charges.ts';
import { deliveryKey } from '../../shared/store/keys.ts';
import { readPaymentCounts } from '../../shared/store/payment-counts.ts';
import { readDeliveryCounts } from '../../shared/store/webhook-deliveries.ts';
import { merchant, newIdempotencyKey, pay } from '../helpers/charges.ts';
import { eventually } from '../helpers/eventually.ts';
import { api, expectError } from '../helpers/http.ts';
import { openMed } from '../helpers/med.ts';
import { putCharges, seededCharge } from '../helpers/payments.ts';
import { confirmedRefund } from '../helpers/refunds.ts';
import { streamRecord } from '../helpers/stream-records.ts';

/** The service's calendar: business days are those without a national holiday. */
const windowOf = brazilBusinessDayWindow;
const businessDay = isBrazilBusinessDay;

const stats = (apikey: string, query = '') => api(`/v1/payments/stats${query}`, { apikey });
const metrics = (apikey: string, query = '') => api(`/v1/payments/metrics${query}`, { apikey });

/** Waits until `read` answers 200 with a body matching `expected` (the stream has counted). */
const reportBecomes = (read: () => ReturnType<typeof stats>, expected: unknown, message: string) =>
  eventually(
    async () => {
      const reply = await read();
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject(expected as object);
      return reply.body;
    },
    { message, timeoutMs: 25_000, intervalMs: 200 },
  );

async function newPayment(apikey: string, amount: number): Promise<string> {
  const reply = await api('/v1/payments', {
    apikey,
    body: { amount, paymentMethods: ['PIX'], idempotencyKey: newIdempotencyKey() },
  });
  if (reply.status !== 201) throw new Error(`create failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.id;
}

const noon = (date: string) => saoPauloDayStart(date) + 12 * 3600_000;

/** A seeded charge settled `ttpSeconds` after its creation, with fees of 30. */
function seededPaid(
  scope: MerchantScope,
  createdAtMs: number,
  amount: number,
  overrides: Partial<ChargeRecord> = {},
) {
  const paidAt = new Date(createdAtMs + 40_000).toISOString();
  return seededCharge(scope, createdAtMs, {
    amount,
    status: 'PAID',
    paidAt,
    fees: { providerFee: 10, platformFee: 20, netAmount: amount - 30 },
    ...overrides,
  });
}

// The first two make a dozen requests each and wait for the stream: over 30 s on a busy machine.
describe('GET /v1/payments/stats and /metrics', () => {
  it('count the payments made over the API: paid, refunded, disputed, expired, cancelled, pending', async () => {
    const m = await merchant();
    const amounts = [1000, 2000, 3000, 400, 500, 600];
    const [p1, p2, p3, p4, p5] = await Promise.all(amounts.map((amount) => newPayment(m.apikey, amount)));
    for (const id of [p1, p2, p3])
      expect((await pay(m.apikey, `ch_${id}`, { payer_document: '52998224725' })).body.outcome).toBe('paid');
    const refund = await api(`/v1/payments/${p2}/refund`, {
      apikey: m.apikey,
      body: { idempotencyKey: newIdempotencyKey(), amount: 300 },
    });
    expect(refund.status).toBe(201);
    expect((await confirmedRefund(m.apikey, String(p2), refund.body.id)).status).toBe('REFUNDED');
    expect((await openMed(m.apikey, `ch_${p3}`)).status).toBe(201);
    expect(
      (await api(`/v1/sandbox/charges/ch_${p4}/expire`, { apikey: m.apikey, method: 'POST' })).status,
    ).toBe(200);
    expect((await api(`/v1/payments/${p5}/cancel`, { apikey: m.apikey, method: 'POST' })).status).toBe(200);

    const paid = await Promise.all(
      [p1, p2, p3].map(async (id) => (await api(`/v1/payments/${id}`, { apikey: m.apikey })).body),
    );
    const gross = 1000 + 2000 + 3000;
    const fees = paid.reduce((sum, p) => sum + p.providerFee + p.platformFee, 0);
    const today = saoPauloDate(Date.now());
    const body = await reportBecomes(
      () => stats(m.apikey, '?days=1'),
      {
        totalTransactions: 6,
        paidTransactions: 3,
        todayTransactions: 6,
        successRate: 50,
        volumeByCurrency: [{ currency: 'BRL', volume: gross, count: 3 }],
        todayVolumeByCurrency: { BRL: gross },
        methodBreakdown: [{ method: 'PIX', volume: gross, count: 3 }],
      },
      'stats of the six payments',
    );
    expect(body.dailyVolume.at(-1)).toEqual({ date: today, currencies: { BRL: gross } });
    expect(body.dailyVolume[0].date).toBe(windowOf(1, Date.now()).from);

    // Time to pay from the stored times, through the same fixed buckets.
    const histogram: Record<string, number> = {};
    for (const p of paid) {
      const bucket = timeToPayBucket((Date.parse(p.paidAt) - Date.parse(p.createdAt)) / 1000);
      histogram[bucket] = (histogram[bucket] ?? 0) + 1;
    }
    const report = await reportBecomes(
      () => metrics(m.apikey, '?currency=brl'),
      {
        object: 'payment_metrics',
        timeZone: 'America/Sao_Paulo',
        days: 7,
        to: today,
        currency: 'BRL',
        funnel: {
          created: 6,
          paid: 3,
          expired: 1,
          cancelled: 1,
          failed: 0,
          returned: 0,
          refunded: 1,
          disputed: 1,
          disputeLost: 0,
        },
        rates: {
          conversion: 50,
          expiry: 16.67,
          cancellation: 16.67,
          refund: 33.33,
          med: 33.33,
          refundVolume: 5,
        },
        volume: [
          {
            currency: 'BRL',
            gross,
            fees,
            refunded: 300,
            disputeLost: 0,
            net: gross - fees - 300,
            averageTicket: 2000,
          },
        ],
        timeToPay: {
          payments: 3,
          p50Seconds: timeToPayQuantile(histogram, 0.5),
          p90Seconds: timeToPayQuantile(histogram, 0.9),
        },
      },
      'metrics of the six payments',
    );
    expect(report.daily.at(-1)).toMatchObject({ date: today, funnel: { created: 6, paid: 3 } });
    expect(report.daily[0].date).toBe(windowOf(7, Date.now()).from);
    // Another currency has nothing.
    expect((await metrics(m.apikey, '?currency=USD')).body).toMatchObject({
      funnel: { created: 0 },
      volume: [],
    });
  }, 60_000);

  it('count a lost MED at what the case held: the amount less the refunds paid before it opened', async () => {
    const m = await merchant();
    const id = await newPayment(m.apikey, 10_000);
    expect((await pay(m.apikey, `ch_${id}`, { payer_document: '52998224725' })).body.outcome).toBe('paid');
    const refund = await api(`/v1/payments/${id}/refund`, {
      apikey: m.apikey,
      body: { idempotencyKey: newIdempotencyKey(), amount: 3_000 },
    });
    expect((await confirmedRefund(m.apikey, String(id), refund.body.id)).status).toBe('REFUNDED');
    const opened = await openMed(m.apikey, `ch_${id}`);
    expect(opened.body.amount).toBe(7_000);
    const lost = await api(`/v1/med/cases/${opened.body.id}/accept`, { apikey: m.apikey, method: 'POST' });
    expect(lost.body).toMatchObject({ status: 'accepted', money_outcome: 'lost' });
    const paid = (await api(`/v1/payments/${id}`, { apikey: m.apikey })).body;
    const fees = paid.providerFee + paid.platformFee;
    // The wallet lost the fees, the refund and what the case held; net says the same.
    const balance = (await api('/v1/wallets/balance', { apikey: m.apikey })).body;
    expect(balance).toMatchObject({ available: 10_000 - fees - 3_000 - 7_000, retained: 0 });
    await reportBecomes(
      () => metrics(m.apikey, '?days=1'),
      {
        funnel: { disputed: 1, disputeLost: 1 },
        volume: [
          {
            currency: 'BRL',
            gross: 10_000,
            fees,
            refunded: 3_000,
            disputeLost: 7_000,
            net: balance.available,
          },
        ],
      },
      'metrics of the lost case',
    );
  });

  it('count a payment on its São Paulo creation day: 02:30 UTC is the previous day', async () => {
    const m = await merchant();
    const scope: MerchantScope = { accountId: m.accountId, mode: 'test' };
    const today = saoPauloDate(Date.now());
    const yesterday = addDays(today, -1);
    // Two business days always reach yesterday (today counts only if it is a business day).
    const window = windowOf(2, Date.now());
    const beforeWindow = addDays(window.from, -1);
    const utcToday = Date.parse(`${today}T00:00:00Z`);
    const charges = [
      seededPaid(scope, utcToday + 3.5 * 3600_000, 2000), // 00:30 in São Paulo: today
      seededPaid(scope, utcToday + 2.5 * 3600_000, 3000), // 23:30 yesterday in São Paulo
      seededPaid(scope, utcToday + 4 * 3600_000, 900, { currency: 'USD' }),
      seededCharge(scope, noon(yesterday), { amount: 100 }), // awaiting payment
      seededPaid(scope, noon(window.from), 700),
      seededPaid(scope, noon(beforeWindow), 5000), // outside the window
    ];
    await putCharges(charges);
    const fromIsYesterday = window.from === yesterday;
    const body = await reportBecomes(
      () => stats(m.apikey, '?days=2'),
      {
        totalTransactions: 5,
        paidTransactions: 4,
        todayTransactions: 2,
        successRate: 80,
        volumeByCurrency: [
          { currency: 'BRL', volume: 5700, count: 3 },
          { currency: 'USD', volume: 900, count: 1 },
        ],
        todayVolumeByCurrency: { BRL: 2000, USD: 900 },
      },
      'stats of the seeded payments',
    );
    const daily = Object.fromEntries(body.dailyVolume.map((p: any) => [p.date, p.currencies]));
    expect(body.dailyVolume.map((p: any) => p.date)).toEqual(window.dates);
    expect(daily[today]).toEqual({ BRL: 2000, USD: 900 });
    expect(daily[yesterday]).toEqual({ BRL: 3000 + (fromIsYesterday ? 700 : 0), USD: 0 });
    expect(daily[window.from]).toEqual({ BRL: fromIsYesterday ? 3700 : 700, USD: 0 });

    // The payment before the window counts once the window reaches its day.
    const wider = windowOf(3, Date.now());
    const third = await reportBecomes(
      () => stats(m.apikey, '?days=3'),
      { totalTransactions: wider.from <= beforeWindow ? 6 : 5 },
      'the wider window',
    );
    expect(third.dailyVolume[0].date).toBe(wider.from);

    // Metrics per currency, and each seeded settlement 40 s after creation: the (30 s, 45 s] bucket.
    await reportBecomes(
      () => metrics(m.apikey, '?days=2&currency=USD'),
      {
        currency: 'USD',
        funnel: { created: 1, paid: 1 },
        volume: [{ currency: 'USD', gross: 900, fees: 30, net: 870, averageTicket: 900 }],
        timeToPay: { payments: 1, p50Seconds: 37.5, p90Seconds: 43.5 },
      },
      'metrics in USD',
    );

    // Another merchant sees none of it (read after the counts above are complete).
    const other = await merchant();
    expect((await stats(other.apikey)).body).toMatchObject({ totalTransactions: 0, volumeByCurrency: [] });
  }, 60_000);

  it('skip a national holiday when counting business days back', async () => {
    const m = await merchant();
    const scope: MerchantScope = { accountId: m.accountId, mode: 'test' };
    const today = saoPauloDate(Date.now());
    // The most recent national holiday on a weekday before today.
    let holiday = addDays(today, -1);
    while (!isNationalHoliday(holiday) || [0, 6].includes(new Date(`${holiday}T12:00:00Z`).getUTCDay()))
      holiday = addDays(holiday, -1);
    let businessDaysAfter = 0;
    for (let date = addDays(holiday, 1); date <= today; date = addDays(date, 1))
      if (businessDay(date)) businessDaysAfter++;
    let start = addDays(holiday, -1);
    while (!businessDay(start)) start = addDays(start, -1);
    // One business day more than those after the holiday: the window must reach past it to `start`.
    await putCharges([seededPaid(scope, noon(holiday), 1200), seededPaid(scope, noon(start), 800)]);
    const body = await reportBecomes(
      () => stats(m.apikey, `?days=${businessDaysAfter + 1}`),
      { totalTransactions: 2, volumeByCurrency: [{ currency: 'BRL', volume: 2000, count: 2 }] },
      `a window over the holiday of ${holiday}`,
    );
    const dates = body.dailyVolume.map((p: any) => p.date);
    // Counted as a business day, the holiday would have started the window itself.
    expect(dates[0]).toBe(start);
    expect(body.dailyVolume.find((p: any) => p.date === holiday)?.currencies).toEqual({ BRL: 1200 });
  });

  it('answers 400 with the parameter at fault, and is not shadowed by GET /v1/payments/{id}', async () => {
    const m = await merchant();
    for (const days of ['0', '-2', 'abc', '1.5'])
      expectError(await stats(m.apikey, `?days=${days}`), 400, 'invalid_request_error', 'invalid_request');
    expect((await stats(m.apikey, '?days=0')).body.error.param).toBe('days');
    const badDays = await metrics(m.apikey, '?days=x');
    expectError(badDays, 400, 'invalid_request_error', 'invalid_request');
    expect(badDays.body.error.param).toBe('days');
    expect((await metrics(m.apikey, '?currency=R%24')).body.error.param).toBe('currency');
    expect((await stats(m.apikey, '?day=1')).body.error.param).toBe('day');
    const empty = await stats(m.apikey);
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({
      totalTransactions: 0,
      successRate: 0,
      dailyVolume: expect.any(Array),
    });
    // `days` defaults to 7 business days: the same window as ?days=7, longer than ?days=6's.
    const [seven, six] = await Promise.all([stats(m.apikey, '?days=7'), stats(m.apikey, '?days=6')]);
    expect(empty.body.dailyVolume.map((p: { date: string }) => p.date)).toEqual(
      seven.body.dailyVolume.map((p: { date: string }) => p.date),
    );
    expect(six.body.dailyVolume.length).toBeLessThan(seven.body.dailyVolume.length);
    expect(seven.body.dailyVolume.length).toBeGreaterThanOrEqual(7);
    // No upper limit on metrics: a window back to Pix's launch.
    const long = await metrics(m.apikey, '?days=100000');
    expect(long.status).toBe(200);
    expect(long.body.from).toBe('2020-11-16');
    // And stats keeps the 366 most recent days.
    expect((await stats(m.apikey, '?days=1000')).body.dailyVolume).toHaveLength(366);
  });
});

describe('stream records delivered again', () => {
  const record = (eventName: 'INSERT' | 'MODIFY', charge: ChargeRecord, old?: ChargeRecord) =>
    streamRecord(eventName, chargeItem(charge), old && chargeItem(old));
  const run = (records: unknown[]) => outbox({ Records: records } as unknown as DynamoDBStreamEvent);

  it('count each charge change once in the aggregates and the payment counters', async () => {
    const m = await merchant();
    const scope: MerchantScope = { accountId: m.accountId, mode: 'test' };
    // Charges that exist only in these records: the runtime's own stream has nothing of them.
    const created = seededCharge(scope, Date.now() - 60_000, { amount: 1500 });
    const paid = seededPaid(scope, Date.parse(created.createdAt), 1500, { id: created.id });
    const refunded = { ...paid, refundedSettled: 500 };
    const other = seededCharge(scope, Date.now() - 30_000, { amount: 800 });
    const batch = [
      record('INSERT', created),
      record('MODIFY', paid, created),
      record('INSERT', other),
      record('MODIFY', refunded, paid),
    ];
    const expected = {
      funnel: { created: 2, paid: 1, refunded: 1 },
      volume: [{ gross: 1500, refunded: 500 }],
    };
    const counts = async () =>
      (await readPaymentCounts(scope, [{ level: 'MONTH' }])).reduce((sum, c) => sum + (c.total ?? 0), 0);

    expect(await run(batch)).toEqual({ batchItemFailures: [] });
    await reportBecomes(() => metrics(m.apikey, '?days=1'), expected, 'the first run');
    expect(await counts()).toBe(2);
    // The same batch again (a retry after a failure at its first record) …
    expect(await run(batch)).toEqual({ batchItemFailures: [] });
    // … and a retry from its middle with a new record: only that one counts.
    const expiredOther = { ...other, status: 'EXPIRED' as const };
    expect(await run([...batch.slice(2), record('MODIFY', expiredOther, other)])).toEqual({
      batchItemFailures: [],
    });
    const after = await reportBecomes(
      () => metrics(m.apikey, '?days=1'),
      { ...expected, funnel: { ...expected.funnel, expired: 1 } },
      'the retries',
    );
    expect(after.funnel).toMatchObject({ created: 2, paid: 1, refunded: 1, expired: 1 });
    expect(await counts()).toBe(2);
  });
  it('count a batch mixing charge and delivery changes once, replayed or retried from its middle', async () => {
    const m = await merchant();
    const scope: MerchantScope = { accountId: m.accountId, mode: 'test' };
    const created = seededCharge(scope, Date.now() - 60_000, { amount: 700 });
    const paid = seededPaid(scope, Date.parse(created.createdAt), 700, { id: created.id });
    const eventAt = new Date().toISOString();
    const delivery = (id: string, status: string) => ({
      ...deliveryKey(scope, eventAt, id),
      type: 'webhookDelivery',
      accountId: scope.accountId,
      mode: scope.mode,
      id,
      eventType: 'charge.paid',
      endpointId: `we_${'3'.repeat(24)}`,
      status,
    });
    const [d1, d2] = [`whd_${'a'.repeat(24)}`, `whd_${'b'.repeat(24)}`];
    // One charge's and one delivery's records interleaved, as the outbox receives them.
    const batch = [
      record('INSERT', created),
      streamRecord('INSERT', delivery(d1, 'PENDING')),
      record('MODIFY', paid, created),
      streamRecord('MODIFY', delivery(d1, 'PROCESSING'), delivery(d1, 'PENDING')),
    ];
    const deliveries = async () => deliveryStats(await readDeliveryCounts(scope, {}));
    const expected = { funnel: { created: 1, paid: 1 }, volume: [{ gross: 700 }] };

    expect(await run(batch)).toEqual({ batchItemFailures: [] });
    await reportBecomes(() => metrics(m.apikey, '?days=1'), expected, 'the first run');
    expect(await deliveries()).toMatchObject({ total: 1, PENDING: 0, PROCESSING: 1 });
    // Again whole, then from its second record with one new record of each kind: the charge's
    // and the delivery's markers already hold some of their records, not the new ones.
    expect(await run(batch)).toEqual({ batchItemFailures: [] });
    const refunded = { ...paid, refundedSettled: 200 };
    const more = [
      record('MODIFY', refunded, paid),
      streamRecord('MODIFY', delivery(d1, 'DELIVERED'), delivery(d1, 'PROCESSING')),
      streamRecord('INSERT', delivery(d2, 'PENDING')),
    ];
    expect(await run([...batch.slice(1), ...more])).toEqual({ batchItemFailures: [] });
    expect(await run([...batch.slice(1), ...more])).toEqual({ batchItemFailures: [] });
    const after = await reportBecomes(
      () => metrics(m.apikey, '?days=1'),
      { funnel: { created: 1, paid: 1, refunded: 1 }, volume: [{ gross: 700, refunded: 200 }] },
      'the retries',
    );
    expect(after.funnel).toMatchObject({ created: 1, paid: 1, refunded: 1 });
    expect(await deliveries()).toMatchObject({ total: 2, PENDING: 1, PROCESSING: 0, DELIVERED: 1 });
    expect(
      (await readPaymentCounts(scope, [{ level: 'MONTH' }])).reduce((sum, c) => sum + (c.total ?? 0), 0),
    ).toBe(1);
  });
});
