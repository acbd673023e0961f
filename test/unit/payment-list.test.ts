import { describe, expect, it } from 'vitest';
import { saoPauloDate } from '../../shared/domain/business-calendar.ts';
import type { ChargeRecord } from '../../shared/domain/charges.ts';
import { chunkByItems } from '../../shared/domain/counter-chunks.ts';
import { InvalidInput } from '../../shared/domain/errors.ts';
import { parseIsoBound } from '../../shared/domain/iso-time.ts';
import { itemIdsOfRecordChange } from '../../shared/domain/payment-aggregates.ts';
import {
  bucketsOf,
  type CountLevel,
  type PaymentCountChange,
  paymentCountDelta,
  planWindowCount,
  sumPaymentCountChanges,
} from '../../shared/domain/payment-counts.ts';
import {
  compareSortRows,
  mergeIds,
  PAYMENT_FIELD_SOURCES,
  PAYMENT_LIST_MAX_DEPTH,
  type PaymentField,
  parsePaymentListQuery,
  paymentFields,
  servedByKeyOrder,
  showsStatus,
  sortValueOf,
  statusPlan,
} from '../../shared/domain/payment-list.ts';
import { serializePayment } from '../../shared/domain/payments.ts';
import { chargeRecord } from '../helpers/charge-record.ts';

const scope = { accountId: 'acct_1', mode: 'test' as const };

// ── Counters ──────────────────────────────────────────────────────────────────────────────────

/** The start (ms) of the bucket a label names, and of the next one. */
function bucketSpan(level: CountLevel, label: string): [number, number] {
  const start = Date.parse(
    {
      MINUTE: `${label}:00Z`,
      HOUR: `${label}:00:00Z`,
      DAY: `${label}T00:00:00Z`,
      MONTH: `${label}-01T00:00:00Z`,
    }[level],
  );
  const at = new Date(start);
  const end =
    level === 'MONTH'
      ? Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1)
      : start + { MINUTE: 60_000, HOUR: 3_600_000, DAY: 86_400_000 }[level];
  return [start, end];
}

const LEVEL_LABEL = { MINUTE: 16, HOUR: 13, DAY: 10, MONTH: 7 } as const;

/** Every bucket a finite counter range names, as [start, end) spans. */
function expand(range: { level: CountLevel; from?: string; to?: string }): [number, number][] {
  const spans: [number, number][] = [];
  let [start, end] = bucketSpan(range.level, range.from as string);
  const last = bucketSpan(range.level, range.to as string)[0];
  while (start <= last) {
    spans.push([start, end]);
    [start, end] = bucketSpan(range.level, new Date(end).toISOString().slice(0, LEVEL_LABEL[range.level]));
  }
  return spans;
}

