/**
 * Account: the tenant. One item, `ACCOUNT#<id>` / `ACCOUNT`, holding the merchant profile and
 * per-account settings. Read on every merchant request for the rate limit, so reads go
 * through a short in-process cache.
 */

import { randomBytes } from 'node:crypto';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type Account, type AccountOverrides, settingsOf } from '../domain/account-settings.ts';
import type { AcquirerSettings } from '../domain/acquirer.ts';
import { accountIdHexDigits } from '../resources.ts';
import { db, isConditionFailure, type TransactItem, tableName } from './client.ts';
import { accountKey, providerCallbackKey } from './keys.ts';

export const newAccountId = (): string => `acct_${randomBytes(accountIdHexDigits / 2).toString('hex')}`;

export async function createAccount(input: {
  name: string;
  rateLimitPerMinute?: number;
  settings?: AccountOverrides;
}): Promise<Account> {
  const account: Account = {
    id: newAccountId(),
    name: input.name,
    createdAt: new Date().toISOString(),
    settings: settingsOf(input.name, input.settings),
  };
  if (input.rateLimitPerMinute !== undefined) account.rateLimitPerMinute = input.rateLimitPerMinute;
  await db.send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...accountKey(account.id), type: 'account', ...account },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return account;
}

export async function getAccount(accountId: string): Promise<Account | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName(), Key: accountKey(accountId) }));
  return Item && toAccount(Item);
}

const CACHE_TTL_MS = 60_000;
const cache = new Map<string, { account: Account | undefined; until: number }>();

/** Account settings, at most a minute stale: fine for limits, never used for authorization. */
export async function getAccountCached(accountId: string): Promise<Account | undefined> {
  const hit = cache.get(accountId);
  if (hit && hit.until > Date.now()) return hit.account;
  const account = await getAccount(accountId);
  cache.set(accountId, { account, until: Date.now() + CACHE_TTL_MS });
  return account;
}

export function toAccount(item: Record<string, unknown>): Account {
  const account: Account = {
    id: String(item.id),
    name: String(item.name),
    createdAt: String(item.createdAt),
    settings: settingsOf(String(item.name), (item.settings ?? {}) as AccountOverrides),
  };
  if (typeof item.rateLimitPerMinute === 'number') account.rateLimitPerMinute = item.rateLimitPerMinute;
  if (item.sandboxAcquirerDown === true) account.sandboxAcquirerDown = true;
  if (item.sandboxPayoutsUnsupported === true) account.sandboxPayoutsUnsupported = true;
  if (item.acquirer) account.acquirer = item.acquirer as AcquirerSettings;
  return account;
}

/** The simulated acquirer's behaviour (sandbox only); an absent field is left as it was. */
export async function setSandboxAcquirer(
  accountId: string,
  behaviour: { down?: boolean; payoutsUnsupported?: boolean },
): Promise<void> {
  const sets = [
    ...(behaviour.down !== undefined ? ['sandboxAcquirerDown = :down'] : []),
    ...(behaviour.payoutsUnsupported !== undefined ? ['sandboxPayoutsUnsupported = :noPayouts'] : []),
  ];
  if (sets.length === 0) return;
  await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: accountKey(accountId),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: {
        ...(behaviour.down !== undefined && { ':down': behaviour.down }),
        ...(behaviour.payoutsUnsupported !== undefined && { ':noPayouts': behaviour.payoutsUnsupported }),
      },
    }),
  );
}

/**
 * The account's live acquirer set (or replaced): its settings on the account, the pointer from
 * the new callback token's hash, and the old token's pointer removed so its URL stops working.
 */
export function setAcquirerItems(
  accountId: string,
  acquirer: AcquirerSettings,
  previousTokenHash?: string,
): TransactItem[] {
  const table = tableName();
  return [
    {
      Update: {
        TableName: table,
        Key: accountKey(accountId),
        UpdateExpression: 'SET acquirer = :acquirer',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':acquirer': acquirer },
      },
    },
    {
      Put: {
        TableName: table,
        Item: { ...providerCallbackKey(acquirer.callbackTokenHash), type: 'providerCallback', accountId },
      },
    },
    ...(previousTokenHash && previousTokenHash !== acquirer.callbackTokenHash
      ? [{ Delete: { TableName: table, Key: providerCallbackKey(previousTokenHash) } }]
      : []),
  ];
}

/** The account whose callback token hashes to `tokenHash`, if any. */
export async function accountOfCallback(tokenHash: string): Promise<string | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName(), Key: providerCallbackKey(tokenHash), ConsistentRead: true }),
  );
  return Item ? String(Item.accountId) : undefined;
}

/**
 * Sets the account's contact e-mail (already validated), or removes it (`undefined`); false when
 * there is no such account.
 */
export async function setContactEmail(accountId: string, email: string | undefined): Promise<boolean> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: accountKey(accountId),
        ConditionExpression: 'attribute_exists(pk)',
        ...(email === undefined
          ? { UpdateExpression: 'REMOVE settings.contactEmail' }
          : {
              UpdateExpression: 'SET settings.contactEmail = :email',
              ExpressionAttributeValues: { ':email': email },
            }),
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * Changes how many shards the account's new charges spread over (docs/data-model.md, "Sharded
 * balances"). Charges already created keep theirs; reads sum every shard that exists.
 */
export async function setWalletShards(accountId: string, walletShards: number): Promise<void> {
  await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: accountKey(accountId),
      UpdateExpression: 'SET #settings.#walletShards = :shards',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#settings': 'settings', '#walletShards': 'walletShards' },
      ExpressionAttributeValues: { ':shards': walletShards },
    }),
  );
}
