/**
 * Webhook endpoints of a merchant scope (`ACCOUNT#<id>#<mode>` / `WEBHOOKEP#<id>`): test keys
 * register endpoints for test events, live keys for live ones. The signing secret must be
 * readable to sign, so it is stored as is (only in this item) and never returned after
 * register/rotate. Beside them, one count item (`COUNTER#WEBHOOK_ENDPOINTS`) that every put and
 * delete of an endpoint moves in its transaction, for the cap on endpoints.
 */

import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { EndpointStatus, WebhookEndpoint } from '../domain/webhook-endpoints.ts';
import { counterChange, db, isConditionFailure, queryAll, type TransactItem, tableName } from './client.ts';
import { type MerchantScope, PREFIX, scopePk, webhookEndpointCountKey, webhookEndpointKey } from './keys.ts';

export const toEndpoint = (item: Record<string, unknown>): WebhookEndpoint => ({
  id: String(item.id),
  url: String(item.url),
  events: item.events as string[],
  status: item.status as EndpointStatus,
  secret: String(item.secret),
  createdAt: String(item.createdAt),
  updatedAt: String(item.updatedAt),
});

/** Puts a new endpoint (only if its id is new). */
export const endpointPut = (scope: MerchantScope, endpoint: WebhookEndpoint): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: { ...webhookEndpointKey(scope, endpoint.id), type: 'webhookEndpoint', ...endpoint },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

/** Deletes an endpoint, only if it exists. */
export const endpointDelete = (scope: MerchantScope, id: string): TransactItem => ({
  Delete: {
    TableName: tableName(),
    Key: webhookEndpointKey(scope, id),
    ConditionExpression: 'attribute_exists(pk)',
  },
});

/**
 * Adds `delta` to the scope's endpoint count (an absent item counts 0); with `below`, only while
 * the count is below it.
 */
export function endpointCountChange(
  scope: MerchantScope,
  delta: 1 | -1,
  options: { below?: number } = {},
): TransactItem {
  return counterChange(webhookEndpointCountKey(scope), delta, options.below);
}

/** Newest first. */
export async function listEndpoints(scope: MerchantScope): Promise<WebhookEndpoint[]> {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': scopePk(scope), ':prefix': PREFIX.webhookEndpoint },
    ConsistentRead: true,
  });
  return items.map(toEndpoint).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

/** Applies only the named fields; `undefined` when the endpoint does not exist. */
export async function updateEndpoint(
  scope: MerchantScope,
  id: string,
  changes: { url?: string; events?: string[]; status?: EndpointStatus; secret?: string },
): Promise<WebhookEndpoint | undefined> {
  const sets: string[] = ['updatedAt = :now'];
  const values: Record<string, unknown> = { ':now': new Date().toISOString() };
  const names: Record<string, string> = {};
  // A fixed list of fields, never whatever the request sent.
  for (const field of ['url', 'events', 'status', 'secret'] as const) {
    if (changes[field] === undefined) continue;
    sets.push(`#${field} = :${field}`);
    names[`#${field}`] = field;
    values[`:${field}`] = changes[field];
  }
  try {
    const { Attributes } = await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: webhookEndpointKey(scope, id),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: 'attribute_exists(pk)',
        ...(Object.keys(names).length > 0 && { ExpressionAttributeNames: names }),
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes && toEndpoint(Attributes);
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}
