/** `wallets` group: balances (Part 1). */

import * as v from 'valibot';
import { BalanceQuery } from '../../domain/wallets.ts';
import { Amount, Currency, NullableTimestamp } from './common.ts';
import type { Operations } from './operation.ts';

const BalanceEntry = v.strictObject({
  currency: Currency,
  available: Amount,
  pending: Amount,
  total: Amount,
});

/** Without `currency`: top-level fields describe the primary currency (BRL). */
export const WalletBalance = v.pipe(
  v.strictObject({
    available: Amount,
    pending: Amount,
    total: Amount,
    retained: Amount,
    currency: Currency,
    next_release_at: NullableTimestamp,
    next_release_amount: v.nullable(Amount),
    balances: v.array(BalanceEntry),
    primary: BalanceEntry,
  }),
  v.examples([
    {
      available: 98950,
      pending: 0,
      total: 98950,
      retained: 0,
      currency: 'BRL',
      next_release_at: null,
      next_release_amount: null,
      balances: [{ currency: 'BRL', available: 98950, pending: 0, total: 98950 }],
      primary: { currency: 'BRL', available: 98950, pending: 0, total: 98950 },
    },
  ]),
);

/** With `currency`: the flat single-currency shape. */
export const CurrencyBalance = v.strictObject({
  available: Amount,
  pending: Amount,
  currency: Currency,
  next_release_at: NullableTimestamp,
  next_release_amount: v.nullable(Amount),
});

export const WalletListItem = v.strictObject({
  currency: Currency,
  walletType: v.literal('OPERATIONAL'),
  balance: Amount,
  pendingBalance: Amount,
});

export const walletOperations: Operations<'wallets'> = {
  getWalletBalance: {
    summary: 'Wallet balance',
    description:
      'Without `currency`: every currency, the primary (BRL) at the top level. With `currency`: that currency alone, flat (zero for an unused one).',
    query: BalanceQuery,
    responses: {
      200: { description: 'The balance.', schema: v.union([WalletBalance, CurrencyBalance]) },
    },
  },
  listWallets: {
    summary: 'List wallets',
    description: 'One operational wallet per currency; the primary (BRL) always listed.',
    responses: { 200: { description: 'The wallets.', schema: v.array(WalletListItem) } },
  },
};
