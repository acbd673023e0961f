/**
 * MED evidence items, `ACCOUNT#<id>#<mode>#<k>` / `MEDEVIDENCE#<med_id>#<medev_id>` (a case's evidence
 * under one prefix; ids are UUIDv7, so the sort key orders by creation), and the confirmation's
 * transaction items. Nothing here decides (the rules: domain/med-evidence.ts).
 */

import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { MedEvidenceRecord } from '../domain/med-evidence.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { db, queryAll, recordOf, type TransactItem, tableName } from './client.ts';
import { caseEvidencePk, medCaseKey, medEvidenceCasePrefix, medEvidenceKey } from './keys.ts';

const scopeOf = (e: MedEvidenceRecord): MerchantScope => ({ accountId: e.accountId, mode: e.mode });

const toEvidence = (item: Record<string, unknown>): MedEvidenceRecord =>
  recordOf<MedEvidenceRecord>(item, ['expiresAt']);

/** A new pending evidence item (never overwrites one), removed by TTL at `expiresAt` unless confirmed. */
export const newEvidenceItem = (evidence: MedEvidenceRecord, expiresAt: number): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: {
      ...medEvidenceKey(scopeOf(evidence), evidence.caseId, evidence.id),
      ...evidence,
      type: 'medEvidence',
      expiresAt,
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

/**
 * The confirmation: the item becomes `uploaded` with its stored copy (only if still pending; kept,
 * no TTL) and the case's `evidenceCount` grows by one, with its `version`, so a case change read
 * before it fails its condition and retries.
 */
export function confirmEvidenceItems(
  evidence: MedEvidenceRecord,
  uploadedAt: string,
  stored: NonNullable<MedEvidenceRecord['stored']>,
): { evidence: TransactItem; medCase: TransactItem } {
  const scope = scopeOf(evidence);
  return {
    evidence: {
      Update: {
        TableName: tableName(),
        Key: medEvidenceKey(scope, evidence.caseId, evidence.id),
        UpdateExpression: 'SET #status = :uploaded, uploadedAt = :at, #stored = :stored REMOVE expiresAt',
        ConditionExpression: '#status = :pending',
        ExpressionAttributeNames: { '#status': 'status', '#stored': 'stored' },
        ExpressionAttributeValues: {
          ':uploaded': 'uploaded',
          ':pending': 'pending',
          ':at': uploadedAt,
          ':stored': stored,
        },
      },
    },
    medCase: {
      Update: {
        TableName: tableName(),
        Key: medCaseKey(scope, evidence.caseId),
        UpdateExpression: 'ADD evidenceCount :one, version :one SET updatedAt = :at',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':one': 1, ':at': uploadedAt },
      },
    },
  };
}

export async function getEvidence(
  scope: MerchantScope,
  caseId: string,
  evidenceId: string,
): Promise<MedEvidenceRecord | undefined> {
  const { Item } = await db.send(
    new GetCommand({
      TableName: tableName(),
      Key: medEvidenceKey(scope, caseId, evidenceId),
      ConsistentRead: true,
    }),
  );
  return Item ? toEvidence(Item) : undefined;
}

/** Every evidence item of a case (pending ones included), newest first. */
export async function queryCaseEvidence(scope: MerchantScope, caseId: string): Promise<MedEvidenceRecord[]> {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: {
      ':pk': caseEvidencePk(scope, caseId),
      ':prefix': medEvidenceCasePrefix(caseId),
    },
    ScanIndexForward: false,
    ConsistentRead: true,
  });
  return items.map(toEvidence);
}
