/**
 * Wallet balances: one item per merchant scope (account + mode) and currency,
 * `ACCOUNT#<id>#<mode>` / `WALLET#<currency>`. Balances are maintained by the ledger writes
 * of later business steps; an account that never received money has no item and reads as zero.
 */

import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { WalletBalance } from '../domain/wallets.ts';
import { db, tableName } from './client.ts';
import { type MerchantScope, scopePk } from './keys.ts';

export async function listWalletBalances(scope: MerchantScope): Promise<WalletBalance[]> {
  const { Items = [] } = await db.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': scopePk(scope), ':prefix': 'WALLET#' },
    }),
  );
  return Items.map((item) => ({
    currency: String(item.currency),
    available: Number(item.available ?? 0),
    pending: Number(item.pending ?? 0),
    retained: Number(item.retained ?? 0),
    nextReleaseAt: typeof item.nextReleaseAt === 'string' ? item.nextReleaseAt : null,
    nextReleaseAmount: typeof item.nextReleaseAmount === 'number' ? item.nextReleaseAmount : null,
  }));
}
