import { describe, expect, it } from 'vitest';
import { brazilBusinessDayWindow, isBrazilBusinessDay } from '../../shared/domain/brazil-holidays.ts';
import { REPORTING_EPOCH, saoPauloDate, saoPauloDayStart } from '../../shared/domain/business-calendar.ts';
import { InvalidInput } from '../../shared/domain/errors.ts';
import {
  type ChargeImage,
  chargeImageOf,
  type DayAggregate,
  dayCellOf,
  dayFiguresDelta,
  sumDayChanges,
  TIME_TO_PAY_BOUNDS,
  timeToPayBucket,
  timeToPayNames,
} from '../../shared/domain/payment-aggregates.ts';
import {
  parseMetricsQuery,
  parseStatsQuery,
  paymentMetrics,
  paymentStats,
  timeToPayQuantile,
} from '../../shared/domain/payment-reports.ts';

/** The service's calendar: business days are those without a national holiday. */
const windowOf = brazilBusinessDayWindow;
const businessDay = isBrazilBusinessDay;

const scope = { accountId: 'acct_1', mode: 'test' as const };

describe('reporting calendar (America/Sao_Paulo, national holidays)', () => {
  it('puts 02:30 UTC on the previous São Paulo day and 03:30 UTC on the same day', () => {
    expect(saoPauloDate(Date.parse('2026-11-22T02:30:00Z'))).toBe('2026-11-21');
    expect(saoPauloDate(Date.parse('2026-11-22T03:30:00Z'))).toBe('2026-11-22');
    expect(new Date(saoPauloDayStart('2026-11-22')).toISOString()).toBe('2026-11-22T03:00:00.000Z');
  });

  it('knows weekends and national holidays, and that Carnival and Corpus Christi are not national', () => {
    expect(businessDay('2026-11-19')).toBe(true); // Thursday
    expect(businessDay('2026-11-20')).toBe(false); // Consciência Negra, national since 2024
    expect(businessDay('2026-11-21')).toBe(false); // Saturday
    expect(businessDay('2026-11-22')).toBe(false); // Sunday
    expect(businessDay('2026-12-25')).toBe(false); // Christmas, a Friday
    expect(businessDay('2026-12-24')).toBe(true); // Christmas Eve: optional, not national
    expect(businessDay('2026-04-03')).toBe(false); // Good Friday
    expect(businessDay('2026-02-16')).toBe(true); // Carnival Monday: a bank holiday only
    expect(businessDay('2026-02-17')).toBe(true); // Carnival Tuesday
    expect(businessDay('2026-06-04')).toBe(true); // Corpus Christi
  });

  it('ends the window today and starts it on the n-th most recent business day, holidays skipped', () => {
    // Sunday 22 November 2026, 14:00 in São Paulo: Friday the 20th is a holiday.
    const sunday = Date.parse('2026-11-22T17:00:00Z');
    expect(windowOf(1, sunday)).toEqual({
      from: '2026-11-19',
      to: '2026-11-22',
      dates: ['2026-11-19', '2026-11-20', '2026-11-21', '2026-11-22'],
    });
    expect(windowOf(2, sunday).from).toBe('2026-11-18');
    // A business day counts itself.
    expect(windowOf(1, Date.parse('2026-11-23T12:00:00Z')).dates).toEqual(['2026-11-23']);
    // Monday 28 December: Christmas (Friday) is skipped, Christmas Eve counts.
    expect(windowOf(2, Date.parse('2026-12-28T12:00:00Z')).from).toBe('2026-12-24');
    // 02:30 UTC on Monday is still Sunday in São Paulo: not a business day, so Friday starts it.
    expect(windowOf(1, Date.parse('2026-11-30T02:30:00Z'))).toMatchObject({
      from: '2026-11-27',
      to: '2026-11-29',
    });
  });

  it('counts 7 business days by default over a week and a half, and stops at Pix launch', () => {
    // Wednesday 2 December 2026: 7 business days back is Tuesday 24 November.
    const window = windowOf(7, Date.parse('2026-12-02T15:00:00Z'));
    expect(window.from).toBe('2026-11-24');
    expect(window.dates).toHaveLength(9);
    const long = windowOf(Number.MAX_SAFE_INTEGER, Date.parse('2026-12-02T15:00:00Z'));
    expect(long.from).toBe(REPORTING_EPOCH);
  });
});

const image = (overrides: Partial<ChargeImage> = {}): ChargeImage => ({
  status: 'WAITING_PAYMENT',
  amount: 1000,
  currency: 'BRL',
  method: 'PIX',
  createdAt: '2026-11-20T12:00:00.000Z',
  ...overrides,
});

