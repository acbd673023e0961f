/** The customer velocity count's pure parts (docs/data-model.md, "Customer velocity"). */

import { describe, expect, it } from 'vitest';
import {
  guardExpiresAt,
  liveCustomerChargeTimes,
  RECENT_CREATES_SECONDS,
  recentCreates,
  unconfirmedCreates,
  velocityCustomerOf,
} from '../../shared/domain/velocity.ts';

const now = new Date('2026-11-23T12:00:00.000Z');
const secondsAgo = (s: number) => new Date(now.getTime() - s * 1000).toISOString();

describe('customer velocity', () => {
  it('counts a charge for its customer document, else for its payer lock', () => {
    expect(velocityCustomerOf({ customer: { document: '111' }, expectedPayerTaxId: '111' })).toBe('111');
    expect(velocityCustomerOf({ customer: {}, expectedPayerTaxId: '222' })).toBe('222');
    expect(velocityCustomerOf({ customer: {} })).toBeUndefined();
  });

  it('keeps the guard’s creates of the last RECENT_CREATES_SECONDS only', () => {
    const recent = {
      a: secondsAgo(RECENT_CREATES_SECONDS + 1),
      b: secondsAgo(RECENT_CREATES_SECONDS),
      c: secondsAgo(1),
    };
    expect(recentCreates(recent, now)).toEqual({ b: recent.b, c: recent.c });
  });

  it('keeps a guard item a day past its newest create', () => {
    expect(guardExpiresAt({ a: secondsAgo(30), b: '2026-11-23T12:00:00.200Z' })).toBe(
      now.getTime() / 1000 + 1 + 24 * 3600,
    );
  });

  it('reads only the recent creates the index does not list as live', () => {
    expect(unconfirmedCreates({ a: secondsAgo(5), b: secondsAgo(3) }, [{ id: 'a' }])).toEqual(['b']);
  });

  it.each([
    ['awaiting payment, before expiry', 'WAITING_PAYMENT', secondsAgo(-60), 1],
    ['awaiting payment, past expiry', 'WAITING_PAYMENT', secondsAgo(1), 0],
    ['paid', 'PAID', secondsAgo(-60), 0],
    ['cancelled', 'CANCELLED', secondsAgo(-60), 0],
  ] as const)('counts an unconfirmed create %s: %s', (_, status, expiresAt, counted) => {
    const indexed = [{ id: 'a', createdAt: secondsAgo(30) }];
    const times = liveCustomerChargeTimes(indexed, [{ status, expiresAt, createdAt: secondsAgo(2) }], now);
    expect(times).toHaveLength(1 + counted);
  });
});
