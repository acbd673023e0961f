/**
 * API keys. Two items per key, written and removed together in one transaction:
 * - the record, `ACCOUNT#<id>` / `APIKEY#<keyId>`, listed per account and addressed by id;
 * - the lookup, `APIKEYHASH#<sha256>` / `APIKEY`, read on every merchant request. Revoking
 *   deletes it, so a revoked key simply no longer resolves.
 * Every issue, rotate and revoke also writes an audit event in the same transaction.
 */

import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { generateApiKey } from '../auth/api-key-crypto.ts';
import type { ApiKeyLookup, ApiKeyRecord, AuditEvent, IssuedKey } from '../domain/api-keys.ts';
import type { Mode as KeyMode } from '../domain/scope.ts';
import { db, queryAll, tableName, transactWrite } from './client.ts';
import { accountPk } from './keys.ts';

const recordKey = (accountId: string, keyId: string) => ({ pk: accountPk(accountId), sk: `APIKEY#${keyId}` });
const lookupKey = (hash: string) => ({ pk: `APIKEYHASH#${hash}`, sk: 'APIKEY' });

/** The pair of items for a freshly generated key, plus its one-time cleartext. */
function newKeyItems(accountId: string, mode: KeyMode, label: string, now: string) {
  const material = generateApiKey(mode);
  const record: ApiKeyRecord = {
    id: randomUUID(),
    accountId,
    label,
    mode,
    prefix: material.prefix,
    fingerprint: material.fingerprint,
    createdAt: now,
  };
  const lookup: ApiKeyLookup = {
    keyId: record.id,
    accountId,
    mode,
    fingerprint: material.fingerprint,
    hash: material.hash,
  };
  return {
    apiKey: material.apiKey,
    record,
    puts: [
      {
        Put: {
          TableName: tableName(),
          Item: {
            ...recordKey(accountId, record.id),
            type: 'apiKey',
            status: 'ACTIVE',
            hash: material.hash,
            ...record,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Put: {
          TableName: tableName(),
          Item: { ...lookupKey(material.hash), type: 'apiKeyLookup', ...lookup },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ],
  };
}

function auditPut(accountId: string, event: Omit<AuditEvent, 'id' | 'createdAt'>, now: string) {
  const id = randomUUID();
  return {
    Put: {
      TableName: tableName(),
      Item: {
        pk: accountPk(accountId),
        sk: `AUDIT#${now}#${id}`,
        type: 'audit',
        id,
        createdAt: now,
        ...event,
      },
    },
  };
}

export async function issueApiKey(input: {
  accountId: string;
  mode: KeyMode;
  label: string;
  actorUserId: string;
}): Promise<IssuedKey> {
  const now = new Date().toISOString();
  const { apiKey, record, puts } = newKeyItems(input.accountId, input.mode, input.label, now);
  await db.send(
    new TransactWriteCommand({
      TransactItems: [
        ...puts,
        auditPut(
          input.accountId,
          {
            action: 'api_key.issued',
            actorUserId: input.actorUserId,
            keyId: record.id,
            fingerprint: record.fingerprint,
          },
          now,
        ),
      ],
    }),
  );
  return { apiKey, record };
}

export async function listApiKeys(accountId: string): Promise<ApiKeyRecord[]> {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': accountPk(accountId), ':prefix': 'APIKEY#' },
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
    new GetCommand({ TableName: tableName(), Key: lookupKey(hash), ConsistentRead: true }),
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

async function getActiveRecord(accountId: string, keyId: string) {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName(), Key: recordKey(accountId, keyId), ConsistentRead: true }),
  );
  return Item?.status === 'ACTIVE' ? Item : undefined;
}

/** Transaction items that retire an active key: the record is marked revoked, the lookup removed. */
function retireItems(accountId: string, item: Record<string, unknown>, actorUserId: string, now: string) {
  return [
    {
      Update: {
        TableName: tableName(),
        Key: recordKey(accountId, String(item.id)),
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
        Key: lookupKey(String(item.hash)),
        ConditionExpression: 'attribute_exists(pk)',
      },
    },
  ];
}

/** `undefined` when no active key with this id exists in the account (nothing is changed). */
export async function rotateApiKey(input: {
  accountId: string;
  keyId: string;
  label?: string;
  actorUserId: string;
}): Promise<IssuedKey | undefined> {
  const old = await getActiveRecord(input.accountId, input.keyId);
  if (!old) return undefined;
  const now = new Date().toISOString();
  const { apiKey, record, puts } = newKeyItems(input.accountId, old.mode, input.label ?? old.label, now);
  const done = await transactWrite([
    ...retireItems(input.accountId, old, input.actorUserId, now),
    ...puts,
    auditPut(
      input.accountId,
      {
        action: 'api_key.rotated',
        actorUserId: input.actorUserId,
        keyId: record.id,
        fingerprint: record.fingerprint,
        replacedKeyId: String(old.id),
        replacedFingerprint: String(old.fingerprint),
      },
      now,
    ),
  ]);
  return done ? { apiKey, record } : undefined;
}

/** `false` when no active key with this id exists in the account (nothing is changed). */
export async function revokeApiKey(input: {
  accountId: string;
  keyId: string;
  actorUserId: string;
}): Promise<boolean> {
  const old = await getActiveRecord(input.accountId, input.keyId);
  if (!old) return false;
  const now = new Date().toISOString();
  return transactWrite([
    ...retireItems(input.accountId, old, input.actorUserId, now),
    auditPut(
      input.accountId,
      {
        action: 'api_key.revoked',
        actorUserId: input.actorUserId,
        keyId: String(old.id),
        fingerprint: String(old.fingerprint),
      },
      now,
    ),
  ]);
}

export async function listAuditEvents(accountId: string, limit: number): Promise<AuditEvent[]> {
  const { Items = [] } = await db.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': accountPk(accountId), ':prefix': 'AUDIT#' },
      ScanIndexForward: false,
      Limit: limit,
    }),
  );
  return Items.map((item) => ({
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
  }));
}

const toRecord = (item: Record<string, unknown>): ApiKeyRecord => ({
  id: String(item.id),
  accountId: String(item.accountId),
  label: String(item.label),
  mode: item.mode as KeyMode,
  prefix: String(item.prefix),
  fingerprint: String(item.fingerprint),
  createdAt: String(item.createdAt),
});
