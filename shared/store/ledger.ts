/**
 * Ledger entries and wallet balances are written together, inside the transaction of the
 * business step that moves the money: the sum of a wallet's shard items is always the sum of
 * its entries.
 * Journals: `ACCOUNT#<id>#<mode>#<k>` / `LEDGER#<time>#<journalId>`, each holding its entries.
 */

import { type Journal, type WalletDelta, walletDelta } from '../domain/ledger.ts';
import type { MerchantScope } from '../domain/scope.ts';
import type { ShardDebit } from '../domain/shards.ts';
import { type TransactItem, tableName } from './client.ts';
import { journalKey, walletKey } from './keys.ts';

/** Which wallet shard items a journal's `ADD` goes to (the caller decides). */
type WalletPlacement =
  /** The whole movement on one shard, unconditionally (a credit, or a move that may go negative). */
  | { shard: number | undefined }
  /**
   * A debit of `available` that must not overdraw: each positive part leaves its shard only if
   * the shard holds it; a negative part is credited to its shard (parts sum to the debit).
   */
  | { debits: ShardDebit[] };

/**
 * One journal as one item, its entries inside it (they sum to zero: `Journal` is built that
 * way), and the matching `ADD` on the merchant's wallet shard(s) when it moves. One item rather
 * than one per entry: a journal is only ever written and read whole, and each item of a
 * transaction costs a write (a settlement journal has four entries).
 */
export function journalItems(
  scope: MerchantScope,
  journal: Journal,
  at: string,
  journalId: string,
  placement: WalletPlacement,
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
  if ('shard' in placement) return [journalPut, walletAdd(scope, journal.currency, placement.shard, delta)];
  const debited = placement.debits.reduce((t, d) => t + d.amount, 0);
  if (delta.pending !== 0 || delta.retained !== 0 || debited !== -delta.available)
    throw new Error(`Debits of ${debited} do not match the journal's wallet movement`);
  return [
    journalPut,
    ...placement.debits.map((d) =>
      walletAdd(
        scope,
        journal.currency,
        d.shard,
        { available: -d.amount, pending: 0, retained: 0 },
        d.amount > 0 ? d.amount : undefined,
      ),
    ),
  ];
}

/** `ADD` to one wallet shard; with `availableAtLeast`, only if its `available` is at least that before. */
function walletAdd(
  scope: MerchantScope,
  currency: string,
  shard: number | undefined,
  delta: WalletDelta,
  availableAtLeast?: number,
): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: walletKey(scope, currency, shard),
      UpdateExpression:
        'ADD available :available, pending :pending, retained :retained SET currency = :currency, #type = :type',
      ...(availableAtLeast !== undefined && { ConditionExpression: 'available >= :atLeast' }),
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: {
        ':available': delta.available,
        ':pending': delta.pending,
        ':retained': delta.retained,
        ':currency': currency,
        ':type': 'wallet',
        ...(availableAtLeast !== undefined && { ':atLeast': availableAtLeast }),
      },
    },
  };
}