describe('day aggregates', () => {
  it('has one time-to-pay figure per bucket and the open one', () => {
    expect(timeToPayNames).toHaveLength(TIME_TO_PAY_BOUNDS.length + 1);
    expect(timeToPayBucket(0)).toBe('ttp00');
    expect(timeToPayBucket(5)).toBe('ttp00');
    expect(timeToPayBucket(5.001)).toBe('ttp01');
    expect(timeToPayBucket(86_400)).toBe('ttp14');
    expect(timeToPayBucket(86_401)).toBe('ttp15');
  });

  it('reads a charge as the transaction format names it, fees summed', () => {
    expect(
      chargeImageOf({
        status: 'PAID',
        amount: 1000,
        currency: 'BRL',
        paymentMethod: 'pix',
        createdAt: '2026-11-20T12:00:00.000Z',
        paidAt: '2026-11-20T12:00:42.000Z',
        fees: { providerFee: 10, platformFee: 20, netAmount: 970 },
      }),
    ).toEqual({
      status: 'PAID',
      amount: 1000,
      currency: 'BRL',
      method: 'PIX',
      createdAt: '2026-11-20T12:00:00.000Z',
      paidAt: '2026-11-20T12:00:42.000Z',
      fees: 30,
    });
  });

  it('counts a creation, a settlement with its volume, fees and time to pay, and nothing for other writes', () => {
    const created = image();
    expect(dayFiguresDelta(undefined, created)).toEqual({ created: 1 });
    const paid = image({ status: 'PAID', paidAt: '2026-11-20T12:00:42.000Z', fees: 30 });
    expect(dayFiguresDelta(created, paid)).toEqual({ paid: 1, paidVolume: 1000, feeVolume: 30, ttp04: 1 });
    // A reserved refund (refundedAmount) or any write that keeps these fields: nothing.
    expect(dayFiguresDelta(paid, { ...paid })).toEqual({});
    // A refused charge is created failed.
    expect(dayFiguresDelta(undefined, image({ status: 'REFUSED' }))).toEqual({ created: 1, failed: 1 });
  });

  it('counts terminal statuses, payer-lock returns, refunds and MED', () => {
    const paid = image({ status: 'PAID', paidAt: '2026-11-20T12:00:02.000Z' });
    expect(dayFiguresDelta(image(), image({ status: 'EXPIRED' }))).toEqual({ expired: 1 });
    expect(dayFiguresDelta(image(), image({ status: 'CANCELLED' }))).toEqual({ cancelled: 1 });
    expect(dayFiguresDelta(image(), image({ status: 'REFUNDED' }))).toEqual({ returned: 1 });
    const partly = { ...paid, refundedSettled: 300 };
    expect(dayFiguresDelta(paid, partly)).toEqual({ refunded: 1, refundedVolume: 300 });
    expect(dayFiguresDelta(partly, { ...paid, status: 'REFUNDED', refundedSettled: 1000 })).toEqual({
      refundedVolume: 700,
    });
    const disputed = { ...paid, status: 'DISPUTE' as const };
    expect(dayFiguresDelta(paid, disputed)).toEqual({ disputed: 1, disputedVolume: 1000 });
    expect(dayFiguresDelta(disputed, { ...paid, status: 'CHARGEBACK' })).toEqual({
      disputeLost: 1,
      disputeLostVolume: 1000,
    });
    // Won: back to PAID, nothing moves.
    expect(dayFiguresDelta(disputed, paid)).toEqual({});
    // A case opened after a refund of 300 was paid holds 700: that is what is disputed and lost.
    const heldPart = { ...partly, status: 'DISPUTE' as const, disputedAmount: 700 };
    expect(dayFiguresDelta(partly, heldPart)).toEqual({ disputed: 1, disputedVolume: 700 });
    expect(dayFiguresDelta(heldPart, { ...heldPart, status: 'CHARGEBACK' })).toEqual({
      disputeLost: 1,
      disputeLostVolume: 700,
    });
  });

  it('counts a charge on its São Paulo creation day and sums changes per item', () => {
    const late = image({ createdAt: '2026-11-21T02:30:00.000Z' });
    expect(dayCellOf(scope, late).date).toBe('2026-11-20');
    const cell = dayCellOf(scope, late);
    const other = { ...cell, currency: 'USD' };
    expect(
      sumDayChanges([
        { cell, delta: { created: 1 } },
        { cell, delta: { created: 1, paid: 1 } },
        { cell: other, delta: { created: 1 } },
        { cell: other, delta: { created: -1 } },
      ]),
    ).toEqual([{ cell, delta: { created: 2, paid: 1 } }]);
  });
});

