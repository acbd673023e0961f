/**
 * Per-key fixed one-minute windows: one counter item per key per minute
 * (`RATE#<keyId>#<minute>`), incremented atomically and deleted by TTL. The `RATE#` prefix is
 * what lets read-only functions write counters and nothing else (IAM `dynamodb:LeadingKeys`).
 */

import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';
import { rateWindowKey } from './keys.ts';

export interface RateWindow {
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
