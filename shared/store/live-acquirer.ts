/**
 * Items of the live acquirer's paths (issue 12): the txid → charge pointer a Pix read at the PSP
 * is settled through, and each account's reconciliation cursor on the RECONCILE due queue.
 */

import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { ChargeRecord } from '../domain/charges.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { db, type TransactItem, tableName } from './client.ts';
import { chargeTxidKey, dueIndex, reconciliationKey } from './keys.ts';

/** Put with the live charge; the txid derives from the Idempotency-Key, so it is new with the charge. */
export function chargeTxidItem(charge: ChargeRecord & { txid: string }): TransactItem {
  const scope = { accountId: charge.accountId, mode: charge.mode };
  return {
    Put: {
      TableName: tableName(),
      Item: { ...chargeTxidKey(scope, charge.txid), type: 'chargeTxid', chargeId: charge.id },
    },
  };
}

/** The raw id of the scope's charge with this txid, if any. */
export async function chargeIdOfTxid(scope: MerchantScope, txid: string): Promise<string | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName(), Key: chargeTxidKey(scope, txid) }));
  return Item ? String(Item.chargeId) : undefined;
}

export interface ReconciliationCursor {
  accountId: string;
  /** ISO 8601: every Pix the acquirer listed up to here was settled. */
  reconciledTo: string;
}

/** The account's cursor, due again at `dueAt` (its next `GET /pix`). */
export function reconciliationItem(cursor: ReconciliationCursor, dueAt: string): TransactItem {
  const scope: MerchantScope = { accountId: cursor.accountId, mode: 'live' };
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...reconciliationKey(cursor.accountId),
        type: 'reconciliation',
        ...cursor,
        ...dueIndex(
          'RECONCILE',
          dueAt,
          scope,
          cursor.accountId,
          Number.parseInt(cursor.accountId.slice(-4), 16) || 0,
        ),
      },
    },
  };
}

export async function getReconciliation(accountId: string): Promise<ReconciliationCursor | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName(), Key: reconciliationKey(accountId), ConsistentRead: true }),
  );
  return Item && { accountId: String(Item.accountId), reconciledTo: String(Item.reconciledTo) };
}
