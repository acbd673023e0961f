/**
 * Charges. The record lives in its merchant scope, `ACCOUNT#<id>#<mode>` / `CHARGE#<rawId>`;
 * raw ids start with the creation time, so the sort key orders charges by creation and the
 * list pages by cursor without gaps or duplicates while new charges arrive. Beside it:
 * - `CHARGEREF#<rawId>`: which scope a raw id belongs to (public checkout and Pix location
 *   URLs carry only the raw id);
 * - GSI1 `CUSTOMER#<account>#<mode>#<document>` / created time: the customer velocity guard;
 * - GSI2 `DUE#EXPIRY#<shard>` / expiry time, only while awaiting payment: the scheduler's queue;
 * - `COUNTER#PENDING_CHARGES`: live charges of the scope, kept in step by every transition, so
 *   the account velocity limit is enforced by a transaction condition;
 * - `IDEMPOTENCY#…`: the stored response of a create, written in the same transaction.
 */

import { randomInt } from 'node:crypto';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { ChargeRecord, TxStatus } from '../domain/charges.ts';
import { chargeIdFloor } from '../domain/pix-ids.ts';
import { accountKey, toAccount } from './accounts.ts';
import { batchGetConsistent, db, queryAll, tableName } from './client.ts';
import { type MerchantScope, scopePk } from './keys.ts';
import type { TransactItem } from './ledger.ts';

const EXPIRY_SHARDS = 4;
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

export const chargeKey = (scope: MerchantScope, rawId: string) => ({
  pk: scopePk(scope),
  sk: `CHARGE#${rawId}`,
});
const refKey = (rawId: string) => ({ pk: `CHARGEREF#${rawId}`, sk: 'CHARGEREF' });
export const pendingCounterKey = (scope: MerchantScope) => ({
  pk: scopePk(scope),
  sk: 'COUNTER#PENDING_CHARGES',
});
const idempotencyKey = (scope: MerchantScope, routeId: string, key: string) => ({
  pk: `IDEMPOTENCY#${scope.accountId}#${scope.mode}#${routeId}#${key}`,
  sk: 'IDEMPOTENCY',
});
const customerIndexKey = (scope: MerchantScope, document: string) =>
  `CUSTOMER#${scope.accountId}#${scope.mode}#${document}`;
export const expiryShards = Array.from({ length: EXPIRY_SHARDS }, (_, i) => `DUE#EXPIRY#${i}`);

const awaitingPayment = (status: TxStatus) => status === 'WAITING_PAYMENT' || status === 'PENDING';

/** The charge item with its index attributes for its current status. */
export function chargeItem(charge: ChargeRecord): Record<string, unknown> {
  const scope = { accountId: charge.accountId, mode: charge.mode };
  return {
    ...chargeKey(scope, charge.id),
    type: 'charge',
    ...charge,
    ...(charge.customer.document !== undefined && {
      gsi1pk: customerIndexKey(scope, charge.customer.document),
      gsi1sk: charge.createdAt,
    }),
    ...(awaitingPayment(charge.status) && {
      gsi2pk: expiryShards[randomInt(EXPIRY_SHARDS)],
      gsi2sk: `${charge.expiresAt}#${charge.accountId}#${charge.mode}#${charge.id}`,
    }),
  };
}

const INTERNAL_ATTRIBUTES = new Set(['pk', 'sk', 'type', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk']);
export const toCharge = (item: Record<string, unknown>): ChargeRecord =>
  Object.fromEntries(
    Object.entries(item).filter(([k]) => !INTERNAL_ATTRIBUTES.has(k)),
  ) as unknown as ChargeRecord;

export interface StoredResponse {
  status: number;
  body: unknown;
}

export interface IdempotencyRecord {
  requestHash: string;
  response: StoredResponse;
}

/** What a create needs before deciding anything, in one round trip. */
export async function readCreateContext(scope: MerchantScope, routeId: string, key: string) {
  const [idem, account, counter] = await batchGetConsistent([
    idempotencyKey(scope, routeId, key),
    accountKey(scope.accountId),
    pendingCounterKey(scope),
  ]);
  return {
    idempotency: idem && ({ requestHash: idem.requestHash, response: idem.response } as IdempotencyRecord),
    account: account && toAccount(account),
    pendingCount: Number(counter?.count ?? 0),
  };
}

export async function readIdempotencyRecord(
  scope: MerchantScope,
  routeId: string,
  key: string,
): Promise<IdempotencyRecord | undefined> {
  const { Item } = await db.send(
    new GetCommand({
      TableName: tableName(),
      Key: idempotencyKey(scope, routeId, key),
      ConsistentRead: true,
    }),
  );
  return Item && { requestHash: Item.requestHash, response: Item.response };
}

/** The longest customer velocity window an account may configure (one query covers any). */
export const MAX_CUSTOMER_WINDOW_SECONDS = 24 * 3600;

/** Creation times of a customer document's live charges since `sinceIso` (velocity guard). */
export async function liveCustomerChargeTimes(
  scope: MerchantScope,
  document: string,
  sinceIso: string,
  nowIso: string,
): Promise<string[]> {
  const items = await queryAll({
    TableName: tableName(),
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk >= :since',
    FilterExpression: '#status IN (:waiting, :pending) AND expiresAt > :now',
    ProjectionExpression: 'createdAt',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':pk': customerIndexKey(scope, document),
      ':since': sinceIso,
      ':waiting': 'WAITING_PAYMENT',
      ':pending': 'PENDING',
      ':now': nowIso,
    },
  });
  return items.map((i) => String(i.createdAt));
}

/**
 * The items of a create: charge, scope pointer, idempotency record (only if none exists),
 * pending counter (only below the limit) and the outbox events.
 */
export function createChargeItems(input: {
  charge: ChargeRecord;
  routeId: string;
  idempotencyKey: string;
  requestHash: string;
  response: StoredResponse;
  maxPending: number;
  events: TransactItem[];
}): TransactItem[] {
  const { charge } = input;
  const scope = { accountId: charge.accountId, mode: charge.mode };
  const nowSeconds = Math.floor(Date.parse(charge.createdAt) / 1000);
  const items: TransactItem[] = [
    {
      Put: {
        TableName: tableName(),
        Item: chargeItem(charge),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: tableName(),
        Item: { ...refKey(charge.id), type: 'chargeRef', accountId: charge.accountId, mode: charge.mode },
      },
    },
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...idempotencyKey(scope, input.routeId, input.idempotencyKey),
          type: 'idempotency',
          requestHash: input.requestHash,
          response: input.response,
          chargeId: charge.id,
          createdAt: charge.createdAt,
          expiresAt: nowSeconds + IDEMPOTENCY_TTL_SECONDS,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    ...input.events,
  ];
  if (awaitingPayment(charge.status)) items.push(pendingCounterChange(scope, +1, input.maxPending));
  return items;
}

/** `+1` only while below `max` (the account velocity limit); `-1` when a charge stops being live. */
export function pendingCounterChange(scope: MerchantScope, delta: 1 | -1, max?: number): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: pendingCounterKey(scope),
      UpdateExpression: 'ADD #count :delta SET #type = :type',
      ...(max !== undefined && { ConditionExpression: 'attribute_not_exists(#count) OR #count < :max' }),
      ExpressionAttributeNames: { '#count': 'count', '#type': 'type' },
      ExpressionAttributeValues: {
        ':delta': delta,
        ':type': 'counter',
        ...(max !== undefined && { ':max': max }),
      },
    },
  };
}

