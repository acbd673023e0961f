/**
 * Ledger entries and wallet balances are written together, inside the transaction of the
 * business step that moves the money: the balance item is always the sum of its entries.
 * Journals: `ACCOUNT#<id>#<mode>` / `LEDGER#<time>#<journalId>`, each holding its entries.
 */

import { type Journal, walletDelta } from '../domain/ledger.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { type TransactItem, tableName } from './client.ts';
import { journalKey, walletKey } from './keys.ts';

/**
 * One journal as one item, its entries inside it (they sum to zero: `Journal` is built that
 * way), and the matching `ADD` on the merchant's wallet when it moves. One item rather than
 * one per entry: a journal is only ever written and read whole, and each item of a
 * transaction costs a write (a settlement journal has four entries).
 */
export function journalItems(
  scope: MerchantScope,
  journal: Journal,
  at: string,
  journalId: string,
  /** Only if the wallet's `available` is at least this before the change (a debit that must not overdraw). */
  options: { availableAtLeast?: number } = {},
): TransactItem[] {
  const journalPut: TransactItem = {
    Put: {
      TableName: tableName(),
      Item: {
        ...journalKey(scope, at, journalId),
        type: 'ledger',
        journalId,
        kind: journal.kind,
        currency: journal.currency,
        chargeId: journal.chargeId,
        entries: journal.entries.map(({ account, amount }) => ({ account, amount })),
        createdAt: at,
      },
    },
  };
  const delta = walletDelta(journal);
  if (delta.available === 0 && delta.pending === 0 && delta.retained === 0) return [journalPut];
  return [
    journalPut,
    {
      Update: {
        TableName: tableName(),
        Key: walletKey(scope, journal.currency),
        UpdateExpression:
          'ADD available :available, pending :pending, retained :retained SET currency = :currency, #type = :type',
        ...(options.availableAtLeast !== undefined && { ConditionExpression: 'available >= :atLeast' }),
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: {
          ':available': delta.available,
          ':pending': delta.pending,
          ':retained': delta.retained,
          ':currency': journal.currency,
          ':type': 'wallet',
          ...(options.availableAtLeast !== undefined && { ':atLeast': options.availableAtLeast }),
        },
      },
    },
  ];
}
