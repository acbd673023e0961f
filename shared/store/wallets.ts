/**
 * Wallet balances: per merchant scope (account + mode) and currency, the sum of the scope's
 * shard items `ACCOUNT#<id>#<mode>` / `WALLET#<currency>#<shard>` (and the unsharded
 * `WALLET#<currency>` of money moved before sharding), moved only by ledger journals (see
 * ledger.ts). One query reads every shard, whatever the account's shard count is now, so a
 * shard beyond a lowered count is still summed (and drained by debits).
 * Held money waits in tranches (`TRANCHE#<releaseAt>#<chargeId>`, in the scope partition of
 * their charge); the earliest of all partitions gives
 * `next_release_at`/`amount`. An account that never received money has no item: zero.
 */

import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { ShardBalance } from '../domain/shards.ts';
import type { WalletBalance } from '../domain/wallets.ts';
import { db, tableName } from './client.ts';
import { type MerchantScope, PREFIX, parseShard, prefixEnd, scopePk } from './keys.ts';
import { queryMerged, scopeRangeQueries } from './merged-query.ts';

const query = (scope: MerchantScope, prefix: string, options: { consistent?: boolean } = {}) =>
  db.send(
    new QueryCommand({
      TableName: tableName(),
      // A range rather than `begins_with`: DynamoDB Local walks the partition for the latter (keys.ts).
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': scopePk(scope), ':from': prefix, ':to': prefixEnd(prefix) },
      ...(options.consistent && { ConsistentRead: true }),
    }),
  );

/** Every shard of the scope's wallet in `currency`, as committed (one consistent query). */
export async function readWalletShards(scope: MerchantScope, currency: string): Promise<ShardBalance[]> {
  const { Items = [] } = await query(scope, `${PREFIX.wallet}${currency}`, { consistent: true });
  return Items.filter((item) => item.currency === currency).map((item) => ({
    shard: parseShard(String(item.sk)),
    available: Number(item.available ?? 0),
  }));
}

/** The shards of each currency summed into one balance. */
function sumShards(
  items: Record<string, unknown>[],
): Map<string, { available: number; pending: number; retained: number }> {
  const sums = new Map<string, { available: number; pending: number; retained: number }>();
  for (const item of items) {
    const currency = String(item.currency);
    const sum = sums.get(currency) ?? { available: 0, pending: 0, retained: 0 };
    sum.available += Number(item.available ?? 0);
    sum.pending += Number(item.pending ?? 0);
    sum.retained += Number(item.retained ?? 0);
    sums.set(currency, sum);
  }
  return sums;
}

export async function listWalletBalances(scope: MerchantScope): Promise<WalletBalance[]> {
  const [wallets, tranches] = await Promise.all([
    query(scope, PREFIX.wallet),
    // Tranches sit in the scope's partitions (by charge): the earliest 50 of them all, merged.
    queryMerged(scopeRangeQueries(scope, { from: PREFIX.tranche, to: prefixEnd(PREFIX.tranche) }), 50, 'asc'),
  ]);
  const nextRelease = new Map<string, { at: string; amount: number }>();
  for (const t of tranches) {
    const currency = String(t.currency);
    const current = nextRelease.get(currency);
    if (!current) nextRelease.set(currency, { at: String(t.releaseAt), amount: Number(t.amount) });
    else if (current.at === t.releaseAt) current.amount += Number(t.amount);
  }
  return [...sumShards(wallets.Items ?? [])].map(([currency, sum]) => {
    const release = nextRelease.get(currency);
    return {
      currency,
      ...sum,
      nextReleaseAt: release?.at ?? null,
      nextReleaseAmount: release?.amount ?? null,
    };
  });
}
