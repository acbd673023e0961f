/**
 * Charges and what is written beside them: item builders for the use cases' transactions, and
 * reads. Nothing here decides: which transition, which condition, which amounts, all come from
 * the caller (keys: `keys.ts`; why they are shaped so: docs/data-model.md).
 * - the charge, `ACCOUNT#<id>#<mode>#<k>` / `CHARGE#<rawId>` (raw ids start with the creation time,
 *   so the list pages by cursor without gaps while new charges arrive);
 * - `CHARGEREF#<rawId>`: which scope a raw id belongs to (checkout and Pix location URLs);
 * - GSI1 by customer document: the customer velocity guard;
 * - GSI2 expiry queue, only while awaiting payment: the scheduler's work list;
 * - GSI3 status cell (`PAYSTATUS#…#<status>#<k>` / raw id): the payment list's status filter;
 * - `COUNTER#PENDING_CHARGES#<shard>`: live charges of the scope, in shards each with its share
 *   of the limit, so the account velocity limit is a transaction condition;
 * - `IDEMPOTENCY#…`: the stored response of a create;
 * - `PIXIN#<e2e>`: a Pix processed once (money returned to a payer is a refund: refunds.ts);
 *   `TRANCHE#…` (+ GSI2 release queue): a held net amount.
 */

import { randomInt } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { ChargeListFilter } from '../domain/charge-list-query.ts';
import { type ChargeRecord, scopeOf } from '../domain/charges.ts';
import type { MerchantScope } from '../domain/scope.ts';
import type { IncomingPix, Tranche } from '../domain/settlement.ts';
import type { ShardCount } from '../domain/shards.ts';
import { awaitingPayment, type TxStatus } from '../domain/transaction-status.ts';
import { type CustomerCharge, type CustomerGuard, velocityCustomerOf } from '../domain/velocity.ts';
import { streamItemTypes } from '../resources.ts';
import { toAccount } from './accounts.ts';
import {
  batchGetConsistent,
  counterChange,
  db,
  queryAll,
  recordOf,
  type TransactItem,
  tableName,
} from './client.ts';
import {
  accountKey,
  chargeKey,
  chargeRefKey,
  chargeSkRange,
  customerGuardKey,
  customerIndexPk,
  type DueQueue,
  dueIndex,
  dueShards,
  dueUpTo,
  type ItemKey,
  idempotencyKey,
  PREFIX,
  parseDueEntry,
  parseShard,
  paymentStatusCell,
  pendingCounterKey,
  pixReceiptKey,
  prefixEnd,
  scopePk,
  trancheKey,
} from './keys.ts';
import { noFilter, queryMerged, scopeRangeQueries } from './merged-query.ts';
import { qrPngBase64 } from './qr-image.ts';
import { sentBody, storedBody } from './stored-body.ts';

/**
 * The charge item with its index attributes for its current status. Without its QR image: the
 * readers render it from the BR Code (qr-image.ts).
 */
export function chargeItem({ qrCodeBase64: _rendered, ...charge }: ChargeRecord): Record<string, unknown> {
  const scope = scopeOf(charge);
  const customer = velocityCustomerOf(charge);
  return {
    ...chargeKey(scope, charge.id),
    type: streamItemTypes.charge,
    ...charge,
    ...(customer !== undefined && { gsi1pk: customerIndexPk(scope, customer), gsi1sk: charge.createdAt }),
    // On the expiry queue only while it can expire (a sparse index: nothing else to skip).
    ...(awaitingPayment(charge.status) &&
      dueIndex('EXPIRY', charge.expiresAt, scope, charge.id, randomInt(1 << 16))),
    // The payment list's status cell (moves with the status: every write rewrites the item).
    ...paymentStatusCell(scope, charge.status, charge.id),
  };
}

/**
 * The charge of an item, with its QR image rendered from its BR Code (an item written before
 * the image was dropped from items still carries it: it is used as stored).
 */
export async function toCharge(item: Record<string, unknown>): Promise<ChargeRecord> {
  const charge = recordOf<ChargeRecord>(item);
  if (charge.brCode !== undefined && charge.qrCodeBase64 === undefined)
    charge.qrCodeBase64 = await qrPngBase64(charge.brCode);
  return charge;
}

// ── Item builders ─────────────────────────────────────────────────────────────────────────────

export interface ChargeWriteGuards {
  unexpiredAt?: string;
  noUndecidedCase?: boolean;
}

/** A new charge (never overwrites one). */
export const newChargeItem = (charge: ChargeRecord): TransactItem => ({
  Put: { TableName: tableName(), Item: chargeItem(charge), ConditionExpression: 'attribute_not_exists(pk)' },
});

