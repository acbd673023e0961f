/**
 * Wallet balances: one item per merchant scope (account + mode) and currency,
 * `ACCOUNT#<id>#<mode>` / `WALLET#<currency>`, moved only by ledger journals (see ledger.ts).
 * Held money waits in tranches (`TRANCHE#<releaseAt>#<chargeId>`); the earliest gives
 * `next_release_at`/`amount`. An account that never received money has no item: zero.
 */

import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { WalletBalance } from '../domain/wallets.ts';
import { db, tableName } from './client.ts';
import { type MerchantScope, PREFIX, scopePk } from './keys.ts';

const query = (scope: MerchantScope, prefix: string, limit?: number) =>
  db.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': scopePk(scope), ':prefix': prefix },
      ...(limit !== undefined && { Limit: limit }),
    }),
  );

export async function listWalletBalances(scope: MerchantScope): Promise<WalletBalance[]> {
  const [wallets, tranches] = await Promise.all([
    query(scope, PREFIX.wallet),
    query(scope, PREFIX.tranche, 50),
  ]);
  const nextRelease = new Map<string, { at: string; amount: number }>();
  for (const t of tranches.Items ?? []) {
    const currency = String(t.currency);
    const current = nextRelease.get(currency);
    if (!current) nextRelease.set(currency, { at: String(t.releaseAt), amount: Number(t.amount) });
    else if (current.at === t.releaseAt) current.amount += Number(t.amount);
  }
  return (wallets.Items ?? []).map((item) => {
    const release = nextRelease.get(String(item.currency));
    return {
      currency: String(item.currency),
      available: Number(item.available ?? 0),
      pending: Number(item.pending ?? 0),
      retained: Number(item.retained ?? 0),
      nextReleaseAt: release?.at ?? null,
      nextReleaseAmount: release?.amount ?? null,
    };
  });
}
