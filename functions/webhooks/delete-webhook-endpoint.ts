import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { db, tableName } from '#shared/store/client.ts';
import { cancelPendingDeliveries } from '#shared/store/webhook-deliveries.ts';
import { endpointKey } from '#shared/store/webhook-endpoints.ts';
import { endpointNotFound } from './endpoint-shapes.ts';

/** DELETE /v1/webhooks/endpoints/{id}: its pending deliveries become CANCELLED. */
export const deleteWebhookEndpoint: RouteHandler<KeyPrincipal> = async ({ principal, pathParameters }) => {
  const id = pathParameters.id ?? '';
  try {
    await db.send(
      new DeleteCommand({
        TableName: tableName(),
        Key: endpointKey(principal, id),
        ConditionExpression: 'attribute_exists(pk)',
      }),
    );
  } catch (error) {
    if (error instanceof Error && error.name === 'ConditionalCheckFailedException') throw endpointNotFound();
    throw error;
  }
  await cancelPendingDeliveries(id);
  return { status: 200, body: { deleted: true } };
};
