/**
 * Webhook deliveries: one per (event, destination), `ACCOUNT#<id>#<mode>#<k>` /
 * `DELIVERY#<eventTime>#<deliveryId>`, the id derived from event id + destination (endpoint id,
 * or a payment's `webhookUrl` override) and the item put conditionally, so a stream record
 * processed twice creates one delivery. GSI1 `WHDELIV#<endpointId>` finds an endpoint's
 * deliveries; GSI2 and GSI3 put each delivery in its (status, event type) and (status, event
 * type, endpoint) cells, and counter items count every cell (keys in keys.ts, docs/data-model.md).
 *
 * A creation is one conditional `PutItem` and a status change one conditional `UpdateItem` (its
 * cell keys move with the status in the same write). The counters are not written here: the
 * table's stream carries every delivery change to the outbox, which counts it
 * (`shared/services/count-delivery-changes.ts`, with the items built below).
 *
 * A delivery does not copy its event's body (about 12 KB for a charge event, which carries the
 * QR image): it names the outbox event item (`eventSk`, in the same partition), which keeps the
 * exact JSON every attempt sends. Deliveries written before that change carry the body
 * themselves (`body`).
 */

import {
  BatchWriteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import {
  type CountDelta,
  type CounterCell,
  type CountItem,
  type Delivery,
  type DeliverySource,
  type DeliveryStatus,
  type DeliveryTarget,
  deliveryStatuses,
} from '../domain/webhook-deliveries.ts';
import { streamItemTypes } from '../resources.ts';
import {
  batchGetConsistent,
  counterUpdate,
  db,
  type ItemKey,
  isConditionFailure,
  queryAll,
  recordOf,
  type TransactItem,
  tableName,
} from './client.ts';
import { eventBody } from './events.ts';
import {
  deliveryCellIndexes,
  deliveryCellIndexPk,
  deliveryCountKey,
  deliveryCountPrefix,
  deliveryKey,
  endpointDeliveriesIndex,
  endpointDeliveriesIndexPk,
  endpointDeliveryCellIndexPk,
  eventKeyOfSk,
  type MerchantScope,
  PREFIX,
  parseDeliverySk,
  parseScope,
  prefixEnd,
  scopePartitionPk,
  scopePk,
} from './keys.ts';

export type { Delivery } from '../domain/webhook-deliveries.ts';

/** The delivery item's key. */
export interface DeliveryRef {
  pk: string;
  sk: string;
}

/**
 * A message on the delivery queue: the delivery's key, and the sort key of its event item and
 * the id of its endpoint (both in the delivery's partition), so the dispatcher reads the three
 * items in one `BatchGetItem`. Messages sent before these were added carry only `pk` and `sk`
 * (a queue may still hold some): the dispatcher then reads the delivery first.
 */
export interface DeliveryMessage extends DeliveryRef {
  eventSk?: string;
  endpointId?: string;
  /** A delivery to a payment's `webhookUrl`: signed with the account's override secret. */
  override?: true;
}

const destinationFields = (target: DeliveryTarget) =>
  'endpointId' in target ? { endpointId: target.endpointId } : { override: true as const };

/** A delivery as stored, with what the public record leaves out. */
export type StoredDelivery = Delivery & {
  accountId: string;
  mode: 'live' | 'test';
  /** The sort key of its outbox event item (absent on deliveries that kept `body`). */
  eventSk?: string;
  /** The raw JSON body, only on deliveries written before `eventSk`. */
  body?: string;
};

/**
 * The outbox event item a delivery sends, or `undefined` for a delivery that kept its body: in
 * the delivery's scope, in the partition of the event's own id (not the delivery's).
 */
export const eventKeyOf = (delivery: { pk: string; eventSk?: string }): ItemKey | undefined =>
  delivery.eventSk === undefined ? undefined : eventKeyOfSk(parseScope(delivery.pk), delivery.eventSk);

/** The queue message of a delivery item (`pk`, `sk`, `eventSk`, and `endpointId` or `override`). */
export const deliveryMessage = (item: Record<string, unknown>): DeliveryMessage => ({
  pk: String(item.pk),
  sk: String(item.sk),
  ...(item.eventSk !== undefined && {
    eventSk: String(item.eventSk),
    ...destinationFields(
      item.url === undefined ? { endpointId: String(item.endpointId) } : { url: String(item.url) },
    ),
  }),
});

/** Only the key: a `DeliveryMessage` carries more. */
const keyOf = ({ pk, sk }: DeliveryRef): DeliveryRef => ({ pk, sk });

/** Kept on the item for the pipeline, not part of the public delivery record. */
const PIPELINE_ATTRIBUTES = ['accountId', 'mode', 'enqueuedAt', 'eventSk', 'body'];
const toDelivery = (item: Record<string, unknown>): Delivery => recordOf<Delivery>(item, PIPELINE_ATTRIBUTES);

/** A stored delivery item as the dispatcher uses it. */
export const toStoredDelivery = (item: Record<string, unknown>): StoredDelivery => ({
  ...toDelivery(item),
  accountId: String(item.accountId),
  mode: item.mode as 'live' | 'test',
  ...(item.eventSk !== undefined && { eventSk: String(item.eventSk) }),
  ...(item.body !== undefined && { body: String(item.body) }),
});

// ── Counters ──────────────────────────────────────────────────────────────────────────────────

/** `ADD` of `delta` to one counter item (created on first use, with the cell it counts). */
export const counterAddItem = (cell: CounterCell, delta: CountDelta): TransactItem =>
  counterUpdate(
    deliveryCountKey(cell.scope, cell, cell.shard),
    {
      type: 'webhookDeliveryCount',
      eventType: cell.eventType,
      ...(cell.endpointId !== undefined && { endpointId: cell.endpointId }),
    },
    delta,
  );

/** The counter items a read needs: one endpoint's, or every event type's (all shards). */
export async function readDeliveryCounts(
  scope: MerchantScope,
  which: { endpointId?: string },
): Promise<CountItem[]> {
  const prefix =
    which.endpointId === undefined
      ? deliveryCountPrefix.byEventType
      : deliveryCountPrefix.ofEndpoint(which.endpointId);
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': scopePk(scope), ':from': prefix, ':to': prefixEnd(prefix) },
    ConsistentRead: true,
  });
  return items.map((item) => ({
    eventType: String(item.eventType),
    endpointId: item.endpointId === undefined ? null : String(item.endpointId),
    counts: Object.fromEntries(
      (['total', ...deliveryStatuses] as const).map((name) => [name, Number(item[name] ?? 0)]),
    ),
  }));
}

