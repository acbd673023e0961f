/**
 * The reads of the payment list (`shared/services/list-payments.ts` decides which): a scope's
 * charges in creation order from its partitions (`CHARGE#<rawId>`, strongly consistent), or one
 * stored status's from its GSI3 cell's partitions (`PAYSTATUS#…#<status>#<k>` / raw id), merged
 * by raw id; time bounds are a `BETWEEN` on the raw id. Skipped items and in-memory sorts read only the attributes they need.
 */

import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { ChargeRecord } from '../domain/charges.ts';
import type { ItemSpan } from '../domain/payment-counts.ts';
import type { MerchantScope } from '../domain/scope.ts';
import type { TxStatus } from '../domain/transaction-status.ts';
import { toCharge } from './charges.ts';
import { batchGetConsistent, tableName } from './client.ts';
import { chargeIdRange, chargeKey, chargeSkRange, paymentStatusCellPks, scopePartitionPks } from './keys.ts';
import { countPartitions, queryMerged } from './merged-query.ts';

/** Which charges: the scope's, or those stored in one status (its cell), within a creation span. */
export interface PaymentSource {
  /** Absent: every charge of the scope. */
  cell?: TxStatus;
  span: Partial<ItemSpan>;
  /** Only charges whose expiry lies after this ISO time (awaiting payment and not past expiry). */
  unexpiredAt?: string;
  /** Only charges whose expiry is at or before this ISO time. */
  expiredAt?: string;
}

type Order = 'asc' | 'desc';

/**
 * The queries of a source, one per partition (the scope's charges, or the cell, are spread
 * over `SCOPE_PARTITIONS` keys): key condition, filter, index. Merged by raw id (`id`).
 */
function sourceQueries(
  scope: MerchantScope,
  source: PaymentSource,
  attributes?: readonly string[],
): QueryCommandInput[] {
  const values: Record<string, unknown> = {};
  const filters: string[] = [];
  if (source.unexpiredAt !== undefined) {
    filters.push('expiresAt > :now');
    values[':now'] = source.unexpiredAt;
  }
  if (source.expiredAt !== undefined) {
    filters.push('expiresAt <= :now');
    values[':now'] = source.expiredAt;
  }
  const names = attributes && Object.fromEntries(attributes.map((a, n) => [`#p${n}`, a]));
  const keys =
    source.cell === undefined
      ? scopePartitionPks(scope).map((pk) => ({
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': pk, ...prefixed(chargeSkRange(source.span)) },
          ConsistentRead: true,
        }))
      : paymentStatusCellPks(scope, source.cell).map((pk) => ({
          IndexName: 'gsi3',
          KeyConditionExpression: 'gsi3pk = :pk AND gsi3sk BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': pk, ...prefixed(chargeIdRange(source.span)) },
        }));
  return keys.map((key) => ({
    TableName: tableName(),
    ...key,
    ExpressionAttributeValues: { ...key.ExpressionAttributeValues, ...values },
    ...(filters.length > 0 && { FilterExpression: filters.join(' AND ') }),
    ...(names && { ProjectionExpression: Object.keys(names).join(', '), ExpressionAttributeNames: names }),
  }));
}

const prefixed = (range: { from: string; to: string }) => ({ ':from': range.from, ':to': range.to });

/** The first `max` matches of `source` in `order`, `attributes` only (all when absent), merged by raw id. */
const readMatches = (
  scope: MerchantScope,
  source: PaymentSource,
  order: Order,
  max: number,
  attributes?: readonly string[],
) =>
  queryMerged(
    sourceQueries(scope, source, attributes && [...new Set(['id', ...attributes])]),
    max,
    order,
    (item) => String(item.id),
  );

/** The ids of the first `max` matches of `source` in `order` (keys only: cheap to skip). */
export async function readPaymentIds(
  scope: MerchantScope,
  source: PaymentSource,
  order: Order,
  max: number,
): Promise<string[]> {
  const items = await readMatches(scope, source, order, max, ['id']);
  return items.map((item) => String(item.id));
}

/**
 * One page of `source` in `order`: the first `skip` matches are passed over reading their ids
 * only (the page's ids with them), then the page's `limit` charges are read whole by id.
 */
export async function readPaymentPage(
  scope: MerchantScope,
  source: PaymentSource,
  order: Order,
  skip: number,
  limit: number,
): Promise<ChargeRecord[]> {
  if (skip === 0) return Promise.all((await readMatches(scope, source, order, limit)).map(toCharge));
  const ids = await readPaymentIds(scope, source, order, skip + limit);
  return getPayments(scope, ids.slice(skip));
}

/**
 * Every match of `source` with `attributes` only (and `id`), or `undefined` when more than `max`
 * match (at most `max + 1` are read), so a caller refuses before reading on.
 */
export async function readPaymentRows(
  scope: MerchantScope,
  source: PaymentSource,
  attributes: readonly string[],
  max: number,
): Promise<Record<string, unknown>[] | undefined> {
  // The QR image is not stored: rows read the BR Code and render it (qr-image.ts).
  const withQr = attributes.includes('qrCodeBase64');
  const items = await readMatches(
    scope,
    source,
    'asc',
    max + 1,
    attributes.map((a) => (a === 'qrCodeBase64' ? 'brCode' : a)),
  );
  if (items.length > max) return undefined;
  return withQr ? Promise.all(items.map(async (item) => ({ ...item, ...(await toCharge(item)) }))) : items;
}

/** How many charges `source` holds (keys only). */
export const countPayments = (scope: MerchantScope, source: PaymentSource): Promise<number> =>
  countPartitions(sourceQueries(scope, source));

/** The charges of `ids` (strongly consistent), in that order; absent ones are left out. */
export async function getPayments(scope: MerchantScope, ids: readonly string[]): Promise<ChargeRecord[]> {
  if (ids.length === 0) return [];
  const items = await batchGetConsistent(ids.map((id) => chargeKey(scope, id)));
  return Promise.all(items.flatMap((item) => (item ? [toCharge(item)] : [])));
}