describe('time to pay quantiles', () => {
  it('interpolates inside the bucket holding the rank', () => {
    expect(timeToPayQuantile({}, 0.5)).toBeNull();
    expect(timeToPayQuantile({ ttp00: 4 }, 0.5)).toBe(2.5);
    // 10 payments: 5 within 5 s, 5 in (30 s, 45 s]; p50 = 5 s, p90 = 30 + 15 × 4/5 = 42 s.
    expect(timeToPayQuantile({ ttp00: 5, ttp04: 5 }, 0.5)).toBe(5);
    expect(timeToPayQuantile({ ttp00: 5, ttp04: 5 }, 0.9)).toBe(42);
    // The open bucket answers a day.
    expect(timeToPayQuantile({ ttp00: 1, ttp15: 9 }, 0.9)).toBe(86_400);
  });
});

describe('stats and metrics from day items', () => {
  const window = windowOf(1, Date.parse('2026-11-22T17:00:00Z')); // 19 … 22 November
  const days: DayAggregate[] = [
    {
      date: '2026-11-18', // before the window: never counted
      currency: 'BRL',
      method: 'PIX',
      figures: { created: 50, paid: 50, paidVolume: 50_000 },
    },
    {
      date: '2026-11-19',
      currency: 'BRL',
      method: 'PIX',
      figures: { created: 4, paid: 3, paidVolume: 3000, feeVolume: 90, expired: 1, ttp00: 3 },
    },
    { date: '2026-11-22', currency: 'BRL', method: 'PIX', figures: { created: 2, paid: 1, paidVolume: 700 } },
    { date: '2026-11-22', currency: 'USD', method: 'PIX', figures: { created: 1 } },
  ];

  it('answers Part 2 stats over the window', () => {
    expect(paymentStats(window, days)).toEqual({
      totalTransactions: 7,
      paidTransactions: 4,
      todayTransactions: 3,
      successRate: 57,
      volumeByCurrency: [
        { currency: 'BRL', volume: 3700, count: 4 },
        { currency: 'USD', volume: 0, count: 0 },
      ],
      todayVolumeByCurrency: { BRL: 700, USD: 0 },
      dailyVolume: [
        { date: '2026-11-19', currencies: { BRL: 3000, USD: 0 } },
        { date: '2026-11-20', currencies: { BRL: 0, USD: 0 } },
        { date: '2026-11-21', currencies: { BRL: 0, USD: 0 } },
        { date: '2026-11-22', currencies: { BRL: 700, USD: 0 } },
      ],
      methodBreakdown: [{ method: 'PIX', volume: 3700, count: 4 }],
    });
  });

  it('keeps the 366 most recent days of a longer window', () => {
    const long = windowOf(400, Date.parse('2026-11-22T17:00:00Z'));
    expect(long.dates.length).toBeGreaterThan(366);
    const daily = paymentStats(long, []).dailyVolume;
    expect(daily).toHaveLength(366);
    expect(daily.at(-1)?.date).toBe('2026-11-22');
  });

  it('answers metrics for one currency, with the same per day', () => {
    const metrics = paymentMetrics(window, 1, days, 'BRL');
    expect(metrics).toMatchObject({
      days: 1,
      from: '2026-11-19',
      to: '2026-11-22',
      currency: 'BRL',
      funnel: { created: 6, paid: 4, expired: 1 },
      rates: { conversion: 66.67, expiry: 16.67 },
      volume: [{ currency: 'BRL', gross: 3700, fees: 90, net: 3610, averageTicket: 925 }],
      // Three times to pay within 5 s (the fourth payment has none in these figures): ranks 1.5 and 2.7 of 3.
      timeToPay: { payments: 4, p50Seconds: 2.5, p90Seconds: 4.5 },
    });
    expect(metrics.daily.map((d) => d.funnel.created)).toEqual([4, 0, 0, 2]);
  });
});

describe('report queries', () => {
  const paramOf = (parse: () => unknown) => {
    try {
      parse();
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidInput);
      return (error as InvalidInput).param;
    }
    throw new Error('accepted');
  };

  it('defaults days to 7 and rejects anything but a positive integer with param days', () => {
    expect(parseStatsQuery({})).toEqual({ days: 7 });
    expect(parseStatsQuery({ days: '400' })).toEqual({ days: 400 });
    for (const days of ['0', '-1', '1.5', 'abc', '', '99999999999999999999'])
      expect(paramOf(() => parseStatsQuery({ days }))).toBe('days');
    expect(paramOf(() => parseStatsQuery({ since: '1' }))).toBe('since');
  });

  it('takes an optional currency on metrics', () => {
    expect(parseMetricsQuery({ currency: 'brl', days: '10000' })).toEqual({ days: 10_000, currency: 'BRL' });
    expect(paramOf(() => parseMetricsQuery({ currency: 'R$' }))).toBe('currency');
  });
});