describe('payment counters', () => {
  it('counts a creation in total and its status, a status change as a move, and nothing else', () => {
    expect(paymentCountDelta(undefined, 'WAITING_PAYMENT')).toEqual({ total: 1, WAITING_PAYMENT: 1 });
    expect(paymentCountDelta('WAITING_PAYMENT', 'PAID')).toEqual({ WAITING_PAYMENT: -1, PAID: 1 });
    expect(paymentCountDelta('PAID', 'PAID')).toEqual({});
  });

  it('puts a payment in its creation minute, hour, day and month (UTC)', () => {
    expect(bucketsOf('2026-05-01T13:45:59.999Z')).toEqual([
      { level: 'MINUTE', label: '2026-05-01T13:45' },
      { level: 'HOUR', label: '2026-05-01T13' },
      { level: 'DAY', label: '2026-05-01' },
      { level: 'MONTH', label: '2026-05' },
    ]);
  });

  it('sums changes per counter item, leaving out those that cancel', () => {
    const change = (createdAt: string, delta: PaymentCountChange['delta']) => ({ scope, createdAt, delta });
    const sums = sumPaymentCountChanges([
      change('2026-05-01T13:45:00.000Z', { total: 1, WAITING_PAYMENT: 1 }),
      change('2026-05-01T13:45:10.000Z', { WAITING_PAYMENT: -1, PAID: 1 }),
      change('2026-05-01T13:46:00.000Z', { total: 1, WAITING_PAYMENT: 1 }),
    ]);
    const byCell = Object.fromEntries(sums.map((s) => [`${s.cell.level} ${s.cell.label}`, s.delta]));
    expect(byCell['MINUTE 2026-05-01T13:45']).toEqual({ total: 1, PAID: 1 });
    expect(byCell['MINUTE 2026-05-01T13:46']).toEqual({ total: 1, WAITING_PAYMENT: 1 });
    expect(byCell['HOUR 2026-05-01T13']).toEqual({ total: 2, WAITING_PAYMENT: 1, PAID: 1 });
    expect(sums).toHaveLength(5);
    expect(
      sumPaymentCountChanges([
        change('2026-05-01T13:45:00.000Z', { PAID: -1, REFUNDED: 1 }),
        change('2026-05-01T13:45:00.000Z', { PAID: 1, REFUNDED: -1 }),
      ]),
    ).toEqual([]);
  });

  it('chunks changes so that markers, distinct counter items and day aggregates fit one transaction', () => {
    const changes = Array.from({ length: 150 }, (_, n) => {
      const createdAt = new Date(Date.UTC(2026, 4, 1, n % 3 === 0 ? 2 : 12, n)).toISOString();
      return {
        change: {
          counts: { scope, createdAt, delta: { total: 1 } },
          day: {
            cell: {
              scope,
              date: saoPauloDate(Date.parse(createdAt)),
              currency: 'BRL',
              method: 'PIX',
              shard: n % 4,
            },
            delta: { created: 1 },
          },
        },
      };
    });
    const chunks = chunkByItems(
      changes,
      (c) => [`marker ${c.change.counts.createdAt}`, ...itemIdsOfRecordChange(c.change)],
      100,
    );
    expect(chunks.flat()).toEqual(changes);
    for (const chunk of chunks) {
      const cells = new Set(
        chunk.flatMap((c) => [
          ...bucketsOf(c.change.counts.createdAt).map((b) => `${b.level}${b.label}`),
          `day ${c.change.day.cell.date}`,
        ]),
      );
      expect(chunk.length + cells.size).toBeLessThanOrEqual(100);
    }
    // Both São Paulo days of 1 May (00:00–02:59 UTC is still 30 April there) are written.
    expect(new Set(changes.map((c) => c.change.day.cell.date))).toEqual(
      new Set(['2026-04-30', '2026-05-01']),
    );
  });

  it('reads an open window from the month counters alone', () => {
    expect(planWindowCount()).toEqual({ counters: [{ level: 'MONTH' }], edges: [] });
    expect(planWindowCount(Date.parse('2026-05-01T00:00:00Z')).counters).toEqual([
      { level: 'MONTH', from: '2026-05' },
    ]);
  });

  it('reads whole days and months from their counters, and a window inside a minute from the items', () => {
    expect(
      planWindowCount(Date.parse('2026-05-01T00:00:00Z'), Date.parse('2026-06-30T23:59:59.999Z')),
    ).toEqual({
      counters: [{ level: 'MONTH', from: '2026-05', to: '2026-06' }],
      edges: [],
    });
    expect(
      planWindowCount(Date.parse('2026-05-03T00:00:00Z'), Date.parse('2026-05-03T23:59:59.999Z')),
    ).toEqual({
      counters: [{ level: 'DAY', from: '2026-05-03', to: '2026-05-03' }],
      edges: [],
    });
    const a = Date.parse('2026-05-03T10:00:01.500Z');
    expect(planWindowCount(a, a + 20_000)).toEqual({
      counters: [],
      edges: [{ fromMs: a, toMs: a + 20_001 }],
    });
    expect(planWindowCount(a + 1, a)).toEqual({ counters: [], edges: [] });
  });

  it('tiles any window exactly: partial minutes from the items, whole buckets once each, few counters', () => {
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const base = Date.parse('2025-11-20T00:00:00Z');
    for (let n = 0; n < 300; n++) {
      const from = base + Math.floor(random() * 400 * 86_400_000);
      const to = from + Math.floor(random() ** 3 * 200 * 86_400_000);
      const plan = planWindowCount(from, to);
      const spans = [
        ...plan.edges.map((e): [number, number] => [e.fromMs, e.toMs]),
        ...plan.counters.flatMap(expand),
      ].sort((x, y) => x[0] - y[0]);
      let at = from;
      for (const [start, end] of spans) {
        expect(start).toBe(at);
        at = end;
      }
      expect(at).toBe(to + 1);
      expect(plan.edges.length).toBeLessThanOrEqual(2);
      for (const edge of plan.edges) expect(edge.toMs - edge.fromMs).toBeLessThan(60_000);
      expect(plan.counters.length).toBeLessThanOrEqual(7);
      expect(plan.counters.flatMap(expand).length).toBeLessThanOrEqual(2 * 59 + 2 * 23 + 2 * 30 + 12);
    }
  });
});

