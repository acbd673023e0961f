/**
 * Runs after every integration test file: each wallet (the sum of its shard items) equals the
 * sum of its ledger entries, and each journal sums to zero (docs/data-model.md, "Every money
 * movement"), for every account the file created (and the demo account). Per account, not a
 * scan of the table: the suite shares one table, and a file that settles thousands of payments
 * (the write-distribution test) must not make every later file's check read them all again.
 */

import { afterAll, expect, inject } from 'vitest';
import { queryAll, tableName } from '../../shared/store/client.ts';
import { PREFIX, parseScope, prefixEnd, scopePartitionPks, scopePk } from '../../shared/store/keys.ts';
import { accountsCreatedHere } from './accounts.ts';

/**
 * The wallet shards (in the scope's partition) and journals (in the scope's item partitions) of
 * each scope (live and test) of `accountIds`.
 */
async function moneyItems(accountIds: Iterable<string>): Promise<Record<string, any>[]> {
  const range = (pk: string, prefix: string) =>
    queryAll({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': pk, ':from': prefix, ':to': prefixEnd(prefix) },
      ConsistentRead: true,
    });
  const ranges = [...new Set(accountIds)].flatMap((accountId) =>
    (['live', 'test'] as const).flatMap((mode) => [
      range(scopePk({ accountId, mode }), PREFIX.wallet),
      ...scopePartitionPks({ accountId, mode }).map((pk) => range(pk, PREFIX.journal)),
    ]),
  );
  return (await Promise.all(ranges)).flat();
}

/** The account's journals as stored (both modes), each with its `kind` and `entries`. */
export async function journalsOf(accountId: string): Promise<Record<string, any>[]> {
  return (await moneyItems([accountId])).filter((i) => i.type === 'ledger');
}

export async function ledgerDiscrepancies(
  accountIds: Iterable<string> = [...accountsCreatedHere, inject('demo').account_id],
): Promise<string[]> {
  const items = await moneyItems(accountIds);

  const problems: string[] = [];
  const journals = new Map<string, number>();
  const fromLedger = new Map<string, { available: number; pending: number; retained: number }>();
  for (const journal of items.filter((i) => i.type === 'ledger')) {
    const key = `${scopePk(parseScope(journal.pk))}|${journal.currency}`;
    const sums = fromLedger.get(key) ?? { available: 0, pending: 0, retained: 0 };
    for (const entry of journal.entries as { account: string; amount: number }[]) {
      journals.set(journal.journalId, (journals.get(journal.journalId) ?? 0) + entry.amount);
      if (entry.account === 'merchant_available') sums.available -= entry.amount;
      if (entry.account === 'merchant_pending') sums.pending -= entry.amount;
      if (entry.account === 'merchant_retained') sums.retained -= entry.amount;
    }
    fromLedger.set(key, sums);
  }
  for (const [journal, sum] of journals) if (sum !== 0) problems.push(`journal ${journal} sums to ${sum}`);
  // A wallet is every shard item of its scope and currency, summed.
  const walletSums = new Map<
    string,
    { pk: string; currency: string; available: number; pending: number; retained: number }
  >();
  for (const shard of items.filter((i) => i.type === 'wallet')) {
    const key = `${shard.pk}|${shard.currency}`;
    const sum = walletSums.get(key) ?? {
      pk: shard.pk,
      currency: shard.currency,
      available: 0,
      pending: 0,
      retained: 0,
    };
    sum.available += shard.available ?? 0;
    sum.pending += shard.pending ?? 0;
    // A shard written before `retained` existed has no such attribute: 0.
    sum.retained += shard.retained ?? 0;
    walletSums.set(key, sum);
  }
  const wallets = [...walletSums.values()];
  for (const wallet of wallets) {
    const sums = fromLedger.get(`${wallet.pk}|${wallet.currency}`) ?? {
      available: 0,
      pending: 0,
      retained: 0,
    };
    const retained = wallet.retained;
    if (
      wallet.available !== sums.available ||
      wallet.pending !== sums.pending ||
      retained !== sums.retained
    ) {
      problems.push(
        `${wallet.pk} ${wallet.currency}: wallet ${wallet.available}/${wallet.pending}/${retained}, ledger ${sums.available}/${sums.pending}/${sums.retained}`,
      );
    }
  }
  for (const key of fromLedger.keys()) {
    const [pk, currency] = key.split('|');
    const sums = fromLedger.get(key);
    if (
      (sums?.available || sums?.pending || sums?.retained) &&
      !wallets.some((w) => w.pk === pk && w.currency === currency)
    ) {
      problems.push(`${key}: ledger moves money but no wallet exists`);
    }
  }
  return problems;
}

afterAll(async () => {
  expect(await ledgerDiscrepancies()).toEqual([]);
});
