/**
 * Refunds and what is written beside them: item builders for the refund use cases'
 * transactions, and reads. Nothing here decides (the rules: domain/refunds.ts).
 * - the refund, `ACCOUNT#<id>#<mode>#<k>` / `REFUND#<chargeId>#<refundId>` (one query lists a
 *   transaction's refunds, newest first, since refund ids are UUIDv7);
 * - `REFUNDREF#<refundId>`: which charge a refund belongs to (routes that name only the refund);
 * - on GSI2's `REFUND` queue while not final: when the service next asks the acquirer about it.
 */

import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { RefundRecord, RefundStatus } from '../domain/refunds.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { db, queryAll, recordOf, type TransactItem, tableName } from './client.ts';
import {
  chargeKey,
  chargeRefundsPk,
  chargeRefundsPrefix,
  dueIndex,
  paymentStatusCell,
  refundKey,
  refundRefKey,
} from './keys.ts';

const toRefund = (item: Record<string, unknown>): RefundRecord => recordOf<RefundRecord>(item);

const scopeOfRefund = (refund: RefundRecord): MerchantScope => ({
  accountId: refund.accountId,
  mode: refund.mode,
});

/** The refund item; on the refund queue at `checkAt` while it is not final. */
function refundItem(refund: RefundRecord, checkAt: string | undefined): Record<string, unknown> {
  const scope = scopeOfRefund(refund);
  return {
    ...refundKey(scope, refund.chargeId, refund.id),
    type: 'refund',
    ...refund,
    ...(checkAt !== undefined &&
      dueIndex('REFUND', checkAt, scope, refund.id, refund.id.charCodeAt(refund.id.length - 1))),
  };
}

/** A new refund (never overwrites one) and its pointer. */
export const newRefundItems = (refund: RefundRecord, checkAt: string): TransactItem[] => [
  {
    Put: {
      TableName: tableName(),
      Item: refundItem(refund, checkAt),
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  },
  {
    Put: {
      TableName: tableName(),
      Item: {
        ...refundRefKey(scopeOfRefund(refund), refund.id),
        type: 'refundRef',
        chargeId: refund.chargeId,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  },
];

/** The refund in its next state, only if it is still in `from`; `checkAt` keeps it on the queue. */
export const replaceRefundItem = (
  next: RefundRecord,
  from: RefundStatus,
  checkAt: string | undefined,
): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: refundItem(next, checkAt),
    ConditionExpression: '#status = :from',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':from': from },
  },
});

/**
 * Adds to the charge's refund totals, only while it is in `from` and (when `maxRefundedBefore`
 * is given) its refunded total is at most that: the condition DynamoDB checks against the
 * committed value, so concurrent refunds can never add up past the amount. `settledBefore`:
 * only if the settled total is exactly that (the confirmation that completes the amount);
 * `settledBelow`: only if it is below that (one that cannot complete it, whatever else commits).
 */
export function chargeRefundTotalsChange(
  scope: MerchantScope,
  chargeId: string,
  change: { refunded?: number; settled?: number; status?: string; at: string },
  guard: {
    from: readonly string[];
    maxRefundedBefore?: number;
    settledBefore?: number;
    settledBelow?: number;
  },
): TransactItem {
  const adds = [
    ...(change.refunded !== undefined ? ['refundedAmount :refunded'] : []),
    ...(change.settled !== undefined ? ['refundedSettled :settled'] : []),
  ];
  const conditions = [`#status IN (${guard.from.map((_, n) => `:from${n}`).join(', ')})`];
  if (guard.maxRefundedBefore !== undefined)
    conditions.push('(attribute_not_exists(refundedAmount) OR refundedAmount <= :max)');
  if (guard.settledBefore !== undefined)
    conditions.push(
      guard.settledBefore === 0
        ? '(attribute_not_exists(refundedSettled) OR refundedSettled = :zero)'
        : 'refundedSettled = :settledBefore',
    );
  if (guard.settledBelow !== undefined)
    conditions.push('(attribute_not_exists(refundedSettled) OR refundedSettled < :settledBelow)');
  return {
    Update: {
      TableName: tableName(),
      Key: chargeKey(scope, chargeId),
      // A status change moves the payment list's status cell with it (keys.ts, GSI3).
      UpdateExpression: `ADD ${adds.join(', ')} SET updatedAt = :at${change.status ? ', #status = :to, gsi3pk = :cell' : ''}`,
      ConditionExpression: conditions.join(' AND '),
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':at': change.at,
        ...(change.status !== undefined && {
          ':to': change.status,
          ':cell': paymentStatusCell(scope, change.status, chargeId).gsi3pk,
        }),
        ...(change.refunded !== undefined && { ':refunded': change.refunded }),
        ...(change.settled !== undefined && { ':settled': change.settled }),
        ...Object.fromEntries(guard.from.map((s, n) => [`:from${n}`, s])),
        ...(guard.maxRefundedBefore !== undefined && { ':max': guard.maxRefundedBefore }),
        ...(guard.settledBefore === 0 && { ':zero': 0 }),
        ...(guard.settledBefore !== undefined &&
          guard.settledBefore !== 0 && { ':settledBefore': guard.settledBefore }),
        ...(guard.settledBelow !== undefined && { ':settledBelow': guard.settledBelow }),
      },
    },
  };
}

// ── Reads ─────────────────────────────────────────────────────────────────────────────────────

export async function getRefund(
  scope: MerchantScope,
  chargeId: string,
  refundId: string,
): Promise<RefundRecord | undefined> {
  const { Item } = await db.send(
    new GetCommand({
      TableName: tableName(),
      Key: refundKey(scope, chargeId, refundId),
      ConsistentRead: true,
    }),
  );
  return Item && toRefund(Item);
}

/** A refund by its id alone, within the scope. */
export async function findRefund(scope: MerchantScope, refundId: string): Promise<RefundRecord | undefined> {
  const { Item: ref } = await db.send(
    new GetCommand({ TableName: tableName(), Key: refundRefKey(scope, refundId), ConsistentRead: true }),
  );
  return ref && getRefund(scope, String(ref.chargeId), refundId);
}

/** Every refund of a transaction, newest first. */
export async function listRefunds(scope: MerchantScope, chargeId: string): Promise<RefundRecord[]> {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: {
      ':pk': chargeRefundsPk(scope, chargeId),
      ':prefix': chargeRefundsPrefix(chargeId),
    },
    ScanIndexForward: false,
    ConsistentRead: true,
  });
  return items.map(toRefund);
}
