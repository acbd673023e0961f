/**
 * API keys. Two items per key, written and removed together in one transaction:
 * - the record, `ACCOUNT#<id>` / `APIKEY#<keyId>`, listed per account and addressed by id;
 * - the lookup, `APIKEYHASH#<sha256>` / `APIKEY`, read on every merchant request. Revoking
 *   deletes it, so a revoked key simply no longer resolves.
 * Issuing, rotating and revoking (shared/services/*-api-key.ts) write them with an audit event in
 * one transaction; this module builds the items and reads.
 */

import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import type { ApiKeyLookup, ApiKeyRecord, AuditEvent } from '../domain/api-keys.ts';
import type { Mode as KeyMode } from '../domain/scope.ts';
import { db, queryAll, type TransactItem, tableName } from './client.ts';
import { accountPk, apiKeyHashKey, apiKeyKey, auditKey, PREFIX, prefixEnd } from './keys.ts';

/** The record and lookup of a new key (neither may exist yet). `hash` is the key's SHA-256. */
export function newKeyItems(record: ApiKeyRecord, hash: string): TransactItem[] {
  const lookup: ApiKeyLookup = {
    keyId: record.id,
    accountId: record.accountId,
    mode: record.mode,
    fingerprint: record.fingerprint,
    hash,
  };
  return [
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...apiKeyKey(record.accountId, record.id),
          type: 'apiKey',
          status: 'ACTIVE',
          hash,
          ...record,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: tableName(),
        Item: { ...apiKeyHashKey(hash), type: 'apiKeyLookup', ...lookup },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
}

/** An audit event of the account. */
export const auditItem = (accountId: string, event: AuditEvent): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: { ...auditKey(accountId, event.createdAt, event.id), type: 'audit', ...event },
  },
});

export async function listApiKeys(accountId: string): Promise<ApiKeyRecord[]> {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': accountPk(accountId), ':prefix': PREFIX.apiKey },
    ConsistentRead: true,
  });
  return items
    .filter((item) => item.status === 'ACTIVE')
    .map(toRecord)
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

/** Resolves a presented key's hash to its key; revoked and unknown keys resolve to nothing. */
export async function findApiKeyByHash(hash: string): Promise<ApiKeyLookup | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName(), Key: apiKeyHashKey(hash), ConsistentRead: true }),
  );
  return (
    Item && {
      keyId: Item.keyId,
      accountId: Item.accountId,
      mode: Item.mode,
      fingerprint: Item.fingerprint,
      hash: Item.hash,
    }
  );
}

/** An active key of the account with its hash; `undefined` when absent or revoked. */
export async function getActiveKey(
  accountId: string,
  keyId: string,
): Promise<(ApiKeyRecord & { hash: string }) | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName(), Key: apiKeyKey(accountId, keyId), ConsistentRead: true }),
  );
  return Item?.status === 'ACTIVE' ? { ...toRecord(Item), hash: String(Item.hash) } : undefined;
}

/** Retires an active key: the record is marked revoked (only if still active), the lookup removed. */
export function retireKeyItems(
  key: ApiKeyRecord & { hash: string },
  actorUserId: string,
  now: string,
): TransactItem[] {
  return [
    {
      Update: {
        TableName: tableName(),
        Key: apiKeyKey(key.accountId, key.id),
        UpdateExpression: 'SET #status = :revoked, revokedAt = :now, revokedBy = :actor',
        ConditionExpression: '#status = :active',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':revoked': 'REVOKED',
          ':active': 'ACTIVE',
          ':now': now,
          ':actor': actorUserId,
        },
      },
    },
    {
      Delete: {
        TableName: tableName(),
        Key: apiKeyHashKey(key.hash),
        ConditionExpression: 'attribute_exists(pk)',
      },
    },
  ];
}

/**
 * Newest first, at most `limit` events, older than `after` when given (a page's last event: its
 * key is `AUDIT#<createdAt>#<id>`, so the next page is the range below it); `hasMore` when older
 * ones follow.
 */
export async function listAuditEvents(
  accountId: string,
  limit: number,
  after?: { createdAt: string; id: string },
): Promise<{ events: AuditEvent[]; hasMore: boolean }> {
  const below = after && auditKey(accountId, after.createdAt, after.id).sk;
  const { Items = [] } = await db.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': accountPk(accountId),
        ':from': PREFIX.audit,
        ':to': below ?? prefixEnd(PREFIX.audit),
      },
      ScanIndexForward: false,
      // One more tells whether another page follows; BETWEEN includes the cursor's own event, dropped.
      Limit: limit + (below ? 2 : 1),
    }),
  );
  const items = Items.filter((item) => item.sk !== below);
  return { events: items.slice(0, limit).map(toAuditEvent), hasMore: items.length > limit };
}

const toAuditEvent = (item: Record<string, NativeAttributeValue>): AuditEvent => ({
  id: item.id,
  action: item.action,
  actorUserId: item.actorUserId,
  keyId: item.keyId,
  fingerprint: item.fingerprint,
  ...(item.replacedKeyId && {
    replacedKeyId: item.replacedKeyId,
    replacedFingerprint: item.replacedFingerprint,
  }),
  createdAt: item.createdAt,
});

const toRecord = (item: Record<string, unknown>): ApiKeyRecord => ({
  id: String(item.id),
  accountId: String(item.accountId),
  label: String(item.label),
  mode: item.mode as KeyMode,
  prefix: String(item.prefix),
  fingerprint: String(item.fingerprint),
  createdAt: String(item.createdAt),
});