// ── Writes ────────────────────────────────────────────────────────────────────────────────────

function deliveryItem(scope: MerchantScope, delivery: Delivery, event: { createdAt: string; sk: string }) {
  return {
    ...deliveryKey(scope, event.createdAt, delivery.id),
    type: streamItemTypes.webhookDelivery,
    accountId: scope.accountId,
    mode: scope.mode,
    ...(delivery.endpointId !== null &&
      endpointDeliveriesIndex(delivery.endpointId, event.createdAt, delivery.id)),
    ...deliveryCellIndexes(scope, cellOf(delivery, delivery.status), event.createdAt, delivery.id),
    eventSk: event.sk,
    ...delivery,
  };
}

const cellOf = (delivery: Pick<Delivery, 'eventType' | 'endpointId'>, status: DeliveryStatus) => ({
  status,
  eventType: delivery.eventType,
  ...(delivery.endpointId !== null && { endpointId: delivery.endpointId }),
});

/**
 * Puts the delivery unless it exists: then nothing is written (a stream record processed again).
 * Returns its queue message and whether it still needs enqueuing (always for a new one; for an
 * existing one, if the first run never marked it enqueued).
 */
export async function createDelivery(
  scope: MerchantScope,
  delivery: Delivery,
  event: { createdAt: string; sk: string },
): Promise<{ message: DeliveryMessage; id: string; needsEnqueue: boolean }> {
  const item = deliveryItem(scope, delivery, event);
  const ref = { pk: item.pk, sk: item.sk };
  const message: DeliveryMessage = {
    ...ref,
    eventSk: event.sk,
    ...destinationFields(
      delivery.endpointId === null ? { url: String(delivery.url) } : { endpointId: delivery.endpointId },
    ),
  };
  try {
    await db.send(
      new PutCommand({ TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
    );
    return { message, id: delivery.id, needsEnqueue: true };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  const existing = await db.send(new GetCommand({ TableName: tableName(), Key: ref, ConsistentRead: true }));
  return { message, id: delivery.id, needsEnqueue: existing.Item?.enqueuedAt === undefined };
}

export async function markEnqueued(ref: DeliveryRef, now: Date): Promise<void> {
  await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keyOf(ref),
      UpdateExpression: 'SET enqueuedAt = if_not_exists(enqueuedAt, :now)',
      ExpressionAttributeValues: { ':now': now.toISOString() },
    }),
  );
}

