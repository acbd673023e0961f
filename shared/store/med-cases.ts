/**
 * MED cases: item builders for the MED use cases' transactions, and reads. Nothing here decides
 * (the rules: domain/med-cases.ts).
 * - the case, `ACCOUNT#<id>#<mode>#<k>` / `MEDCASE#<med_id>` (ids are UUIDv7: the sort key orders a
 *   scope's cases by creation, so the list reads newest first down a key range);
 * - while something waits for an operator (`pendingReview`), the case is also on the `MEDREVIEW`
 *   due queue (GSI2), which `npm run admin -- med-review list` reads.
 */

import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { MedCaseListQuery, MedCaseRecord, MedCaseStatus } from '../domain/med-cases.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { dueEntries } from './charges.ts';
import { db, recordOf, type TransactItem, tableName } from './client.ts';
import { dueIndex, medCaseKey, medCaseSkRange } from './keys.ts';
import { noFilter, queryMerged, scopeRangeQueries } from './merged-query.ts';

/** The item's `type` is the entity's (as on every item); the case's own type is `caseType`. */
const toMedCase = (item: Record<string, unknown>): MedCaseRecord =>
  ({
    ...recordOf<Record<string, unknown>>(item, ['caseType']),
    type: item.caseType,
  }) as unknown as MedCaseRecord;

const scopeOfCase = (medCase: MedCaseRecord): MerchantScope => ({
  accountId: medCase.accountId,
  mode: medCase.mode,
});

const medCaseItem = ({ type, ...medCase }: MedCaseRecord) => ({
  ...medCaseKey(scopeOfCase({ type, ...medCase }), medCase.id),
  ...medCase,
  type: 'medCase',
  caseType: type,
  ...(medCase.pendingReview && {
    ...dueIndex('MEDREVIEW', medCase.pendingReview.since, scopeOfCase({ type, ...medCase }), medCase.id, 0),
  }),
});

/** A new case (never overwrites one). */
export const newMedCaseItem = (medCase: MedCaseRecord): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: medCaseItem(medCase),
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

/** The case in its next state, only if it is still in `from` and no write came after `read`. */
export const replaceMedCaseItem = (
  next: MedCaseRecord,
  from: MedCaseStatus,
  read: MedCaseRecord,
): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: { ...medCaseItem(next), version: (read.version ?? 0) + 1 },
    ConditionExpression: `#status = :from AND ${read.version === undefined ? 'attribute_not_exists(version)' : 'version = :version'}`,
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':from': from,
      ...(read.version !== undefined && { ':version': read.version }),
    },
  },
});

export async function getMedCase(scope: MerchantScope, caseId: string): Promise<MedCaseRecord | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName(), Key: medCaseKey(scope, caseId), ConsistentRead: true }),
  );
  return Item ? toMedCase(Item) : undefined;
}

/**
 * One page of a scope's cases, newest first, merged over its partitions: the key range of the
 * dates and cursor, the other filters server-side, read until `limit + 1` matches (the extra one
 * says `has_more`).
 */
export async function queryMedCases(
  scope: MerchantScope,
  query: MedCaseListQuery,
): Promise<{ cases: MedCaseRecord[]; hasMore: boolean }> {
  const range = medCaseSkRange({
    ...(query.createdAfterMs !== undefined && { afterMs: query.createdAfterMs }),
    ...(query.createdBeforeMs !== undefined && { beforeMs: query.createdBeforeMs }),
    ...(query.startingAfter !== undefined && { startingAfter: query.startingAfter }),
  });
  // An empty window (created_after not before created_before, or a cursor below it): no read
  // (DynamoDB refuses a BETWEEN whose bounds are reversed).
  if (range.from > range.to) return { cases: [], hasMore: false };
  const filter = noFilter();
  if (query.status !== undefined) {
    filter.conditions.push('#status = :status');
    filter.names['#status'] = 'status';
    filter.values[':status'] = query.status;
  }
  if (query.type !== undefined) {
    filter.conditions.push('caseType = :caseType');
    filter.values[':caseType'] = query.type;
  }
  if (query.chargeId !== undefined) {
    filter.conditions.push('chargeId = :chargeId');
    filter.values[':chargeId'] = query.chargeId;
  }
  if (query.startingAfter !== undefined) {
    filter.conditions.push('id <> :cursor');
    filter.values[':cursor'] = query.startingAfter;
  }
  const items = await queryMerged(scopeRangeQueries(scope, range, filter, true), query.limit + 1, 'desc');
  const cases = items.map(toMedCase);
  return { cases: cases.slice(0, query.limit), hasMore: cases.length > query.limit };
}

/** Every case waiting for an operations review, oldest first, across accounts and modes. */
export async function casesAwaitingReview(now: Date): Promise<MedCaseRecord[]> {
  const entries = await dueEntries('MEDREVIEW', now);
  return entries
    .map((entry) => toMedCase(entry.item))
    .sort((a, b) => (a.pendingReview?.since ?? '').localeCompare(b.pendingReview?.since ?? ''));
}
