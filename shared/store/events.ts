/**
 * The outbox: the events of one state change are one item written in that change's transaction
 * (`ACCOUNT#<id>#<mode>#<k>` / `EVENT#<time>#<first evtId>`), holding each event's id, type and
 * family and their bodies compressed together (a pay's three events cost one item, not three:
 * docs/data-model.md, "Outbox items"). The table stream carries each new item to the fan-out
 * (`functions/outbox`), which makes its deliveries event by event.
 */

import type { OutboxEvent } from '../domain/events.ts';
import { streamItemTypes } from '../resources.ts';
import type { TransactItem } from './client.ts';
import { tableName } from './client.ts';
import { eventKey, type MerchantScope } from './keys.ts';
import { sentBody, sentBodyAt, storedBodies } from './stored-body.ts';

/** An event as its outbox item lists it (its body is beside, at the same index). */
export interface StoredEventRef {
  id: string;
  eventType: OutboxEvent['type'];
  family: OutboxEvent['family'];
  /** A payment's per-transaction destination (legacy events only). */
  webhookUrl?: string;
}

/** The one outbox item of `events` (all of one state change: one charge, one time), or none. */
export function outboxItems(scope: MerchantScope, events: readonly OutboxEvent[]): TransactItem[] {
  const [first] = events;
  if (first === undefined) return [];
  const refs = events.map(
    (event): StoredEventRef => ({
      id: event.id,
      eventType: event.type,
      family: event.family,
      ...(event.webhookUrl !== undefined && { webhookUrl: event.webhookUrl }),
    }),
  );
  return [
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...eventKey(scope, first.createdAt, first.id),
          type: streamItemTypes.event,
          events: refs,
          chargeId: first.chargeId,
          accountId: scope.accountId,
          mode: scope.mode,
          createdAt: first.createdAt,
          // Each event as the exact JSON every delivery sends (stored as JSON: a map's key order
          // is not kept by DynamoDB), compactly: `bodies` and `qrAts` (stored-body.ts).
          ...storedBodies(events.map((event) => event.payload)),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
}

/**
 * The exact JSON body of event `eventId` of an outbox item, as its deliveries send it
 * (`undefined` when the item does not hold it). An item of one event with its own `body` was
 * written before items held several.
 */
export function eventBody(item: Record<string, unknown>, eventId: string): Promise<string | undefined> {
  if (item.bodies === undefined) return sentBody(item);
  const index = (item.events as StoredEventRef[]).findIndex((event) => event.id === eventId);
  return index === -1 ? Promise.resolve(undefined) : sentBodyAt(item, index);
}