/**
 * The charge rewritten in its new state, only if it is still in one of `from` (and unexpired, if
 * asked; and with no undecided MED case, if asked: a case opening) and no refund moved its refund
 * totals since it was read (refunds add to both in place: a put of an older read would undo a
 * refund's confirmation).
 */
export function replaceChargeItem(
  next: ChargeRecord,
  from: TxStatus[],
  options: ChargeWriteGuards = {},
): TransactItem {
  const values: Record<string, unknown> = Object.fromEntries(from.map((s, n) => [`:from${n}`, s]));
  if (options.unexpiredAt) values[':at'] = options.unexpiredAt;
  if (options.noUndecidedCase) values[':null'] = 'NULL';
  if (next.refundedAmount !== undefined) values[':refunded'] = next.refundedAmount;
  if (next.refundedSettled !== undefined) values[':settled'] = next.refundedSettled;
  const conditions = [
    `#status IN (${from.map((_, n) => `:from${n}`).join(', ')})`,
    ...(options.unexpiredAt ? ['expiresAt > :at'] : []),
    // An undecided case's metadata has `closedAt` null (medMetadataOf).
    ...(options.noUndecidedCase
      ? ['(attribute_not_exists(med) OR NOT attribute_type(med.closedAt, :null))']
      : []),
    next.refundedAmount === undefined ? 'attribute_not_exists(refundedAmount)' : 'refundedAmount = :refunded',
    next.refundedSettled === undefined
      ? 'attribute_not_exists(refundedSettled)'
      : 'refundedSettled = :settled',
  ];
  return {
    Put: {
      TableName: tableName(),
      Item: chargeItem(next),
      ConditionExpression: conditions.join(' AND '),
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: values,
    },
  };
}

/** Which scope a raw id belongs to. */
export const chargeRefItem = (charge: ChargeRecord): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: { ...chargeRefKey(charge.id), type: 'chargeRef', accountId: charge.accountId, mode: charge.mode },
  },
});

export interface StoredResponse {
  status: number;
  body: unknown;
}

export interface IdempotencyRecord {
  requestHash: string;
  response: StoredResponse;
  /** When the key was first used: it answers for `IDEMPOTENCY_RETENTION_SECONDS` from then (`retained`). */
  createdAt: string;
}

/**
 * The stored response of a create, only if the key was never used or its record was created at
 * or before `lifetime.replacesUpTo` (TTL deletes it at `lifetime.expiresAt`, maybe later): its
 * body as the JSON it was sent as, compactly (stored-body.ts).
 */
export function idempotencyItem(
  scope: MerchantScope,
  input: {
    routeId: string;
    key: string;
    record: Omit<IdempotencyRecord, 'createdAt'>;
    chargeId: string;
    createdAt: string;
    lifetime: { expiresAt: number; replacesUpTo: string };
  },
): TransactItem {
  const { response } = input.record;
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...idempotencyKey(scope, input.routeId, input.key),
        type: 'idempotency',
        requestHash: input.record.requestHash,
        status: response.status,
        ...storedBody(response.body),
        chargeId: input.chargeId,
        createdAt: input.createdAt,
        expiresAt: input.lifetime.expiresAt,
      },
      ConditionExpression: 'attribute_not_exists(pk) OR createdAt <= :lapsed',
      ExpressionAttributeValues: { ':lapsed': input.lifetime.replacesUpTo },
    },
  };
}

/**
 * Adds `delta` to one shard of the scope's live-charge counter (`shard` undefined: the unsharded
 * counter); with `below`, only while that shard's count is below it.
 */
export function pendingCounterChange(
  scope: MerchantScope,
  delta: 1 | -1,
  options: { shard: number | undefined; below?: number },
): TransactItem {
  return counterChange(pendingCounterKey(scope, options.shard), delta, options.below);
}

/** Every item of the scope's live-charge counter (its shards, and any unsharded one), as committed. */
export async function readLiveCounters(scope: MerchantScope): Promise<ShardCount[]> {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: {
      ':pk': scopePk(scope),
      ':from': PREFIX.pendingCounter,
      ':to': prefixEnd(PREFIX.pendingCounter),
    },
    ConsistentRead: true,
  });
  return items.map((item) => ({ shard: parseShard(String(item.sk)), count: Number(item.count ?? 0) }));
}

