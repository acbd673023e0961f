/**
 * Dashboard sessions. Logout puts the token id on a deny-list (`REVOKEDJWT#<jti>`) that
 * expires with the token itself (TTL). Each dashboard request reads the deny-list entry and
 * the caller's membership in ONE strongly consistent BatchGetItem.
 */

import { BatchGetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { SessionClaims } from '../auth/jwt.ts';
import { db, tableName } from './client.ts';
import { type Membership, membershipKey, toMembership } from './users.ts';

const revokedKey = (jti: string) => ({ pk: `REVOKEDJWT#${jti}`, sk: 'JWT' });

export async function revokeSession(claims: SessionClaims): Promise<void> {
  await db.send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...revokedKey(claims.jti), type: 'revokedToken', userId: claims.userId, expiresAt: claims.exp },
    }),
  );
}

/** The caller's live membership, or `undefined` when the token was revoked or the member removed. */
export async function activeMembership(claims: SessionClaims): Promise<Membership | undefined> {
  const table = tableName();
  const membership = membershipKey(claims.accountId, claims.userId);
  const revoked = revokedKey(claims.jti);
  let keys = [membership, revoked];
  const found: Record<string, unknown>[] = [];
  // BatchGet may return some keys as unprocessed under throttling; ask again for those.
  for (let attempt = 0; keys.length > 0 && attempt < 5; attempt++) {
    const { Responses, UnprocessedKeys } = await db.send(
      new BatchGetCommand({ RequestItems: { [table]: { Keys: keys, ConsistentRead: true } } }),
    );
    found.push(...(Responses?.[table] ?? []));
    keys = (UnprocessedKeys?.[table]?.Keys as typeof keys | undefined) ?? [];
  }
  if (keys.length > 0) throw new Error('BatchGetItem left keys unprocessed');
  if (found.some((item) => item.pk === revoked.pk)) return undefined;
  const item = found.find((i) => i.pk === membership.pk && i.sk === membership.sk);
  return item && toMembership(item);
}
