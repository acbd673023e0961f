/**
 * Ledger entries and wallet balances are written together, inside the transaction of the
 * business step that moves the money: the balance item is always the sum of its entries.
 * Entries: `ACCOUNT#<id>#<mode>` / `LEDGER#<time>#<journalId>#<n>`.
 */

import { randomBytes } from 'node:crypto';
import { type Journal, walletDelta } from '../domain/ledger.ts';
import { tableName } from './client.ts';
import { type MerchantScope, scopePk } from './keys.ts';

export type TransactItem = NonNullable<
  import('@aws-sdk/lib-dynamodb').TransactWriteCommandInput['TransactItems']
>[number];

export const walletKey = (scope: MerchantScope, currency: string) => ({
  pk: scopePk(scope),
  sk: `WALLET#${currency}`,
});

/** The entries of one journal, and the matching `ADD` on the merchant's wallet when it moves. */
export function journalItems(scope: MerchantScope, journal: Journal, at: string): TransactItem[] {
  const journalId = `jrn_${randomBytes(10).toString('hex')}`;
  const entries: TransactItem[] = journal.entries.map((entry, n) => ({
    Put: {
      TableName: tableName(),
      Item: {
        pk: scopePk(scope),
        sk: `LEDGER#${at}#${journalId}#${n}`,
        type: 'ledger',
        journalId,
        kind: journal.kind,
        account: entry.account,
        amount: entry.amount,
        currency: journal.currency,
        chargeId: journal.chargeId,
        createdAt: at,
      },
    },
  }));
  const delta = walletDelta(journal);
  if (delta.available === 0 && delta.pending === 0) return entries;
  return [
    ...entries,
    {
      Update: {
        TableName: tableName(),
        Key: walletKey(scope, journal.currency),
        UpdateExpression:
          'ADD available :available, pending :pending SET currency = :currency, #type = :type',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: {
          ':available': delta.available,
          ':pending': delta.pending,
          ':currency': journal.currency,
          ':type': 'wallet',
        },
      },
    },
  ];
}
