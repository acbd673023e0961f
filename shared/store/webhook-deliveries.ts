/**
 * Webhook deliveries: one per (event, destination), `ACCOUNT#<id>#<mode>` /
 * `DELIVERY#<eventTime>#<deliveryId>`, the id derived from event id + destination (endpoint id,
 * or a payment's `webhookUrl` override) and the item put conditionally, so a stream record
 * processed twice creates one delivery. GSI1 `WHDELIV#<endpointId>` finds an endpoint's
 * deliveries (to cancel them when it is deleted); override deliveries have no endpoint.
 *
 * A delivery does not copy its event's body (about 12 KB for a charge event, which carries the
 * QR image): it names the outbox event item (`eventSk`, in the same partition), which keeps the
 * exact JSON every attempt sends. Each status change then rewrites (and streams) a small item.
 * Deliveries written before that change carry the body themselves (`body`); both are read.
 */

import { createHash } from 'node:crypto';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { MAX_ATTEMPTS } from '../domain/retry-schedule.ts';
import { batchGetConsistent, db, type ItemKey, isConditionFailure, queryAll, tableName } from './client.ts';
import { type MerchantScope, scopePk } from './keys.ts';

export type DeliveryStatus = 'PENDING' | 'PROCESSING' | 'DELIVERED' | 'FAILED' | 'CANCELLED';
export const deliveryStatuses: readonly DeliveryStatus[] = [
  'PENDING',
  'PROCESSING',
  'DELIVERED',
  'FAILED',
  'CANCELLED',
];

export interface Delivery {
  id: string;
  /** `null` for a delivery to a payment's `webhookUrl` override (then `url` says where). */
  endpointId: string | null;
  url?: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  maxAttempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  lastResponseBody: string | null;
  nextRetryAt: string | null;
  deliveredAt: string | null;
  createdAt: string;
  updatedAt: string;
  /** Times the delivery came back from the dead-letter queue. */
  redriveCount: number;
  /** Attempts since the last redrive: the 15th failure of a cycle marks the delivery FAILED. */
  cycleAttempts: number;
}

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

/** Where a delivery goes: a registered endpoint, or a payment's `webhookUrl` override. */
export type DeliveryTarget = { endpointId: string } | { url: string };

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

/** The outbox event item a delivery sends, or `undefined` for a delivery that kept its body. */
export const eventKeyOf = (delivery: { pk: string; eventSk?: string }): ItemKey | undefined =>
  delivery.eventSk === undefined ? undefined : { pk: delivery.pk, sk: delivery.eventSk };

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

/** Derived from the event and the destination, so a stream record processed twice creates one delivery. */
export const deliveryIdFor = (eventId: string, target: DeliveryTarget): string => {
  const destination = 'endpointId' in target ? target.endpointId : `url:${target.url}`;
  return `whd_${createHash('sha256').update(`${eventId}:${destination}`).digest('hex').slice(0, 24)}`;
};

const INTERNAL = new Set([
  'pk',
  'sk',
  'type',
  'gsi1pk',
  'gsi1sk',
  'accountId',
  'mode',
  'enqueuedAt',
  'eventSk',
  'body',
]);
const toDelivery = (item: Record<string, unknown>): Delivery =>
  Object.fromEntries(Object.entries(item).filter(([k]) => !INTERNAL.has(k))) as unknown as Delivery;

/** A stored delivery item as the dispatcher uses it. */
export const toStoredDelivery = (item: Record<string, unknown>): StoredDelivery => ({
  ...toDelivery(item),
  accountId: String(item.accountId),
  mode: item.mode as 'live' | 'test',
  ...(item.eventSk !== undefined && { eventSk: String(item.eventSk) }),
  ...(item.body !== undefined && { body: String(item.body) }),
});

/** Puts the delivery unless it exists; returns its queue message and whether it still needs enqueuing. */
export async function createDelivery(
  scope: MerchantScope,
  event: { id: string; type: string; createdAt: string; sk: string },
  target: DeliveryTarget,
): Promise<{ message: DeliveryMessage; id: string; needsEnqueue: boolean }> {
  const id = deliveryIdFor(event.id, target);
  const endpointId = 'endpointId' in target ? target.endpointId : null;
  const ref = { pk: scopePk(scope), sk: `DELIVERY#${event.createdAt}#${id}` };
  const message: DeliveryMessage = { ...ref, eventSk: event.sk, ...destinationFields(target) };
  const now = new Date().toISOString();
  const delivery: Delivery = {
    id,
    endpointId,
    ...('url' in target && { url: target.url }),
    eventId: event.id,
    eventType: event.type,
    status: 'PENDING',
    attempts: 0,
    maxAttempts: MAX_ATTEMPTS,
    lastStatusCode: null,
    lastError: null,
    lastResponseBody: null,
    nextRetryAt: null,
    deliveredAt: null,
    createdAt: now,
    updatedAt: now,
    redriveCount: 0,
    cycleAttempts: 0,
  };
  try {
    await db.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...ref,
          type: 'webhookDelivery',
          accountId: scope.accountId,
          mode: scope.mode,
          ...(endpointId !== null && {
            gsi1pk: `WHDELIV#${endpointId}`,
            gsi1sk: `${event.createdAt}#${id}`,
          }),
          eventSk: event.sk,
          ...delivery,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return { message, id, needsEnqueue: true };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    // Created by an earlier run of this record: enqueue again only if that run never did.
    const existing = await db.send(
      new GetCommand({ TableName: tableName(), Key: ref, ConsistentRead: true }),
    );
    return { message, id, needsEnqueue: existing.Item?.enqueuedAt === undefined };
  }
}

