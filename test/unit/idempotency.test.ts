import { describe, expect, it } from 'vitest';
import {
  answersRefund,
  IDEMPOTENCY_RETENTION_SECONDS,
  idempotencyLifetime,
  lapsedAtOrBefore,
  retained,
  retentionPeriodOf,
} from '../../shared/domain/idempotency.ts';

const DAY_MS = IDEMPOTENCY_RETENTION_SECONDS * 1000;
const createdAt = '2026-11-21T10:00:00.123Z';
const t0 = Date.parse(createdAt);

describe('idempotency retention', () => {
  it.each([
    [0, true],
    [DAY_MS - 1, true],
    [DAY_MS, false],
    [30 * DAY_MS, false],
  ])('a record used %d ms ago is retained: %s, and the write condition agrees', (age, expected) => {
    expect(retained({ createdAt }, t0 + age)).toBe(expected);
    // The store may replace the record exactly when it is no longer retained.
    expect(createdAt <= lapsedAtOrBefore(t0 + age)).toBe(!expected);
  });

  it('stores a record until a day after its creation, replacing only records that lapsed by then', () => {
    expect(idempotencyLifetime(createdAt)).toEqual({
      expiresAt: Math.floor(t0 / 1000) + IDEMPOTENCY_RETENTION_SECONDS,
      replacesUpTo: '2026-11-20T10:00:00.123Z',
    });
  });

  it('puts a key used again after its record lapsed in a later period, so it derives another txid', () => {
    for (const offset of [0, 1, 999, DAY_MS / 2, DAY_MS - 1]) {
      const first = t0 + offset;
      expect(retentionPeriodOf(first + DAY_MS)).toBeGreaterThan(retentionPeriodOf(first));
    }
  });

  it.each([
    ['the same refund request, within 24 h', 0, 'h1', true],
    ['another body, within 24 h (refused as a reuse)', 0, 'h2', true],
    ['the same refund request, after 24 h (never refunds twice)', DAY_MS, 'h1', true],
    ['another body, after 24 h (a new request)', DAY_MS, 'h2', false],
  ])('a refund record answers %s: %s', (_label, age, requestHash, expected) => {
    expect(answersRefund({ createdAt, requestHash: 'h1' }, requestHash as string, t0 + (age as number))).toBe(
      expected,
    );
  });
});