/** The record that a Pix was processed (only if it never was). */
export const pixReceiptItem = (
  scope: MerchantScope,
  pix: IncomingPix,
  chargeId: string,
  outcome: string,
): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: {
      ...pixReceiptKey(pix.endToEndId),
      type: 'pixReceipt',
      ...scope,
      chargeId,
      amount: pix.amount,
      outcome,
      receivedAt: pix.receivedAt,
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

/** A held net amount, on the release queue at its release time, with the wallet shard it sits in. */
export const trancheItem = (
  scope: MerchantScope,
  chargeId: string,
  tranche: Tranche,
  walletShard: number | undefined,
): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: {
      ...trancheKey(scope, tranche.releaseAt, chargeId),
      type: 'tranche',
      chargeId,
      ...tranche,
      ...(walletShard !== undefined && { walletShard }),
      ...dueIndex('RELEASE', tranche.releaseAt, scope, chargeId, chargeId.charCodeAt(chargeId.length - 1)),
    },
  },
});

/** The wallet shard a stored tranche's money sits in (`undefined`: the unsharded wallet). */
export const trancheWalletShard = (item: Record<string, unknown>): number | undefined =>
  typeof item.walletShard === 'number' ? item.walletShard : undefined;

/** Removes a released tranche, only if no other run removed it first. */
export const releasedTrancheItem = (key: ItemKey): TransactItem => ({
  Delete: { TableName: tableName(), Key: key, ConditionExpression: 'attribute_exists(pk)' },
});

// ── Reads ─────────────────────────────────────────────────────────────────────────────────────

/** What a create needs before deciding anything, in one round trip. */
export async function readCreateContext(scope: MerchantScope, routeId: string, key: string) {
  const [[idem, account], liveCounters] = await Promise.all([
    batchGetConsistent([idempotencyKey(scope, routeId, key), accountKey(scope.accountId)]),
    readLiveCounters(scope),
  ]);
  return {
    idempotency: idem && (await toIdempotencyRecord(idem)),
    account: account && toAccount(account),
    liveCounters,
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
  return Item && toIdempotencyRecord(Item);
}

/** The stored response as first sent (records written before bodies were stored as JSON keep `response`). */
async function toIdempotencyRecord(item: Record<string, unknown>): Promise<IdempotencyRecord> {
  const requestHash = String(item.requestHash);
  const createdAt = String(item.createdAt);
  if (item.body === undefined) return { requestHash, createdAt, response: item.response as StoredResponse };
  return {
    requestHash,
    createdAt,
    response: { status: Number(item.status), body: JSON.parse(await sentBody(item)) },
  };
}

/** The longest customer velocity window an account may configure (one query covers any). */
export const MAX_CUSTOMER_WINDOW_SECONDS = 24 * 3600;

/** A customer's charges in `statuses` (id, creation time), since `sinceIso`, unexpired at `nowIso`. */
export async function customerCharges(
  scope: MerchantScope,
  customer: string,
  q: { statuses: TxStatus[]; sinceIso: string; nowIso: string },
): Promise<CustomerCharge[]> {
  const items = await queryAll({
    TableName: tableName(),
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk >= :since',
    FilterExpression: `#status IN (${q.statuses.map((_, n) => `:s${n}`).join(', ')}) AND expiresAt > :now`,
    ProjectionExpression: 'id, createdAt',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':pk': customerIndexPk(scope, customer),
      ':since': q.sinceIso,
      ':now': q.nowIso,
      ...Object.fromEntries(q.statuses.map((s, n) => [`:s${n}`, s])),
    },
  });
  return items.map((i) => ({ id: String(i.id), createdAt: String(i.createdAt) }));
}

/** The customer's velocity guard, strongly consistent (version 0 and no creates when absent). */
export async function readCustomerGuard(scope: MerchantScope, customer: string): Promise<CustomerGuard> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName(), Key: customerGuardKey(scope, customer), ConsistentRead: true }),
  );
  return { version: Number(Item?.version ?? 0), recent: (Item?.recent as Record<string, string>) ?? {} };
}

/**
 * The guard with `recent` as its creates, written only if no other create moved it since `read`
 * was read; TTL deletes it at `expiresAt` (epoch seconds).
 */
export function customerGuardItem(
  scope: MerchantScope,
  customer: string,
  read: CustomerGuard,
  recent: Record<string, string>,
  expiresAt: number,
): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...customerGuardKey(scope, customer),
        version: read.version + 1,
        recent,
        expiresAt,
      },
      ...(read.version === 0
        ? { ConditionExpression: 'attribute_not_exists(pk)' }
        : { ConditionExpression: 'version = :read', ExpressionAttributeValues: { ':read': read.version } }),
    },
  };
}