export async function getDelivery(ref: DeliveryRef): Promise<StoredDelivery | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName(), Key: keyOf(ref), ConsistentRead: true }),
  );
  return Item && toStoredDelivery(Item);
}

/** The fields a change may write: a fixed list, never whatever a caller passed. */
const CHANGEABLE = [
  'status',
  'attempts',
  'cycleAttempts',
  'lastStatusCode',
  'lastError',
  'lastResponseBody',
  'nextRetryAt',
  'deliveredAt',
  'redriveCount',
] as const;

/**
 * Applies `fields` to the delivery if its status is one of `from` (one conditional `UpdateItem`);
 * its cell index keys follow the new status. `false` when its status is none of `from` (nothing
 * written). The stream counts the change.
 */
export async function changeDelivery(
  ref: DeliveryRef,
  delivery: Pick<Delivery, 'id' | 'eventType' | 'endpointId'>,
  from: readonly DeliveryStatus[],
  fields: Partial<Delivery> & { status: DeliveryStatus },
  now: Date,
  guard: {
    /** Also from PROCESSING when its mark (`updatedAt`) is older than this: an attempt whose lease lapsed. */
    processingMarkedBefore?: string;
    /** Only if the delivery is still as read (its `updatedAt`). */
    unchangedSince?: string;
  } = {},
): Promise<boolean> {
  const { processingMarkedBefore, unchangedSince } = guard;
  const scope = parseScope(ref.pk);
  const { eventCreatedAt } = parseDeliverySk(ref.sk);
  const names: Record<string, string> = { '#status': 'status', '#updatedAt': 'updatedAt' };
  const values: Record<string, unknown> = { ':now': now.toISOString() };
  const sets = ['#updatedAt = :now'];
  for (const field of CHANGEABLE) {
    if (!(field in fields)) continue;
    names[`#${field}`] = field;
    values[`:${field}`] = fields[field];
    sets.push(`#${field} = :${field}`);
  }
  const indexes = deliveryCellIndexes(scope, cellOf(delivery, fields.status), eventCreatedAt, delivery.id);
  for (const [name, value] of Object.entries(indexes)) {
    values[`:${name}`] = value;
    sets.push(`${name} = :${name}`);
  }
  from.forEach((status, n) => {
    values[`:from${n}`] = status;
  });
  let condition = `#status IN (${from.map((_, n) => `:from${n}`).join(', ')})`;
  if (processingMarkedBefore !== undefined) {
    values[':processing'] = 'PROCESSING';
    values[':markedBefore'] = processingMarkedBefore;
    condition += ' OR (#status = :processing AND #updatedAt < :markedBefore)';
  }
  if (unchangedSince !== undefined) {
    values[':readAt'] = unchangedSince;
    condition = `(${condition}) AND #updatedAt = :readAt`;
  }
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keyOf(ref),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: condition,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * Seeding only (the benchmark, tests): writes new deliveries with `BatchWriteItem` (25 a call,
 * unconditional, so the ids must be new); the stream counts them as it counts the pipeline's.
 * Not for deliveries the pipeline may be writing at the same time.
 */
export async function putNewDeliveries(
  scope: MerchantScope,
  rows: readonly { delivery: Delivery; event: { createdAt: string; sk: string } }[],
): Promise<void> {
  const items = rows.map(({ delivery, event }) => deliveryItem(scope, delivery, event));
  const batches = Array.from({ length: Math.ceil(items.length / 25) }, (_, n) =>
    items.slice(n * 25, n * 25 + 25),
  );
  await Promise.all(
    batches.map(async (batch) => {
      let pending: Record<string, unknown>[] = batch.map((Item) => ({ PutRequest: { Item } }));
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > 10) throw new Error('BatchWriteItem left items unprocessed');
        const { UnprocessedItems } = await db.send(
          new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }),
        );
        pending = (UnprocessedItems?.[tableName()] as Record<string, unknown>[] | undefined) ?? [];
      }
    }),
  );
}