export async function markEnqueued(ref: DeliveryRef): Promise<void> {
  await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keyOf(ref),
      UpdateExpression: 'SET enqueuedAt = if_not_exists(enqueuedAt, :now)',
      ExpressionAttributeValues: { ':now': new Date().toISOString() },
    }),
  );
}

export async function getDelivery(ref: DeliveryRef): Promise<StoredDelivery | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName(), Key: keyOf(ref), ConsistentRead: true }),
  );
  return Item && toStoredDelivery(Item);
}

/** Applies a fixed set of fields after an attempt (or a state change), guarded by the statuses it may leave. */
export async function updateDelivery(
  ref: DeliveryRef,
  fields: Partial<Delivery>,
  from: DeliveryStatus[],
): Promise<boolean> {
  const entries = Object.entries(fields).filter(([k]) =>
    [
      'status',
      'attempts',
      'cycleAttempts',
      'lastStatusCode',
      'lastError',
      'lastResponseBody',
      'nextRetryAt',
      'deliveredAt',
      'redriveCount',
    ].includes(k),
  );
  const names: Record<string, string> = { '#status': 'status', '#updatedAt': 'updatedAt' };
  const values: Record<string, unknown> = { ':now': new Date().toISOString() };
  const sets = ['#updatedAt = :now'];
  for (const [k, v] of entries) {
    names[`#${k}`] = k;
    values[`:${k}`] = v;
    if (k !== 'status' && k !== 'updatedAt') sets.push(`#${k} = :${k}`);
  }
  if (fields.status) sets.push('#status = :status');
  from.forEach((status, i) => {
    values[`:from${i}`] = status;
  });
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keyOf(ref),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: `#status IN (${from.map((_, i) => `:from${i}`).join(', ')})`,
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

/** Deleting an endpoint abandons its pending deliveries (not yet attempted, or waiting to retry). */
export async function cancelPendingDeliveries(endpointId: string): Promise<number> {
  const pending = await queryAll({
    TableName: tableName(),
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    FilterExpression: '#status = :pending',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':pk': `WHDELIV#${endpointId}`, ':pending': 'PENDING' },
  });
  const cancelled = await Promise.all(
    pending.map((item) =>
      updateDelivery(
        { pk: String(item.pk), sk: String(item.sk) },
        { status: 'CANCELLED', nextRetryAt: null },
        ['PENDING'],
      ),
    ),
  );
  return cancelled.filter(Boolean).length;
}

export interface DeliveryFilters {
  status?: DeliveryStatus;
  eventType?: string;
  endpointId?: string;
}

/** All deliveries of a scope matching the filters, newest first (offset paging is over this list). */
export async function queryDeliveries(
  scope: MerchantScope,
  filters: DeliveryFilters,
  projection?: string,
): Promise<Record<string, unknown>[]> {
  const conditions: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':pk': scopePk(scope), ':prefix': 'DELIVERY#' };
  for (const [field, value] of Object.entries(filters)) {
    if (value === undefined) continue;
    conditions.push(`#${field} = :${field}`);
    names[`#${field}`] = field;
    values[`:${field}`] = value;
  }
  if (projection) for (const field of projection.split(',')) names[`#p_${field}`] = field;
  return queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ...(conditions.length > 0 && { FilterExpression: conditions.join(' AND ') }),
    ...(projection && {
      ProjectionExpression: projection
        .split(',')
        .map((f) => `#p_${f}`)
        .join(', '),
    }),
    ...(Object.keys(names).length > 0 && { ExpressionAttributeNames: names }),
    ExpressionAttributeValues: values,
    ScanIndexForward: false,
  });
}

/**
 * The public delivery records, with `payload`: the event as sent (its body parsed), read from
 * the deliveries' event items in one `BatchGetItem` (a page holds at most 100 deliveries, the
 * batch limit; older deliveries keep their body). All items are of one merchant scope.
 */
export async function serializeDeliveries(items: Record<string, unknown>[]) {
  const eventSks = [
    ...new Set(items.flatMap((item) => (item.eventSk === undefined ? [] : [String(item.eventSk)]))),
  ];
  const pk = String(items[0]?.pk);
  const events = eventSks.length === 0 ? [] : await batchGetConsistent(eventSks.map((sk) => ({ pk, sk })));
  const bodies = new Map(eventSks.map((sk, n) => [sk, events[n]?.body as string | undefined]));
  return items.map((item) => {
    const { cycleAttempts: _internal, ...delivery } = toDelivery(item);
    const body = item.body ?? bodies.get(String(item.eventSk));
    return { ...delivery, payload: typeof body === 'string' ? (JSON.parse(body) as unknown) : null };
  });
}
