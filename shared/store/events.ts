/**
 * The outbox: events are items written in the transaction of the state change that causes
 * them (`ACCOUNT#<id>#<mode>` / `EVENT#<time>#<evtId>`). The table stream carries each new one
 * to the fan-out; until then they are readable here.
 */

import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { OutboxEvent } from '../domain/events.ts';
import { db, tableName } from './client.ts';
import { type MerchantScope, scopePk } from './keys.ts';
import type { TransactItem } from './ledger.ts';

export function outboxItems(scope: MerchantScope, events: OutboxEvent[]): TransactItem[] {
  return events.map((event) => ({
    Put: {
      TableName: tableName(),
      Item: {
        pk: scopePk(scope),
        sk: `EVENT#${event.createdAt}#${event.id}`,
        type: 'event',
        id: event.id,
        eventType: event.type,
        family: event.family,
        chargeId: event.chargeId,
        accountId: scope.accountId,
        mode: scope.mode,
        createdAt: event.createdAt,
        payload: event.payload,
        // The exact bytes every delivery sends (a map's key order is not kept by DynamoDB).
        body: JSON.stringify(event.payload),
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  }));
}

/** Events of a charge, oldest first. */
export async function listChargeEvents(scope: MerchantScope, chargeId: string): Promise<OutboxEvent[]> {
  const events: OutboxEvent[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        FilterExpression: 'chargeId = :charge',
        ExpressionAttributeValues: { ':pk': scopePk(scope), ':prefix': 'EVENT#', ':charge': chargeId },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    for (const item of page.Items ?? []) {
      events.push({
        id: item.id,
        family: item.family,
        type: item.eventType,
        chargeId: item.chargeId,
        createdAt: item.createdAt,
        payload: item.payload,
      });
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return events;
}
