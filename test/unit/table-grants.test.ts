/**
 * The local runtime's table grant check (infra/local/table-grants.ts), which every integration
 * test runs under: it must refuse what IAM would refuse deployed, item by item for a transaction.
 */

import { describe, expect, it } from 'vitest';
import { refusal } from '../../infra/local/table-grants.ts';
import { newAccountId } from '../../shared/store/accounts.ts';

describe('local table grants', () => {
  it('lets a tier do exactly its actions', () => {
    expect(refusal('checkout', 'GetItemCommand', { Key: { pk: 'CHARGEREF#x' } })).toBeUndefined();
    expect(refusal('checkout', 'BatchGetItemCommand', {})).toMatch(/dynamodb:BatchGetItem/);
    expect(refusal('checkout', 'QueryCommand', {})).toMatch(/dynamodb:Query/);
    expect(
      refusal('webhook-dispatcher', 'UpdateItemCommand', { Key: { pk: 'ACCOUNT#a#test#3' } }),
    ).toBeUndefined();
    expect(refusal('webhook-dispatcher', 'PutItemCommand', { Item: { pk: 'ACCOUNT#a#test#3' } })).toMatch(
      /PutItem/,
    );
    expect(refusal('charges', 'DeleteItemCommand', { Key: { pk: 'ACCOUNT#a' } })).toMatch(/DeleteItem/);
    expect(refusal('api-keys', 'DeleteItemCommand', { Key: { pk: 'APIKEYHASH#h' } })).toBeUndefined();
    expect(refusal('docs', 'GetItemCommand', {})).toMatch(/GetItem/);
  });

  it('allows an index only to a tier with indexes', () => {
    expect(refusal('wallets', 'QueryCommand', { IndexName: 'gsi2' })).toBeUndefined();
    expect(refusal('webhook-dispatcher', 'QueryCommand', { IndexName: 'gsi1' })).toMatch(/index\/gsi1/);
  });

  it('authorises a transaction item by item', () => {
    const items = (kind: string) => ({
      TransactItems: [{ Update: { Key: { pk: 'A' } } }, { [kind]: { Key: { pk: 'B' } } }],
    });
    expect(refusal('payments', 'TransactWriteItemsCommand', items('Put'))).toBeUndefined();
    expect(refusal('payments', 'TransactWriteItemsCommand', items('Delete'))).toMatch(/DeleteItem/);
    expect(refusal('payments', 'TransactWriteItemsCommand', items('ConditionCheck'))).toMatch(
      /ConditionCheckItem/,
    );
  });

  it('lets a read-only counter writer update its rate-limit counters and nothing else', () => {
    expect(refusal('wallets', 'UpdateItemCommand', { Key: { pk: 'RATE#k#1' } })).toBeUndefined();
    expect(refusal('wallets', 'UpdateItemCommand', { Key: { pk: { S: 'RATE#k#1' } } })).toBeUndefined();
    expect(refusal('wallets', 'UpdateItemCommand', { Key: { pk: 'ACCOUNT#a' } })).toMatch(/UpdateItem/);
    expect(refusal('wallets', 'PutItemCommand', { Item: { pk: 'RATE#k#1' } })).toMatch(/PutItem/);
    expect(refusal('checkout', 'UpdateItemCommand', { Key: { pk: 'RATE#k#1' } })).toMatch(/UpdateItem/);
  });

  it('lets the public auth function write login counters, logged-out tokens and password hashes, nothing a merchant owns', () => {
    expect(refusal('auth', 'UpdateItemCommand', { Key: { pk: 'LOGINATTEMPTS#h' } })).toBeUndefined();
    expect(refusal('auth', 'PutItemCommand', { Item: { pk: 'LOGINATTEMPTS#h' } })).toBeUndefined();
    expect(refusal('auth', 'PutItemCommand', { Item: { pk: 'REVOKEDJWT#j' } })).toBeUndefined();
    expect(refusal('auth', 'QueryCommand', { IndexName: 'gsi1' })).toBeUndefined();
    expect(refusal('auth', 'PutItemCommand', { Item: { pk: 'ACCOUNT#a' } })).toMatch(/PutItem/);
    // A user's password hash is upgraded at login; no user is created.
    expect(refusal('auth', 'UpdateItemCommand', { Key: { pk: 'EMAIL#e' } })).toBeUndefined();
    expect(refusal('auth', 'PutItemCommand', { Item: { pk: 'EMAIL#e' } })).toMatch(/PutItem/);
    expect(refusal('auth', 'UpdateItemCommand', { Key: { pk: 'LOGINATTEMPTS#h' } })).toBeUndefined();
    expect(refusal('auth', 'DeleteItemCommand', { Key: { pk: 'LOGINATTEMPTS#h' } })).toMatch(/DeleteItem/);
  });

  describe('keeps the public functions and the dispatcher to the partition keys they need (IAM LeadingKeys)', () => {
    const account = `ACCOUNT#${newAccountId()}`;
    const get = (name: Parameters<typeof refusal>[0], pk: string) =>
      refusal(name, 'GetItemCommand', { Key: { pk: { S: pk } } });

    it.each([
      ['checkout', 'CHARGEREF#c', true],
      ['checkout', account, true],
      ['checkout', `${account}#live#7`, true],
      ['checkout', `${account}#test`, false], // endpoints and their secrets, the override secret
      ['checkout', 'EMAIL#a@example.com', false],
      ['checkout', 'APIKEYHASH#h', false],
      ['checkout', `${account}x`, false],
      ['provider-callbacks', 'PROVIDERCALLBACK#t', true],
      ['provider-callbacks', account, false],
      ['webhook-dispatcher', `${account}#live`, true],
      ['webhook-dispatcher', `${account}#test#15`, true],
      ['webhook-dispatcher', account, false],
      ['webhook-dispatcher', 'EMAIL#a@example.com', false],
    ] as const)('%s reads %s: %s', (name, pk, allowed) => {
      expect(get(name, pk) === undefined).toBe(allowed);
    });

    it('updates only delivery-side items from the dispatcher, and checks every key of a batch', () => {
      expect(refusal('webhook-dispatcher', 'UpdateItemCommand', { Key: { pk: 'APIKEYHASH#h' } })).toMatch(
        /UpdateItem/,
      );
      const batch = (...pks: string[]) => ({ RequestItems: { t: { Keys: pks.map((pk) => ({ pk })) } } });
      expect(
        refusal('webhook-dispatcher', 'BatchGetItemCommand', batch(`${account}#test#1`, `${account}#test`)),
      ).toBeUndefined();
      expect(
        refusal('webhook-dispatcher', 'BatchGetItemCommand', batch(`${account}#test#1`, 'EMAIL#e')),
      ).toMatch(/BatchGetItem/);
    });
  });
});