// ── Reads ─────────────────────────────────────────────────────────────────────────────────────

/** An endpoint's deliveries in `status` (GSI1). */
export async function endpointDeliveriesIn(
  endpointId: string,
  status: DeliveryStatus,
): Promise<(StoredDelivery & DeliveryRef)[]> {
  const items = await queryAll({
    TableName: tableName(),
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    FilterExpression: '#status = :status',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':pk': endpointDeliveriesIndexPk(endpointId), ':status': status },
  });
  return items.map((item) => ({ ...toStoredDelivery(item), pk: String(item.pk), sk: String(item.sk) }));
}

/** One page of a partition of the scope's deliveries, newest first; `next` continues it. */
export async function readDeliveryPage(
  scope: MerchantScope,
  source: DeliverySource,
  limit: number,
  next?: Record<string, unknown>,
): Promise<{ items: Record<string, unknown>[]; next?: Record<string, unknown> }> {
  const query = (() => {
    switch (source.kind) {
      case 'scope':
        // BETWEEN, not begins_with: see `prefixEnd` (DynamoDB Local would scan the event items too).
        return {
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: {
            ':pk': scopePartitionPk(scope, source.partition),
            ':from': PREFIX.delivery,
            ':to': prefixEnd(PREFIX.delivery),
          },
        };
      case 'endpoint':
        return {
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :pk',
          ExpressionAttributeValues: { ':pk': endpointDeliveriesIndexPk(source.endpointId) },
        };
      case 'cell':
        return source.endpointId === undefined
          ? {
              IndexName: 'gsi2',
              KeyConditionExpression: 'gsi2pk = :pk',
              ExpressionAttributeValues: { ':pk': deliveryCellIndexPk(scope, source) },
            }
          : {
              IndexName: 'gsi3',
              KeyConditionExpression: 'gsi3pk = :pk',
              ExpressionAttributeValues: {
                ':pk': endpointDeliveryCellIndexPk(scope, { ...source, endpointId: source.endpointId }),
              },
            };
    }
  })();
  const page = await db.send(
    new QueryCommand({
      TableName: tableName(),
      ...query,
      ScanIndexForward: false,
      Limit: limit,
      ...(next && { ExclusiveStartKey: next }),
    }),
  );
  const items = page.Items ?? [];
  // An endpoint id is another scope's: its partition holds only that scope's deliveries.
  if (items[0] !== undefined && scopePk(parseScope(String(items[0].pk))) !== scopePk(scope))
    return { items: [] };
  return { items, ...(page.LastEvaluatedKey && { next: page.LastEvaluatedKey }) };
}

/**
 * The deliveries of `items` (one merchant scope's), each with the body of the event it sent, read
 * from their event items in one `BatchGetItem` (a page holds at most 100 deliveries, the batch
 * limit; older deliveries keep their body).
 */
export async function readDeliveriesWithBodies(
  items: Record<string, unknown>[],
): Promise<{ delivery: Delivery; body: string | undefined }[]> {
  const eventSks = [
    ...new Set(items.flatMap((item) => (item.eventSk === undefined ? [] : [String(item.eventSk)]))),
  ];
  const pk = String(items[0]?.pk);
  const events =
    eventSks.length === 0
      ? []
      : await batchGetConsistent(eventSks.map((sk) => eventKeyOfSk(parseScope(pk), sk)));
  const bodies = new Map(
    await Promise.all(
      eventSks.map(async (sk, n) => {
        const event = events[n];
        return [sk, event && (await eventBody(event))] as const;
      }),
    ),
  );
  return items.map((item) => {
    const body = item.body ?? bodies.get(String(item.eventSk));
    return { delivery: toDelivery(item), body: typeof body === 'string' ? body : undefined };
  });
}
