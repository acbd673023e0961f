/**
 * Users and memberships. A user is keyed by normalised e-mail (`EMAIL#<email>` / `USER`)
 * because login is its only lookup and the conditional put makes e-mails unique. A membership
 * lives in its account's partition (`ACCOUNT#<id>` / `MEMBER#<userId>`), read with a strongly
 * consistent get on every dashboard request so a removed member loses access at once; GSI1
 * (`USER#<userId>`) lists a user's accounts at login.
 */

import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type Membership, normaliseEmail, type Role, type User } from '../domain/auth.ts';
import { db, isConditionFailure, tableName } from './client.ts';
import { accountPk, userKey as emailUserKey, membershipKey, userMembershipsIndexPk } from './keys.ts';

const userKey = (email: string) => emailUserKey(normaliseEmail(email));

/** `createUser` for an address that already has a user. */
export class EmailTakenError extends Error {}

export async function createUser(email: string, passwordHash: string): Promise<User> {
  const user: User = {
    id: `user_${randomUUID()}`,
    email: normaliseEmail(email),
    passwordHash,
    createdAt: new Date().toISOString(),
  };
  try {
    await db.send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...userKey(email), type: 'user', ...user },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    if (isConditionFailure(error)) {
      throw new EmailTakenError(`A user with e-mail ${user.email} already exists`);
    }
    throw error;
  }
  return user;
}

export async function findUserByEmail(email: string): Promise<User | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName(), Key: userKey(email), ConsistentRead: true }),
  );
  return (
    Item && { id: Item.id, email: Item.email, passwordHash: Item.passwordHash, createdAt: Item.createdAt }
  );
}

/**
 * Replaces a user's password hash, on condition it is still `from` (a password changed meanwhile
 * stays); false when it was not.
 */
export async function replacePasswordHash(email: string, from: string, to: string): Promise<boolean> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: userKey(email),
        UpdateExpression: 'SET passwordHash = :to',
        ConditionExpression: 'passwordHash = :from',
        ExpressionAttributeValues: { ':from': from, ':to': to },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * Gives the user `role` on the account: a new membership, or a new role for an existing one
 * (which keeps its `createdAt`). `previousRole` is the role it replaced, if any.
 */
export async function putMembership(
  accountId: string,
  userId: string,
  role: Role,
): Promise<Membership & { previousRole?: Role }> {
  const now = new Date().toISOString();
  const { Attributes: before } = await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: membershipKey(accountId, userId),
      UpdateExpression:
        'SET gsi1pk = :gsi1pk, gsi1sk = :gsi1sk, #type = :type, accountId = :accountId, userId = :userId, #role = :role, createdAt = if_not_exists(createdAt, :now)',
      ExpressionAttributeNames: { '#type': 'type', '#role': 'role' },
      ExpressionAttributeValues: {
        ':gsi1pk': userMembershipsIndexPk(userId),
        ':gsi1sk': accountPk(accountId),
        ':type': 'membership',
        ':accountId': accountId,
        ':userId': userId,
        ':role': role,
        ':now': now,
      },
      ReturnValues: 'ALL_OLD',
    }),
  );
  if (!before) return { accountId, userId, role, createdAt: now };
  return { ...toMembership(before), role, previousRole: before.role as Role };
}

export async function listMembershipsOfUser(userId: string): Promise<Membership[]> {
  const { Items = [] } = await db.send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': userMembershipsIndexPk(userId) },
    }),
  );
  return Items.map(toMembership);
}

export const toMembership = (item: Record<string, unknown>): Membership => ({
  accountId: String(item.accountId),
  userId: String(item.userId),
  role: item.role as Role,
  createdAt: String(item.createdAt),
});
