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
