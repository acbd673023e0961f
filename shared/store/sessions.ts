/**
 * Dashboard sessions. Logout puts the token id on a deny-list (`REVOKEDJWT#<jti>`) that
 * expires with the token itself (TTL). Each dashboard request reads the deny-list entry and
 * the caller's membership in ONE strongly consistent BatchGetItem.
 */

import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Membership, SessionClaims } from '../domain/auth.ts';
import { batchGetConsistent, db, tableName } from './client.ts';
import { membershipKey, revokedJwtKey } from './keys.ts';
import { toMembership } from './users.ts';

const revokedKey = revokedJwtKey;

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
  const [member, revoked] = await batchGetConsistent([
    membershipKey(claims.accountId, claims.userId),
    revokedKey(claims.jti),
  ]);
  return member && !revoked ? toMembership(member) : undefined;
}
