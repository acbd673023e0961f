import { describe, expect, it } from 'vitest';
import {
  holdsTranches,
  serializeBalance,
  serializeCurrencyBalance,
  serializeWalletListItem,
  type WalletBalance,
  withNextReleases,
} from '../../shared/domain/wallets.ts';

const wallet = (currency: string, available: number, pending: number): WalletBalance => ({
  currency,
  available,
  pending,
  retained: 5,
  nextReleaseAt: '2026-11-22T00:00:00.000Z',
  nextReleaseAmount: pending,
});

describe('wallet serializers', () => {
  it('puts the primary currency (BRL) at the top level and first in balances', () => {
    const body = serializeBalance([wallet('USD', 1, 2), wallet('BRL', 100, 50)]);
    expect(body).toMatchObject({
      available: 100,
      pending: 50,
      total: 150,
      retained: 5,
      currency: 'BRL',
      next_release_amount: 50,
    });
    expect(body.balances.map((b) => b.currency)).toEqual(['BRL', 'USD']);
    expect(body.primary).toEqual({ currency: 'BRL', available: 100, pending: 50, total: 150 });
  });

  it('reports a zero BRL primary when only other currencies exist', () => {
    expect(serializeBalance([wallet('EUR', 3, 0)]).primary).toEqual({
      currency: 'BRL',
      available: 0,
      pending: 0,
      total: 0,
    });
  });

  it('builds the flat and list shapes field by field', () => {
    const w = wallet('BRL', 7, 3);
    expect(Object.keys(serializeCurrencyBalance(w)).sort()).toEqual([
      'available',
      'currency',
      'next_release_amount',
      'next_release_at',
      'pending',
    ]);
    expect(serializeWalletListItem(w)).toEqual({
      currency: 'BRL',
      walletType: 'OPERATIONAL',
      balance: 7,
      pendingBalance: 3,
    });
  });
});

describe('next releases', () => {
  const sum = (currency: string, pending: number) => ({ currency, available: 10, pending, retained: 0 });

  it('reads tranches only when some money is pending', () => {
    expect(holdsTranches([sum('BRL', 0), sum('USD', 0)])).toBe(false);
    expect(holdsTranches([sum('BRL', 0), sum('USD', 3)])).toBe(true);
  });

  it("gives each currency its earliest tranche's time and the amount of every tranche released then", () => {
    const at = (day: number) => `2026-11-${day}T00:00:00.000Z`;
    const balances = withNextReleases(
      [sum('BRL', 600), sum('USD', 5), sum('EUR', 0)],
      [
        { currency: 'BRL', releaseAt: at(24), amount: 100 },
        { currency: 'USD', releaseAt: at(24), amount: 5 },
        { currency: 'BRL', releaseAt: at(24), amount: 200 },
        { currency: 'BRL', releaseAt: at(25), amount: 300 },
      ],
    );
    expect(balances.map((b) => [b.currency, b.nextReleaseAt, b.nextReleaseAmount])).toEqual([
      ['BRL', at(24), 300],
      ['USD', at(24), 5],
      ['EUR', null, null],
    ]);
  });
});