/** Status, expiry and creation time of some of a scope's charges (strongly consistent; absent ones left out). */
export async function chargeStates(
  scope: MerchantScope,
  rawIds: readonly string[],
): Promise<Pick<ChargeRecord, 'id' | 'status' | 'expiresAt' | 'createdAt'>[]> {
  const items = [];
  for (let i = 0; i < rawIds.length; i += 100)
    items.push(...(await batchGetConsistent(rawIds.slice(i, i + 100).map((id) => chargeKey(scope, id)))));
  return items
    .filter((item) => item !== undefined)
    .map((item) => ({
      id: String(item.id),
      status: item.status as TxStatus,
      expiresAt: String(item.expiresAt),
      createdAt: String(item.createdAt),
    }));
}

export async function getCharge(scope: MerchantScope, rawId: string): Promise<ChargeRecord | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName(), Key: chargeKey(scope, rawId), ConsistentRead: true }),
  );
  return Item && (await toCharge(Item));
}

/** A charge by raw id alone, for public pages (checkout, Pix location). */
export async function getChargeByRawId(rawId: string): Promise<ChargeRecord | undefined> {
  const { Item: ref } = await db.send(new GetCommand({ TableName: tableName(), Key: chargeRefKey(rawId) }));
  if (!ref) return undefined;
  return getCharge({ accountId: String(ref.accountId), mode: ref.mode }, rawId);
}

/** An entry of a due queue: the scope and id it names, and the item's own key. */
interface DueEntry {
  scope: MerchantScope;
  id: string;
  key: ItemKey;
  item: Record<string, unknown>;
}

/** Every entry of a due queue whose time has come, across its shards. */
export async function dueEntries(queue: DueQueue, now: Date): Promise<DueEntry[]> {
  const shards = await Promise.all(
    dueShards(queue).map((shard) =>
      queryAll({
        TableName: tableName(),
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :shard AND gsi2sk <= :now',
        ExpressionAttributeValues: { ':shard': shard, ':now': dueUpTo(now.toISOString()) },
      }),
    ),
  );
  return shards.flat().map((item) => ({
    ...parseDueEntry(String(item.gsi2sk)),
    key: { pk: String(item.pk), sk: String(item.sk) },
    item,
  }));
}

/** The list's filter (`charge-list-query.ts`) and the instant `pending`/`expired` compare expiries with. */
interface ChargeListQuery extends ChargeListFilter {
  nowIso: string;
}

/**
 * Newest first, merged over the scope's partitions; reads until `limit + 1` matches are found
 * (filters are applied server-side).
 */
export async function listCharges(
  scope: MerchantScope,
  q: ChargeListQuery,
): Promise<{ charges: ChargeRecord[]; hasMore: boolean }> {
  const { from: lower, to: upper } = chargeSkRange({
    ...(q.createdAfterMs !== undefined && { fromMs: q.createdAfterMs }),
    ...(q.createdBeforeMs !== undefined && { toMs: q.createdBeforeMs + 1 }),
  });
  const filter = noFilter();
  if (q.statuses) {
    filter.names['#status'] = 'status';
    filter.conditions.push(`#status IN (${q.statuses.map((_, i) => `:s${i}`).join(', ')})`);
    q.statuses.forEach((s, i) => {
      filter.values[`:s${i}`] = s;
    });
  }
  if (q.expiry) {
    filter.conditions.push(q.expiry === 'ahead' ? 'expiresAt > :now' : 'expiresAt <= :now');
    filter.values[':now'] = q.nowIso;
  }
  if (q.customerDocument !== undefined) {
    // The payer document: the customer's, or the payer lock's when no customer document was sent.
    filter.conditions.push('(customer.#document = :document OR expectedPayerTaxId = :document)');
    filter.names['#document'] = 'document';
    filter.values[':document'] = q.customerDocument;
  }

  // A cursor outside the time range: nothing older remains, or the range starts below it.
  const cursor = q.startingAfter === undefined ? undefined : chargeKey(scope, q.startingAfter).sk;
  if (cursor !== undefined && cursor <= lower) return { charges: [], hasMore: false };
  // BETWEEN is inclusive: the cursor's own charge, in one partition, is read and dropped.
  const cursorInRange = cursor !== undefined && cursor < upper;
  const items = await queryMerged(
    scopeRangeQueries(scope, { from: lower, to: cursorInRange ? cursor : upper }, filter, true),
    q.limit + 1 + (cursorInRange ? 1 : 0),
    'desc',
  );
  const older = items.filter((item) => item.sk !== cursor).slice(0, q.limit + 1);
  const charges = await Promise.all(older.slice(0, q.limit).map(toCharge));
  return { charges, hasMore: older.length > q.limit };
}
