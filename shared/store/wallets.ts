/**
 * Wallet balances: per merchant scope (account + mode) and currency, the sum of the scope's
 * shard items `ACCOUNT#<id>#<mode>` / `WALLET#<currency>#<shard>` (and the unsharded
 * `WALLET#<currency>` of money moved before sharding), moved only by ledger journals (see
 * ledger.ts). One query reads every shard, whatever the account's shard count is now, so a
 * shard beyond a lowered count is still summed (and drained by debits).
 * Held money waits in tranches (`TRANCHE#<releaseAt>#<chargeId>`, in the scope partition of
 * their charge); the earliest of all partitions give `next_release_at`/`amount`
 * (`read-wallet-balances.ts`). An account that never received money has no item: zero.
 */

import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { ShardBalance } from '../domain/shards.ts';
import type { HeldTranche, WalletSum } from '../domain/wallets.ts';
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

/** Each currency's shard items summed: the scope's balance without its next release. */
export async function readWalletSums(scope: MerchantScope): Promise<WalletSum[]> {
  const { Items = [] } = await query(scope, PREFIX.wallet);
  const sums = new Map<string, WalletSum>();
  for (const item of Items) {
    const currency = String(item.currency);
    const sum = sums.get(currency) ?? { currency, available: 0, pending: 0, retained: 0 };
    sum.available += Number(item.available ?? 0);
    sum.pending += Number(item.pending ?? 0);
    sum.retained += Number(item.retained ?? 0);
    sums.set(currency, sum);
  }
  return [...sums.values()];
}

/** The scope's earliest held tranches, across its partitions (by charge), merged in release order. */
export async function readEarliestTranches(scope: MerchantScope, limit = 50): Promise<HeldTranche[]> {
  const items = await queryMerged(
    scopeRangeQueries(scope, { from: PREFIX.tranche, to: prefixEnd(PREFIX.tranche) }),
    limit,
    'asc',
  );
  return items.map((t) => ({
    currency: String(t.currency),
    releaseAt: String(t.releaseAt),
    amount: Number(t.amount),
  }));
}
