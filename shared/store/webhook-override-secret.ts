/**
 * The secret that signs deliveries to a payment's `webhookUrl` override, one per merchant scope
 * (`ACCOUNT#<id>#<mode>` / `WEBHOOKOVERRIDE#SECRET`). An override URL belongs to no endpoint, so
 * it cannot use an endpoint's secret; the merchant creates (and rotates) this one with
 * `POST /v1/webhooks/override-secret/rotate`. Stored readable, like endpoint secrets, to sign.
 */

import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';
import { type MerchantScope, overrideSecretKey } from './keys.ts';

export async function getOverrideSecret(scope: MerchantScope): Promise<string | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName(), Key: overrideSecretKey(scope), ConsistentRead: true }),
  );
  return Item === undefined ? undefined : String(Item.secret);
}

/** Creates the secret or replaces it. */
export async function putOverrideSecret(scope: MerchantScope, secret: string, at: Date): Promise<void> {
  const now = at.toISOString();
  await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: overrideSecretKey(scope),
      UpdateExpression:
        'SET #type = :type, secret = :secret, updatedAt = :now, createdAt = if_not_exists(createdAt, :now)',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: { ':type': 'webhookOverrideSecret', ':secret': secret, ':now': now },
    }),
  );
}
