/**
 * The SQS emulator keeps messages in memory, so a restart would forget deliveries waiting for
 * their next attempt. On start, every delivery still PENDING or PROCESSING goes back on the
 * queue (the dispatcher ignores any that finished meanwhile).
 */

import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../shared/store/client.ts';
import { type DeliveryMessage, deliveryMessage } from '../../shared/store/webhook-deliveries.ts';
import { enqueueDeliveries } from '../../shared/webhooks/queue.ts';

export async function requeueWaitingDeliveries(): Promise<number> {
  const messages: DeliveryMessage[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: '#type = :delivery AND #status IN (:pending, :processing)',
        // What `deliveryMessage` needs: `url` tells an override delivery from an endpoint's.
        ProjectionExpression: 'pk, sk, eventSk, endpointId, #url',
        ExpressionAttributeNames: { '#type': 'type', '#status': 'status', '#url': 'url' },
        ExpressionAttributeValues: {
          ':delivery': 'webhookDelivery',
          ':pending': 'PENDING',
          ':processing': 'PROCESSING',
        },
        ExclusiveStartKey,
      }),
    );
    messages.push(...(page.Items ?? []).map(deliveryMessage));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  if (messages.length > 0) await enqueueDeliveries(messages);
  return messages.length;
}
