/**
 * Per-key fixed one-minute windows: one counter item per key per minute
 * (`RATE#<keyId>#<minute>`), incremented atomically and deleted by TTL. The `RATE#` prefix is
 * what lets `wallets` (read tier) write counters and nothing else; the login counters'
 * `LOGINATTEMPTS#` prefix does the same for `auth` (IAM `dynamodb:LeadingKeys`, `prefixedWrites`).
 *
 * Login attempts: one counter item per e-mail address and one per address and source, in the
 * address's partition (`LOGINATTEMPTS#<hash>`, keys.ts), each with a window that starts at its
 * first counted attempt, incremented atomically with the same `ADD` and deleted by TTL once its
 * window is over.
 */

import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionFailure, tableName } from './client.ts';
import { type ItemKey, rateWindowKey } from './keys.ts';

interface RateWindow {
  count: number;
  /** Seconds until the current window ends. */
  resetInSeconds: number;
}

export async function countRequest(keyId: string, now = Date.now()): Promise<RateWindow> {
  const minute = Math.floor(now / 60_000);
  const { Attributes } = await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: rateWindowKey(keyId, minute),
      UpdateExpression: 'ADD #count :one SET expiresAt = if_not_exists(expiresAt, :expires)',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: { ':one': 1, ':expires': (minute + 2) * 60 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return {
    count: Number(Attributes?.count ?? 1),
    resetInSeconds: Math.max(1, Math.ceil(((minute + 1) * 60_000 - now) / 1000)),
  };
}

interface AttemptWindow {
  /** Attempts counted in the window, this one included. */
  count: number;
  /** Epoch milliseconds when the window ends (the window the attempt was counted in). */
  windowEndsAt: number;
}

/** TTL: a minute after the window ends (DynamoDB deletes expired items late; reads check `windowEndsAt`). */
const attemptsExpiry = (windowEndsAt: number) => Math.ceil(windowEndsAt / 1000) + 60;

/**
 * Counts one login attempt in the counter `Key`: `ADD 1` in the current window, or, when that window
 * is over, a new window of `windowMs` from `now` with this attempt its first. Each is one atomic
 * `UpdateItem`, so concurrent attempts each get their own count; of concurrent attempts that
 * find the window over, exactly one starts the next (a conditional write) and the others count
 * in it.
 */
export async function countLoginAttempt(
  Key: ItemKey,
  windowMs: number,
  now = Date.now(),
): Promise<AttemptWindow> {
  const windowEndsAt = now + windowMs;
  const values = {
    ':one': 1,
    ':endsAt': windowEndsAt,
    ':expires': attemptsExpiry(windowEndsAt),
    ':now': now,
  };
  for (let tries = 0; tries < 3; tries++) {
    try {
      const { Attributes } = await db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key,
          UpdateExpression:
            'ADD #count :one SET windowEndsAt = if_not_exists(windowEndsAt, :endsAt), expiresAt = if_not_exists(expiresAt, :expires)',
          ConditionExpression: 'attribute_not_exists(pk) OR windowEndsAt > :now',
          ExpressionAttributeNames: { '#count': 'count' },
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return { count: Number(Attributes?.count ?? 1), windowEndsAt: Number(Attributes?.windowEndsAt) };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    // The window is over: start the next one, unless a concurrent attempt just did.
    try {
      await db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key,
          UpdateExpression: 'SET #count = :one, windowEndsAt = :endsAt, expiresAt = :expires',
          ConditionExpression: 'windowEndsAt <= :now',
          ExpressionAttributeNames: { '#count': 'count' },
          ExpressionAttributeValues: values,
        }),
      );
      return { count: 1, windowEndsAt };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
  throw new Error('Login attempt not counted: its window kept changing');
}

/**
 * Takes back one attempt counted by `countLoginAttempt` (one that turned out not to be a failure),
 * only in the window it was counted in: a window started since is left alone.
 */
export async function uncountLoginAttempt(Key: ItemKey, windowEndsAt: number): Promise<void> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key,
        UpdateExpression: 'ADD #count :minusOne',
        ConditionExpression: 'windowEndsAt = :endsAt AND #count > :zero',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':minusOne': -1, ':endsAt': windowEndsAt, ':zero': 0 },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/** Records that a login succeeded from the source of `Key` (`loginKnownSourceKey`), until `expiresAt` (epoch seconds, TTL). */
export async function rememberLoginSource(Key: ItemKey, expiresAt: number): Promise<void> {
  await db.send(new PutCommand({ TableName: tableName(), Item: { ...Key, expiresAt } }));
}

/** Whether a login succeeded from that source and its record has not expired (TTL deletes late). */
export async function isKnownLoginSource(Key: ItemKey, now = Date.now()): Promise<boolean> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName(), Key, ConsistentRead: true }));
  return Item !== undefined && Number(Item.expiresAt) * 1000 > now;
}
