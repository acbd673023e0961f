/**
 * The outbox: events are items written in the transaction of the state change that causes
 * them (`ACCOUNT#<id>#<mode>#<k>` / `EVENT#<time>#<evtId>`). The table stream carries each new one
 * to the fan-out (`functions/outbox`).
 */

import type { OutboxEvent } from '../domain/events.ts';
import { streamItemTypes } from '../resources.ts';
import type { TransactItem } from './client.ts';
import { tableName } from './client.ts';
import { eventKey, type MerchantScope } from './keys.ts';
import { sentBody, storedBody } from './stored-body.ts';

export function outboxItems(scope: MerchantScope, events: OutboxEvent[]): TransactItem[] {
  return events.map((event) => ({
    Put: {
      TableName: tableName(),
      Item: {
        ...eventKey(scope, event.createdAt, event.id),
        type: streamItemTypes.event,
        id: event.id,
        eventType: event.type,
        family: event.family,
        chargeId: event.chargeId,
        accountId: scope.accountId,
        mode: scope.mode,
        createdAt: event.createdAt,
        recordedAt: event.recordedAt,
        ...(event.webhookUrl !== undefined && { webhookUrl: event.webhookUrl }),
        // The event as the exact JSON every delivery sends (stored once, as JSON: a map's key
        // order is not kept by DynamoDB), compactly: `body` and `qrAt` (stored-body.ts).
        ...storedBody(event.payload),
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  }));
}

/** The exact JSON body of an outbox event item, as its deliveries send it. */
export const eventBody = (item: Record<string, unknown>): Promise<string> => sentBody(item);
