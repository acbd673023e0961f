/**
 * Account: the tenant. One item, `ACCOUNT#<id>` / `ACCOUNT`, holding the merchant profile and
 * per-account settings. Read on every merchant request for the rate limit, so reads go
 * through a short in-process cache.
 */

import { randomBytes } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';
import { accountPk } from './keys.ts';

export interface Account {
  id: string;
  name: string;
  createdAt: string;
  /** Per-key requests per minute; the service default applies when absent. */
  rateLimitPerMinute?: number;
}

const key = (accountId: string) => ({ pk: accountPk(accountId), sk: 'ACCOUNT' });

export const newAccountId = (): string => `acct_${randomBytes(12).toString('hex')}`;

export async function createAccount(input: { name: string; rateLimitPerMinute?: number }): Promise<Account> {
  const account: Account = { id: newAccountId(), name: input.name, createdAt: new Date().toISOString() };
  if (input.rateLimitPerMinute !== undefined) account.rateLimitPerMinute = input.rateLimitPerMinute;
  await db.send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...key(account.id), type: 'account', ...account },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return account;
}

export async function getAccount(accountId: string): Promise<Account | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName(), Key: key(accountId) }));
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

function toAccount(item: Record<string, unknown>): Account {
  const account: Account = {
    id: String(item.id),
    name: String(item.name),
    createdAt: String(item.createdAt),
  };
  if (typeof item.rateLimitPerMinute === 'number') account.rateLimitPerMinute = item.rateLimitPerMinute;
  return account;
}