// ── The query ─────────────────────────────────────────────────────────────────────────────────

function paramOf(query: Record<string, string>): string | undefined {
  try {
    parsePaymentListQuery(query);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInput);
    return (error as InvalidInput).param;
  }
  return undefined;
}

describe('payment list query', () => {
  it('has the spec defaults', () => {
    expect(parsePaymentListQuery({})).toEqual({ page: 1, limit: 20, sortBy: 'createdAt', sortOrder: 'desc' });
  });

  it('reads dates as inclusive bounds: a date alone is its whole UTC day, a time without offset is UTC', () => {
    expect(parseIsoBound('2026-05-01', 'start')).toBe(Date.parse('2026-05-01T00:00:00.000Z'));
    expect(parseIsoBound('2026-05-01', 'end')).toBe(Date.parse('2026-05-01T23:59:59.999Z'));
    expect(parseIsoBound('2026-05-01T10:20', 'end')).toBe(Date.parse('2026-05-01T10:20:00.000Z'));
    expect(parseIsoBound('2026-05-01T10:20:30.5-03:00', 'start')).toBe(
      Date.parse('2026-05-01T13:20:30.500Z'),
    );
    expect(parseIsoBound('2026-05-01T10:20:30+0530', 'start')).toBe(Date.parse('2026-05-01T04:50:30.000Z'));
    // Below the millisecond: a start rounds up, an end down.
    expect(parseIsoBound('2026-05-01T10:20:30.123456Z', 'start')).toBe(
      Date.parse('2026-05-01T10:20:30.124Z'),
    );
    expect(parseIsoBound('2026-05-01T10:20:30.123456Z', 'end')).toBe(Date.parse('2026-05-01T10:20:30.123Z'));
    for (const bad of [
      '2026-02-30',
      '2026-13-01',
      '2026-05-01T24:00',
      '2026-5-1',
      'yesterday',
      '2026-05-01T10:20+25:00',
      '',
    ])
      expect([bad, parseIsoBound(bad, 'start')]).toEqual([bad, undefined]);
  });

  it.each([
    ['page', { page: '0' }],
    ['page', { page: '1.5' }],
    ['limit', { limit: '0' }],
    ['limit', { limit: '101' }],
    ['limit', { limit: 'ten' }],
    ['status', { status: 'paid' }],
    ['status', { status: 'NOPE' }],
    ['sortBy', { sortBy: 'secret' }],
    ['sortBy', { sortBy: 'accountId' }],
    ['sortOrder', { sortOrder: 'up' }],
    ['startDate', { startDate: '2026-02-30' }],
    ['endDate', { endDate: 'tomorrow' }],
    ['page', { page: '101', limit: '100' }],
    ['page', { page: '51' }],
    ['page', { page: '11', limit: '100' }],
    ['offset', { offset: '20' }],
  ])('answers 400 naming %s for %j', (param, query) => {
    expect(paramOf(query)).toBe(param);
  });

  it('answers 400 naming no param for startDate after endDate (either bound may be the wrong one)', () => {
    expect(() => parsePaymentListQuery({ startDate: '2026-05-02', endDate: '2026-05-01' })).toThrow(
      expect.objectContaining({
        param: undefined,
        message: 'startDate must not be after endDate.',
        details: [
          { param: 'startDate', message: 'startDate must not be after endDate.' },
          { param: 'endDate', message: 'startDate must not be after endDate.' },
        ],
      }),
    );
  });

  it('accepts the deepest page and the same day as both bounds', () => {
    expect(paramOf({ page: String(PAYMENT_LIST_MAX_DEPTH / 100), limit: '100' })).toBeUndefined();
    expect(parsePaymentListQuery({ startDate: '2026-05-01', endDate: '2026-05-01' })).toMatchObject({
      fromMs: Date.parse('2026-05-01T00:00:00Z'),
      toMs: Date.parse('2026-05-01T23:59:59.999Z'),
    });
  });
});

// ── Sorting and status ────────────────────────────────────────────────────────────────────────

const NOW = Date.parse('2026-11-21T12:00:00Z');
const record = (overrides: Partial<ChargeRecord> = {}): ChargeRecord =>
  chargeRecord({
    amount: 100,
    expiresAt: '2026-11-21T13:00:00.000Z',
    createdAt: '2026-11-21T10:00:00.000Z',
    ...overrides,
  });