export async function getCharge(scope: MerchantScope, rawId: string): Promise<ChargeRecord | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName(), Key: chargeKey(scope, rawId), ConsistentRead: true }),
  );
  return Item && toCharge(Item);
}

/** A charge by raw id alone, for public pages (checkout, Pix location). */
export async function getChargeByRawId(rawId: string): Promise<ChargeRecord | undefined> {
  const { Item: ref } = await db.send(new GetCommand({ TableName: tableName(), Key: refKey(rawId) }));
  if (!ref) return undefined;
  return getCharge({ accountId: String(ref.accountId), mode: ref.mode }, rawId);
}

export interface ChargeListQuery {
  limit: number;
  /** Raw id of the last charge of the previous page. */
  startingAfter?: string;
  statuses?: TxStatus[];
  /** For `pending`/`expired`: whether the expiry must lie ahead or be past. */
  expiry?: 'ahead' | 'past';
  createdAfterMs?: number;
  createdBeforeMs?: number;
  customerDocument?: string;
  nowIso: string;
}

/** Newest first; reads pages until `limit + 1` matches are found (filters are applied server-side). */
export async function listCharges(
  scope: MerchantScope,
  q: ChargeListQuery,
): Promise<{ charges: ChargeRecord[]; hasMore: boolean }> {
  const lower = `CHARGE#${q.createdAfterMs === undefined ? '' : chargeIdFloor(q.createdAfterMs)}`;
  const upper = `CHARGE#${q.createdBeforeMs === undefined ? 'g' : chargeIdFloor(q.createdBeforeMs + 1)}`;
  const filters: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':pk': scopePk(scope), ':lower': lower, ':upper': upper };
  if (q.statuses) {
    names['#status'] = 'status';
    filters.push(`#status IN (${q.statuses.map((_, i) => `:s${i}`).join(', ')})`);
    q.statuses.forEach((s, i) => {
      values[`:s${i}`] = s;
    });
  }
  if (q.expiry) {
    filters.push(q.expiry === 'ahead' ? 'expiresAt > :now' : 'expiresAt <= :now');
    values[':now'] = q.nowIso;
  }
  if (q.customerDocument !== undefined) {
    filters.push('customer.#document = :document');
    names['#document'] = 'document';
    values[':document'] = q.customerDocument;
  }

  // A cursor outside the time range: nothing older remains, or the range starts below it.
  const cursor = q.startingAfter === undefined ? undefined : `CHARGE#${q.startingAfter}`;
  if (cursor !== undefined && cursor <= lower) return { charges: [], hasMore: false };
  const charges: ChargeRecord[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined =
    cursor !== undefined && cursor < upper ? { pk: scopePk(scope), sk: cursor } : undefined;
  do {
    const page = await db.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :lower AND :upper',
        ...(filters.length > 0 && { FilterExpression: filters.join(' AND ') }),
        ...(Object.keys(names).length > 0 && { ExpressionAttributeNames: names }),
        ExpressionAttributeValues: values,
        ScanIndexForward: false,
        ConsistentRead: true,
        Limit: Math.max(q.limit + 1, 25),
        ExclusiveStartKey,
      }),
    );
    charges.push(...(page.Items ?? []).map(toCharge));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey && charges.length <= q.limit);
  return { charges: charges.slice(0, q.limit), hasMore: charges.length > q.limit };
}
