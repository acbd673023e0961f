/**
 * The reads of the payment list (`shared/services/list-payments.ts` decides which): a scope's
 * charges in creation order from its partition (`CHARGE#<rawId>`, strongly consistent), or one
 * stored status's from its GSI3 cell (`PAYSTATUS#…#<status>` / raw id); time bounds are a
 * `BETWEEN` on the raw id. Skipped items and in-memory sorts read only the attributes they need.
 */

import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { ChargeRecord } from '../domain/charges.ts';
import type { ItemSpan } from '../domain/payment-counts.ts';
import type { MerchantScope } from '../domain/scope.ts';
import type { TxStatus } from '../domain/transaction-status.ts';
import { toCharge } from './charges.ts';
import { batchGetConsistent, db, tableName } from './client.ts';
import { chargeIdRange, chargeKey, chargeSkRange, paymentStatusCellPk, scopePk } from './keys.ts';

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

/** The query of a source, in `order`: key condition, filter, index. */
function sourceQuery(scope: MerchantScope, source: PaymentSource, order: Order): QueryCommandInput {
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
  const key =
    source.cell === undefined
      ? {
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': scopePk(scope), ...prefixed(chargeSkRange(source.span)) },
          ConsistentRead: true,
        }
      : {
          IndexName: 'gsi3',
          KeyConditionExpression: 'gsi3pk = :pk AND gsi3sk BETWEEN :from AND :to',
          ExpressionAttributeValues: {
            ':pk': paymentStatusCellPk(scope, source.cell),
            ...prefixed(chargeIdRange(source.span)),
          },
        };
  return {
    TableName: tableName(),
    ...key,
    ExpressionAttributeValues: { ...key.ExpressionAttributeValues, ...values },
    ...(filters.length > 0 && { FilterExpression: filters.join(' AND ') }),
    ScanIndexForward: order === 'asc',
  };
}

const prefixed = (range: { from: string; to: string }) => ({ ':from': range.from, ':to': range.to });

/**
 * Reads matches of `source` in `order`, `attributes` only (all when absent), until `max` were
 * read or none remain, starting after `start`; returns them and where to continue. A query
 * never asks for more items than remain to be read, so nothing beyond `max` is read.
 */
async function readMatches(
  scope: MerchantScope,
  source: PaymentSource,
  order: Order,
  max: number,
  options: { attributes?: readonly string[]; start?: Record<string, unknown> } = {},
): Promise<{ items: Record<string, unknown>[]; next?: Record<string, unknown> }> {
  const query = sourceQuery(scope, source, order);
  if (options.attributes) {
    const names = Object.fromEntries(options.attributes.map((a, n) => [`#p${n}`, a]));
    query.ProjectionExpression = Object.keys(names).join(', ');
    query.ExpressionAttributeNames = { ...query.ExpressionAttributeNames, ...names };
  }
  const items: Record<string, unknown>[] = [];
  let next = options.start;
  do {
    if (items.length >= max) break;
    const page = await db.send(
      new QueryCommand({
        ...query,
        ...(Number.isFinite(max) && { Limit: max - items.length }),
        ...(next && { ExclusiveStartKey: next }),
      }),
    );
    items.push(...(page.Items ?? []));
    next = page.LastEvaluatedKey;
  } while (next);
  return { items, ...(next && { next }) };
}

/** The ids of the first `max` matches of `source` in `order` (keys only: cheap to skip). */
export async function readPaymentIds(
  scope: MerchantScope,
  source: PaymentSource,
  order: Order,
  max: number,
): Promise<string[]> {
  const { items } = await readMatches(scope, source, order, max, { attributes: ['id'] });
  return items.map((item) => String(item.id));
}

/**
 * One page of `source` in `order`: the first `skip` matches are passed over reading their ids
 * only, then `limit` charges are read whole.
 */
export async function readPaymentPage(
  scope: MerchantScope,
  source: PaymentSource,
  order: Order,
  skip: number,
  limit: number,
): Promise<ChargeRecord[]> {
  let start: Record<string, unknown> | undefined;
  if (skip > 0) {
    const skipped = await readMatches(scope, source, order, skip, { attributes: ['id'] });
    if (skipped.items.length < skip || !skipped.next) return [];
    start = skipped.next;
  }
  const { items } = await readMatches(scope, source, order, limit, start ? { start } : {});
  return Promise.all(items.map(toCharge));
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
  const { items } = await readMatches(scope, source, 'asc', max + 1, {
    attributes: [...new Set(['id', ...attributes.map((a) => (a === 'qrCodeBase64' ? 'brCode' : a))])],
  });
  if (items.length > max) return undefined;
  return withQr ? Promise.all(items.map(async (item) => ({ ...item, ...(await toCharge(item)) }))) : items;
}

/** How many charges `source` holds (keys only). */
export async function countPayments(scope: MerchantScope, source: PaymentSource): Promise<number> {
  const query = sourceQuery(scope, source, 'asc');
  let count = 0;
  let next: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new QueryCommand({ ...query, Select: 'COUNT', ...(next && { ExclusiveStartKey: next }) }),
    );
    count += page.Count ?? 0;
    next = page.LastEvaluatedKey;
  } while (next);
  return count;
}

/** The charges of `ids` (strongly consistent), in that order; absent ones are left out. */
export async function getPayments(scope: MerchantScope, ids: readonly string[]): Promise<ChargeRecord[]> {
  if (ids.length === 0) return [];
  const items = await batchGetConsistent(ids.map((id) => chargeKey(scope, id)));
  return Promise.all(items.flatMap((item) => (item ? [toCharge(item)] : [])));
}