const SAMPLES: ChargeRecord[] = [
  record(),
  record({ expiresAt: '2026-11-21T11:00:00.000Z' }), // past expiry, not recorded yet
  record({
    status: 'PAID',
    paidAt: '2026-11-21T10:05:00.000Z',
    fees: { providerFee: 1, platformFee: 1, netAmount: 98 },
    customer: { name: 'Ana', document: '52998224725', email: 'ana@example.com', phone: '+5511999999999' },
    metadata: { order: 7 },
    paymentMethods: ['PIX', 'BOLETO'],
  }),
  record({
    status: 'REFUSED',
    brCode: undefined,
    qrCodeBase64: undefined,
    failure: { reason: 'refused', providerErrorCode: 'refused', at: '2026-11-21T10:00:00.000Z' },
  }),
];

const pick = (charge: ChargeRecord, keys: readonly (keyof ChargeRecord)[]): Partial<ChargeRecord> =>
  Object.fromEntries(keys.filter((k) => charge[k] !== undefined).map((k) => [k, charge[k]]));

describe('payment list sorting', () => {
  it('knows every field of the full payment shape', () => {
    for (const charge of SAMPLES)
      expect(Object.keys(serializePayment(charge, NOW)).sort()).toEqual([...paymentFields].sort());
  });

  it('computes each field from exactly the attributes it reads (what a sort projects)', () => {
    for (const charge of SAMPLES)
      for (const field of paymentFields)
        expect([field, sortValueOf(field, pick(charge, PAYMENT_FIELD_SOURCES[field]), NOW)]).toEqual([
          field,
          serializePayment(charge, NOW)[field],
        ]);
  });

  it('serves creation time, id and the fields equal on every payment by the key order', () => {
    const keyOrdered = paymentFields.filter(servedByKeyOrder);
    expect(keyOrdered).toContain('createdAt');
    expect(keyOrdered).toContain('id');
    expect(keyOrdered).toContain('boletoBarcode');
    for (const field of ['amount', 'status', 'paidAt', 'customerName', 'paidWith'] as PaymentField[])
      expect(servedByKeyOrder(field)).toBe(false);
  });

  it('sorts by value in either order, nulls last, ties by creation in the same order', () => {
    const rows = [
      { id: 'a', value: 5 },
      { id: 'b', value: null },
      { id: 'c', value: 1 },
      { id: 'd', value: 5 },
    ];
    const ids = (order: 'asc' | 'desc') =>
      [...rows].sort((x, y) => compareSortRows(x, y, order)).map((r) => r.id);
    expect(ids('asc')).toEqual(['c', 'a', 'd', 'b']);
    expect(ids('desc')).toEqual(['d', 'a', 'c', 'b']);
    expect(compareSortRows({ id: 'a', value: 'Ana' }, { id: 'b', value: 'Bia' }, 'asc')).toBeLessThan(0);
  });

  it('merges two id lists in either order', () => {
    expect(mergeIds(['a', 'c', 'e'], ['b', 'd'], 'asc')).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(mergeIds(['e', 'c'], ['d', 'b', 'a'], 'desc')).toEqual(['e', 'd', 'c', 'b', 'a']);
  });

  it('follows the shown status: awaiting past expiry is EXPIRED', () => {
    const overdue = SAMPLES[1] as ChargeRecord;
    expect(showsStatus(overdue, 'EXPIRED', NOW)).toBe(true);
    expect(showsStatus(overdue, 'WAITING_PAYMENT', NOW)).toBe(false);
    expect(showsStatus(overdue, undefined, NOW)).toBe(true);
    expect(statusPlan('EXPIRED')).toMatchObject({ cell: 'EXPIRED', overdueSign: 1 });
    expect(statusPlan('EXPIRED').overdueOf.sort()).toEqual(['PENDING', 'WAITING_PAYMENT']);
    expect(statusPlan('WAITING_PAYMENT')).toEqual({
      cell: 'WAITING_PAYMENT',
      unexpiredOnly: true,
      overdueOf: ['WAITING_PAYMENT'],
      overdueSign: -1,
    });
    expect(statusPlan('PAID')).toEqual({ cell: 'PAID', unexpiredOnly: false, overdueOf: [], overdueSign: 0 });
    expect(statusPlan(undefined).cell).toBeUndefined();
  });
});
