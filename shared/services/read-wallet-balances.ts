/**
 * `GET /v1/wallets/balance` and `GET /v1/wallets`: the scope's balance per currency, with its next
 * release. The tranches sit in every scope partition (16 queries), so they are read only when
 * some money is pending: a scope without a settlement hold (the default) reads one query.
 */

import type { MerchantScope } from '../domain/scope.ts';
import { holdsTranches, type WalletBalance, withNextReleases } from '../domain/wallets.ts';
import { readEarliestTranches, readWalletSums } from '../store/wallets.ts';

export async function readWalletBalances(scope: MerchantScope): Promise<WalletBalance[]> {
  const sums = await readWalletSums(scope);
  return withNextReleases(sums, holdsTranches(sums) ? await readEarliestTranches(scope) : []);
}
