/**
 * Items of the live acquirer's paths (README, "Going live"): the txid → charge pointer a Pix read at the PSP
 * is settled through, each account's reconciliation cursor on the RECONCILE due queue, and what
 * was done about each infraction report (the MED port).
 */

import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { ChargeRecord } from '../domain/charges.ts';
import { FINAL_INFRACTION_STATUSES, INFRACTION_WAITING, type InfractionReport } from '../domain/med-cases.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { db, isConditionFailure, queryAll, type TransactItem, tableName } from './client.ts';
import {
  acquirerInfractionKey,
  chargeTxidKey,
  dueIndex,
  pixReceiptKey,
  reconciliationKey,
  waitingInfractionIndex,
  waitingInfractionsIndexPk,
} from './keys.ts';

/**
 * Put with the live charge, on condition that no charge has its txid yet: the txid derives from
 * the create's key, route and retention period, so it is new with the charge, and a pointer is
 * never moved to another charge.
 */
export function chargeTxidItem(charge: ChargeRecord & { txid: string }): TransactItem {
  const scope = { accountId: charge.accountId, mode: charge.mode };
  return {
    Put: {
      TableName: tableName(),
      Item: { ...chargeTxidKey(scope, charge.txid), type: 'chargeTxid', chargeId: charge.id },
      ConditionExpression: 'attribute_not_exists(pk)',
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

/** The account's reconciliation cursor, if it has one (strongly consistent). */
export async function readReconciliationCursor(accountId: string): Promise<ReconciliationCursor | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName(), Key: reconciliationKey(accountId), ConsistentRead: true }),
  );
  return Item && { accountId, reconciledTo: String(Item.reconciledTo) };
}

/**
 * The account's cursor, due again at `dueAt` (its next `GET /pix`). `ifStillAt`: only while the
 * cursor still holds the due slot (`gsi2sk`) a run read it at, so a run never moves back a cursor
 * another writer moved meanwhile (an overlapping run, a new acquirer's reset).
 */
export function reconciliationItem(
  cursor: ReconciliationCursor,
  dueAt: string,
  ifStillAt?: string,
): TransactItem {
  const scope: MerchantScope = { accountId: cursor.accountId, mode: 'live' };
  return {
    Put: {
      ...(ifStillAt !== undefined && {
        ConditionExpression: 'gsi2sk = :readAt',
        ExpressionAttributeValues: { ':readAt': ifStillAt },
      }),
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

/** The charge a Pix settled or returned (its receipt), if this service processed it. */
export async function chargeOfPix(
  endToEndId: string,
): Promise<{ scope: MerchantScope; chargeId: string } | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName(), Key: pixReceiptKey(endToEndId), ConsistentRead: true }),
  );
  if (!Item) return undefined;
  return {
    scope: { accountId: String(Item.accountId), mode: Item.mode as MerchantScope['mode'] },
    chargeId: String(Item.chargeId),
  };
}

interface AcquirerInfractionRecord {
  /** The MED case opened for the report (absent until it is). */
  caseId?: string;
  /** The last report status acted upon, or `INFRACTION_WAITING` (its case waits for refunds in flight). */
  applied: string;
  /** While waiting: the report as last seen (the PSP lists it again only when it changes). */
  report?: InfractionReport;
}

export async function getAcquirerInfraction(
  accountId: string,
  reportId: string,
): Promise<AcquirerInfractionRecord | undefined> {
  const { Item } = await db.send(
    new GetCommand({
      TableName: tableName(),
      Key: acquirerInfractionKey(accountId, reportId),
      ConsistentRead: true,
    }),
  );
  return (
    Item && {
      applied: String(Item.applied),
      ...(Item.caseId !== undefined && { caseId: String(Item.caseId) }),
      ...(Item.report !== undefined && { report: Item.report as InfractionReport }),
    }
  );
}

const infractionRecord = (accountId: string, reportId: string, record: AcquirerInfractionRecord) => ({
  ...acquirerInfractionKey(accountId, reportId),
  type: 'acquirerInfraction',
  ...record,
});

/** The same record as a transaction item: written with the MED case it opens. */
export const acquirerInfractionItem = (
  accountId: string,
  reportId: string,
  record: AcquirerInfractionRecord,
): TransactItem => ({ Put: { TableName: tableName(), Item: infractionRecord(accountId, reportId, record) } });

export async function putAcquirerInfraction(
  accountId: string,
  reportId: string,
  record: AcquirerInfractionRecord,
): Promise<void> {
  await db.send(
    new PutCommand({ TableName: tableName(), Item: infractionRecord(accountId, reportId, record) }),
  );
}

/**
 * The report's record while its case waits for the charge's refunds in flight: the report kept
 * (the PSP lists it again only when it changes) and on the account's waiting index. On condition
 * that the record names no case and no final status, so a run that lost a race to one that
 * opened the case (or ended the report) cannot overwrite it. `false` when the condition failed.
 */
export async function putWaitingAcquirerInfraction(
  accountId: string,
  report: InfractionReport,
): Promise<boolean> {
  try {
    await db.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...infractionRecord(accountId, report.id, { applied: INFRACTION_WAITING, report }),
          ...waitingInfractionIndex(accountId, report.id),
        },
        ConditionExpression: 'attribute_not_exists(caseId) AND NOT (applied IN (:final0, :final1))',
        ExpressionAttributeValues: {
          ':final0': FINAL_INFRACTION_STATUSES[0],
          ':final1': FINAL_INFRACTION_STATUSES[1],
        },
      }),
    );
    return true;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    return false;
  }
}

/** The ids of the account's reports waiting for refunds in flight (few: one query of the sparse index, which may lag). */
export async function waitingAcquirerInfractionIds(accountId: string): Promise<string[]> {
  const items = await queryAll({
    TableName: tableName(),
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': waitingInfractionsIndexPk(accountId) },
    ProjectionExpression: 'gsi1sk',
  });
  return items.map((item) => String(item.gsi1sk));
}
