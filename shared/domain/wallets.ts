/** Public wallet shapes (Part 1, "Wallet balance" and "Wallet list item"), built field by field. */

import * as v from 'valibot';

export const PRIMARY_CURRENCY = 'BRL';

export interface WalletBalance {
  currency: string;
  available: number;
  pending: number;
  retained: number;
  nextReleaseAt: string | null;
  nextReleaseAmount: number | null;
}

/** A currency's shard items summed (`WalletBalance` without its next release). */
export type WalletSum = Omit<WalletBalance, 'nextReleaseAt' | 'nextReleaseAmount'>;

/** Held money waiting for its release (a tranche of a settlement hold). */
export interface HeldTranche {
  currency: string;
  releaseAt: string;
  amount: number;
}

/**
 * Only money held in tranches is `pending` (ledger.ts: a settlement with a hold credits it, a
 * release moves it to `available`), so a scope with nothing pending has no tranche to read.
 */
export const holdsTranches = (sums: readonly WalletSum[]): boolean => sums.some((sum) => sum.pending > 0);

/**
 * Each currency's balance with its next release: the earliest tranche's time, and the amount of
 * every tranche released then (`tranches` in release order).
 */
export function withNextReleases(
  sums: readonly WalletSum[],
  tranches: readonly HeldTranche[],
): WalletBalance[] {
  const next = new Map<string, { at: string; amount: number }>();
  for (const t of tranches) {
    const current = next.get(t.currency);
    if (!current) next.set(t.currency, { at: t.releaseAt, amount: t.amount });
    else if (current.at === t.releaseAt) current.amount += t.amount;
  }
  return sums.map((sum) => ({
    ...sum,
    nextReleaseAt: next.get(sum.currency)?.at ?? null,
    nextReleaseAmount: next.get(sum.currency)?.amount ?? null,
  }));
}

export const emptyWallet = (currency: string): WalletBalance => ({
  currency,
  available: 0,
  pending: 0,
  retained: 0,
  nextReleaseAt: null,
  nextReleaseAmount: null,
});

/** The primary currency first, always present (zero when nothing was ever received). */
export function withPrimary(wallets: WalletBalance[]): WalletBalance[] {
  const primary = wallets.find((w) => w.currency === PRIMARY_CURRENCY) ?? emptyWallet(PRIMARY_CURRENCY);
  return [
    primary,
    ...wallets
      .filter((w) => w.currency !== PRIMARY_CURRENCY)
      .sort((a, b) => a.currency.localeCompare(b.currency)),
  ];
}

const entry = (w: WalletBalance) => ({
  currency: w.currency,
  available: w.available,
  pending: w.pending,
  total: w.available + w.pending,
});

/** `GET /v1/wallets/balance`: top-level fields describe the primary currency. */
export function serializeBalance(wallets: WalletBalance[]) {
  const all = withPrimary(wallets);
  const primary = all[0] ?? emptyWallet(PRIMARY_CURRENCY);
  return {
    available: primary.available,
    pending: primary.pending,
    total: primary.available + primary.pending,
    retained: primary.retained,
    currency: primary.currency,
    next_release_at: primary.nextReleaseAt,
    next_release_amount: primary.nextReleaseAmount,
    balances: all.map(entry),
    primary: entry(primary),
  };
}

/** `GET /v1/wallets/balance?currency=XXX`: the flat single-currency shape. */
export const serializeCurrencyBalance = (w: WalletBalance) => ({
  available: w.available,
  pending: w.pending,
  currency: w.currency,
  next_release_at: w.nextReleaseAt,
  next_release_amount: w.nextReleaseAmount,
});

/** `GET /v1/wallets` items. */
export const serializeWalletListItem = (w: WalletBalance) => ({
  currency: w.currency,
  walletType: 'OPERATIONAL',
  balance: w.available,
  pendingBalance: w.pending,
});

/** The ISO 4217 codes the runtime's ICU knows (a `currency` that names none is a mistake, not a zero balance). */
const ISO_4217 = new Set(Intl.supportedValuesOf('currency'));

/** `GET /v1/wallets/balance` query. */
export const BalanceQuery = v.strictObject({
  currency: v.optional(
    v.pipe(
      v.string(),
      v.toUpperCase(),
      v.regex(/^[A-Z]{3}$/, 'Must be an ISO 4217 currency code'),
      v.check((code) => ISO_4217.has(code), 'Must be an ISO 4217 currency code'),
    ),
  ),
});
