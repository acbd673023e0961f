/** Charge helpers for the integration tests: every call goes over HTTP like a merchant's. */

import { randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Mode } from '../../shared/domain/scope.ts';
import { db, tableName } from '../../shared/store/client.ts';
import { eventBody } from '../../shared/store/events.ts';
import { chargeKey, PREFIX } from '../../shared/store/keys.ts';
import { newAccount, newKey } from './accounts.ts';
import { type ApiReply, api } from './http.ts';
import { scopeItems } from './scope-items.ts';

export const newIdempotencyKey = () => `idem-${randomUUID()}`;

export function createCharge(
  apikey: string,
  body: unknown = { amount: 1050, payment_method: 'pix' },
  idempotencyKey = newIdempotencyKey(),
  headers: Record<string, string> = {},
): Promise<ApiReply> {
  return api('/v1/charges', { apikey, body, headers: { 'idempotency-key': idempotencyKey, ...headers } });
}

/** A charge that must be created (throws otherwise). */
export async function newCharge(apikey: string, body: Record<string, unknown> = {}): Promise<any> {
  const reply = await createCharge(apikey, { amount: 1050, payment_method: 'pix', ...body });
  if (reply.status !== 201) throw new Error(`create failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body;
}

/** A charge only the payer with CPF 529.982.247-25 may pay (payer lock): another payer's Pix is returned. */
export const payerLockedCharge = (apikey: string, amount = 2000) =>
  newCharge(apikey, { amount, customer: { name: 'Maria' }, expected_payer_tax_id: '52998224725' });

export const pay = (apikey: string, chargeId: string, body: Record<string, unknown> = {}) =>
  api(`/v1/sandbox/charges/${chargeId}/pay`, { apikey, body });

export const expire = (apikey: string, chargeId: string) =>
  api(`/v1/sandbox/charges/${chargeId}/expire`, { apikey, method: 'POST' });

export const getCharge = (apikey: string, chargeId: string) => api(`/v1/charges/${chargeId}`, { apikey });

export const balance = async (apikey: string) => (await api('/v1/wallets/balance', { apikey })).body;

/** A fresh account (optionally with settings) and a test key for it. */
export async function merchant(settings: Parameters<typeof newAccount>[0] = {}) {
  const account = await newAccount(settings);
  return { accountId: account.id, apikey: await newKey(account.id, 'test') };
}

/** Stored outbox events of a charge (raw id), oldest first, with their body as sent parsed as `payload`. */
export async function storedEvents(accountId: string, rawId: string, mode: Mode = 'test') {
  const Items = await scopeItems({ accountId, mode }, PREFIX.event, {
    expression: 'chargeId = :id',
    values: { ':id': rawId },
  });
  return Promise.all(
    Items.map(
      async (item): Promise<Record<string, any>> => ({ ...item, payload: JSON.parse(await eventBody(item)) }),
    ),
  );
}

export async function storedCharge(accountId: string, rawId: string, mode: Mode = 'test') {
  const { Item } = await db.send(
    new GetCommand({
      TableName: tableName(),
      Key: chargeKey({ accountId, mode }, rawId),
      ConsistentRead: true,
    }),
  );
  return Item;
}

export const rawId = (chargeId: string) => chargeId.replace(/^ch_/, '');

/** Changes a stored charge where no route can yet (a MED case opening, a window closed but not recorded). */
export const setStoredCharge = (accountId: string, rawId: string, values: Record<string, unknown>) =>
  db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: chargeKey({ accountId, mode: 'test' }, rawId),
      UpdateExpression: `SET ${Object.keys(values)
        .map((_, n) => `#f${n} = :v${n}`)
        .join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(Object.keys(values).map((k, n) => [`#f${n}`, k])),
      ExpressionAttributeValues: Object.fromEntries(Object.values(values).map((v, n) => [`:v${n}`, v])),
    }),
  );
