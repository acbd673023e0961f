/**
 * Webhook endpoints of a merchant scope (`ACCOUNT#<id>#<mode>` / `WEBHOOKEP#<id>`): test keys
 * register endpoints for test events, live keys for live ones. The signing secret must be
 * readable to sign, so it is stored as is (only in this item) and never returned after
 * register/rotate.
 */

import { randomBytes } from 'node:crypto';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionFailure, queryAll, tableName } from './client.ts';
import { type MerchantScope, PREFIX, scopePk, webhookEndpointKey } from './keys.ts';

export type EndpointStatus = 'ACTIVE' | 'INACTIVE';

export interface WebhookEndpoint {
  id: string;
  url: string;
  events: string[];
  status: EndpointStatus;
  secret: string;
  createdAt: string;
  updatedAt: string;
}

export const newWebhookSecret = (): string => randomBytes(32).toString('hex');

export const toEndpoint = (item: Record<string, unknown>): WebhookEndpoint => ({
  id: String(item.id),
  url: String(item.url),
  events: item.events as string[],
  status: item.status as EndpointStatus,
  secret: String(item.secret),
  createdAt: String(item.createdAt),
  updatedAt: String(item.updatedAt),
});

export async function createEndpoint(
  scope: MerchantScope,
  input: { url: string; events: string[] },
): Promise<WebhookEndpoint> {
  const now = new Date().toISOString();
  const endpoint: WebhookEndpoint = {
    id: `we_${randomBytes(12).toString('hex')}`,
    url: input.url,
    events: input.events,
    status: 'ACTIVE',
    secret: newWebhookSecret(),
    createdAt: now,
    updatedAt: now,
  };
  await db.send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...webhookEndpointKey(scope, endpoint.id), type: 'webhookEndpoint', ...endpoint },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return endpoint;
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

/** `false` when the endpoint does not exist. */
export async function deleteEndpoint(scope: MerchantScope, id: string): Promise<boolean> {
  try {
    await db.send(
      new DeleteCommand({
        TableName: tableName(),
        Key: webhookEndpointKey(scope, id),
        ConditionExpression: 'attribute_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
