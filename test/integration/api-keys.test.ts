import { createHash } from 'node:crypto';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { db, tableName } from '../../shared/store/client.ts';
import { accountPk, apiKeyHashKey } from '../../shared/store/keys.ts';
import { newMember, type TestMember } from '../helpers/accounts.ts';
import { api, expectError } from '../helpers/http.ts';

const KEY_FORMAT = /^ak_(live|test)_[A-Za-z0-9_-]{32}$/;
const wallet = (apikey: string) => api('/v1/wallets/balance', { apikey });

let owner: TestMember;
beforeAll(async () => {
  owner = await newMember('OWNER');
});

const issue = (member: TestMember, body: unknown = {}) => api('/v1/api-keys', { token: member.token, body });

describe('POST /v1/api-keys', () => {
  it('issues a live key by default with the spec shape, usable at once', async () => {
    const reply = await issue(owner, { label: 'checkout server' });
    expect(reply.status).toBe(201);
    expect(Object.keys(reply.body).sort()).toEqual([
      'apiKey',
      'createdAt',
      'fingerprint',
      'id',
      'label',
      'mode',
      'prefix',
    ]);
    expect(reply.body.apiKey).toMatch(/^ak_live_/);
    expect(reply.body.apiKey).toMatch(KEY_FORMAT);
    expect(Buffer.from(reply.body.apiKey.slice(8), 'base64url')).toHaveLength(24);
    expect(reply.body.prefix).toBe(reply.body.apiKey.slice(0, 12));
    expect(reply.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(reply.body).toMatchObject({ label: 'checkout server', mode: 'live' });
    expect((await wallet(reply.body.apiKey)).status).toBe(200);
  });

  it('issues a test key when test is true', async () => {
    const reply = await issue(owner, { test: true });
    expect(reply.status).toBe(201);
    expect(reply.body.apiKey).toMatch(/^ak_test_/);
    expect(reply.body.mode).toBe('test');
  });

  it('stores only the hash, fingerprint and prefix, never the cleartext', async () => {
    const { body } = await issue(owner, { label: 'hashed' });
    const { Items = [] } = await db.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': accountPk(owner.accountId) },
      }),
    );
    const lookup = await db.send(
      new GetCommand({
        TableName: tableName(),
        Key: apiKeyHashKey(createHash('sha256').update(body.apiKey).digest('hex')),
      }),
    );
    expect(lookup.Item?.keyId).toBe(body.id);
    const stored = JSON.stringify([...Items, lookup.Item]);
    expect(stored).not.toContain(body.apiKey);
    expect(stored).toContain(body.fingerprint);
  });

  it('rejects a label over 64 characters, naming the field, and issues nothing', async () => {
    const before = await api('/v1/api-keys', { token: owner.token });
    const reply = await issue(owner, { label: 'x'.repeat(65) });
    expectError(reply, 400, 'invalid_request_error', 'invalid_request');
    expect(reply.body.error.param).toBe('label');
    expect(reply.body.error.details).toEqual([{ param: 'label', message: expect.any(String) }]);
    expect((await api('/v1/api-keys', { token: owner.token })).body.data).toHaveLength(
      before.body.data.length,
    );
  });

  it('counts a label in characters as a reader does: 64 emoji are 64 characters', async () => {
    const issued = await issue(owner, { label: '😀'.repeat(64) });
    expect(issued.status).toBe(201);
    expect(issued.body.label).toBe('😀'.repeat(64));
    const over = await issue(owner, { label: 'é'.repeat(65) });
    expectError(over, 400, 'invalid_request_error', 'invalid_request');
    expect(over.body.error.param).toBe('label');
  });

  it('rejects unknown fields and a non-boolean test flag', async () => {
    const unknown = await issue(owner, { label: 'a', scopes: ['all'] });
    expectError(unknown, 400, 'invalid_request_error', 'invalid_request');
    expect(unknown.body.error.param).toBe('scopes');
    const wrongType = await issue(owner, { test: 'yes' });
    expectError(wrongType, 400, 'invalid_request_error', 'invalid_request');
    expect(wrongType.body.error.param).toBe('test');
  });

  it('answers malformed JSON with 400', async () => {
    expectError(
      await api('/v1/api-keys', { token: owner.token, rawBody: '{"label":' }),
      400,
      'invalid_request_error',
      'invalid_json',
    );
  });

  it('requires a dashboard token', async () => {
    expectError(await api('/v1/api-keys', { body: {} }), 401, 'authentication_error', 'unauthorized');
    expectError(
      await api('/v1/api-keys', { body: {}, token: 'not.a.jwt' }),
      401,
      'authentication_error',
      'unauthorized',
    );
  });
});

describe('roles', () => {
  for (const role of ['DEVELOPER', 'VIEWER'] as const) {
    it(`lets a ${role} list keys but not issue, rotate or revoke them`, async () => {
      const member = await newMember(role, owner.accountId);
      const list = await api('/v1/api-keys', { token: member.token });
      expect(list.status).toBe(200);
      expect(list.body.access).toEqual({ canManage: false });

      const target = (await issue(owner, { label: 'target' })).body;
      expectError(await issue(member), 403, 'permission_error', 'API_KEY_ROLE_REQUIRED');
      expectError(
        await api(`/v1/api-keys/${target.id}/rotate`, { token: member.token, body: {} }),
        403,
        'permission_error',
        'API_KEY_ROLE_REQUIRED',
      );
      expectError(
        await api(`/v1/api-keys/${target.id}`, { token: member.token, method: 'DELETE' }),
        403,
        'permission_error',
        'API_KEY_ROLE_REQUIRED',
      );
      expect((await wallet(target.apiKey)).status).toBe(200);
    });
  }

  it('lets an ADMIN manage keys', async () => {
    const admin = await newMember('ADMIN', owner.accountId);
    expect((await api('/v1/api-keys', { token: admin.token })).body.access).toEqual({ canManage: true });
    const issued = await issue(admin, { label: 'by admin' });
    expect(issued.status).toBe(201);
    expect(
      (await api(`/v1/api-keys/${issued.body.id}`, { token: admin.token, method: 'DELETE' })).status,
    ).toBe(200);
  });
});

describe('GET /v1/api-keys', () => {
  it('lists the account’s active keys without cleartext, newest first', async () => {
    const member = await newMember('OWNER');
    const first = (await issue(member, { label: 'one' })).body;
    const second = (await issue(member, { label: 'two', test: true })).body;
    const reply = await api('/v1/api-keys', { token: member.token });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      data: [
        { id: second.id, prefix: second.prefix, label: 'two', createdAt: second.createdAt, mode: 'test' },
        { id: first.id, prefix: first.prefix, label: 'one', createdAt: first.createdAt, mode: 'live' },
      ],
      access: { canManage: true },
    });
  });
});

describe('POST /v1/api-keys/{id}/rotate', () => {
  it('revokes the old key at once and issues a new one with the same mode and label', async () => {
    const old = (await issue(owner, { label: 'rotating', test: true })).body;
    const reply = await api(`/v1/api-keys/${old.id}/rotate`, { token: owner.token, body: {} });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ mode: 'test', label: 'rotating' });
    expect(reply.body.apiKey).toMatch(/^ak_test_/);
    expect(reply.body.id).not.toBe(old.id);
    expect(reply.body.fingerprint).not.toBe(old.fingerprint);
    expectError(await wallet(old.apiKey), 401, 'authentication_error', 'unauthorized');
    expect((await wallet(reply.body.apiKey)).status).toBe(200);
    const ids = (await api('/v1/api-keys', { token: owner.token })).body.data.map(
      (k: { id: string }) => k.id,
    );
    expect(ids).toContain(reply.body.id);
    expect(ids).not.toContain(old.id);
  });

  it('takes a new label when one is sent, and keeps live keys live', async () => {
    const old = (await issue(owner, { label: 'old label' })).body;
    const reply = await api(`/v1/api-keys/${old.id}/rotate`, {
      token: owner.token,
      body: { label: 'new label' },
    });
    expect(reply.body).toMatchObject({ mode: 'live', label: 'new label' });
    expect(reply.body.apiKey).toMatch(/^ak_live_/);
  });

  it('accepts a rotate without a body', async () => {
    const old = (await issue(owner, { label: 'no body' })).body;
    const reply = await api(`/v1/api-keys/${old.id}/rotate`, { token: owner.token, method: 'POST' });
    expect(reply.status).toBe(201);
    expect(reply.body.label).toBe('no body');
  });

  it('rejects a label over 64 characters and leaves the key working', async () => {
    const old = (await issue(owner)).body;
    const reply = await api(`/v1/api-keys/${old.id}/rotate`, {
      token: owner.token,
      body: { label: 'y'.repeat(65) },
    });
    expectError(reply, 400, 'invalid_request_error', 'invalid_request');
    expect(reply.body.error.param).toBe('label');
    expect((await wallet(old.apiKey)).status).toBe(200);
  });

  it('answers 404 for another account’s key and revokes nothing', async () => {
    const stranger = await newMember('OWNER');
    const theirs = (await issue(stranger)).body;
    expectError(
      await api(`/v1/api-keys/${theirs.id}/rotate`, { token: owner.token, body: {} }),
      404,
      'not_found_error',
      'not_found',
    );
    expect((await wallet(theirs.apiKey)).status).toBe(200);
  });

  it('answers 404 for an unknown, malformed or revoked key', async () => {
    expectError(
      await api('/v1/api-keys/00000000-0000-4000-8000-000000000000/rotate', { token: owner.token, body: {} }),
      404,
      'not_found_error',
      'not_found',
    );
    // Not a key id, and longer than a DynamoDB key may be: 404, never sent to the table (not a 500).
    const malformed = 'k'.repeat(1100);
    expectError(
      await api(`/v1/api-keys/${malformed}/rotate`, { token: owner.token, body: {} }),
      404,
      'not_found_error',
      'not_found',
    );
    expectError(
      await api(`/v1/api-keys/${malformed}`, { token: owner.token, method: 'DELETE' }),
      404,
      'not_found_error',
      'not_found',
    );
    const revoked = (await issue(owner)).body;
    await api(`/v1/api-keys/${revoked.id}`, { token: owner.token, method: 'DELETE' });
    expectError(
      await api(`/v1/api-keys/${revoked.id}/rotate`, { token: owner.token, body: {} }),
      404,
      'not_found_error',
      'not_found',
    );
  });

  it('lets exactly one of several concurrent rotations of a key win', async () => {
    const old = (await issue(owner, { label: 'raced' })).body;
    const replies = await Promise.all(
      Array.from({ length: 8 }, () => api(`/v1/api-keys/${old.id}/rotate`, { token: owner.token, body: {} })),
    );
    const winners = replies.filter((r) => r.status === 201);
    expect(winners).toHaveLength(1);
    for (const loser of replies.filter((r) => r.status !== 201))
      expectError(loser, 404, 'not_found_error', 'not_found');
    const labelled = (await api('/v1/api-keys', { token: owner.token })).body.data.filter(
      (k: { label: string }) => k.label === 'raced',
    );
    expect(labelled.map((k: { id: string }) => k.id)).toEqual([winners[0]?.body.id]);
  });
});

describe('DELETE /v1/api-keys/{id}', () => {
  it('revokes permanently: the key is 401 on the next request and a second revoke is 404', async () => {
    const key = (await issue(owner)).body;
    const reply = await api(`/v1/api-keys/${key.id}`, { token: owner.token, method: 'DELETE' });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ revoked: true });
    expectError(await wallet(key.apiKey), 401, 'authentication_error', 'unauthorized');
    expectError(
      await api(`/v1/api-keys/${key.id}`, { token: owner.token, method: 'DELETE' }),
      404,
      'not_found_error',
      'not_found',
    );
  });

  it('answers 404 for another account’s key and revokes nothing', async () => {
    const stranger = await newMember('OWNER');
    const theirs = (await issue(stranger)).body;
    expectError(
      await api(`/v1/api-keys/${theirs.id}`, { token: owner.token, method: 'DELETE' }),
      404,
      'not_found_error',
      'not_found',
    );
    expect((await wallet(theirs.apiKey)).status).toBe(200);
  });
});

describe('GET /v1/api-keys/audit-log', () => {
  it('records issue, rotate and revoke with the acting user and the fingerprints', async () => {
    const member = await newMember('OWNER');
    const admin = await newMember('ADMIN', member.accountId);
    const issued = (await issue(member, { label: 'audited' })).body;
    const rotated = (await api(`/v1/api-keys/${issued.id}/rotate`, { token: admin.token, body: {} })).body;
    await api(`/v1/api-keys/${rotated.id}`, { token: member.token, method: 'DELETE' });

    const reply = await api('/v1/api-keys/audit-log', { token: member.token });
    expect(reply.status).toBe(200);
    expect(reply.body.data.map((e: { action: string }) => e.action)).toEqual([
      'api_key.revoked',
      'api_key.rotated',
      'api_key.issued',
    ]);
    expect(reply.body.data).toEqual([
      expect.objectContaining({
        actorUserId: member.userId,
        keyId: rotated.id,
        fingerprint: rotated.fingerprint,
      }),
      expect.objectContaining({
        actorUserId: admin.userId,
        keyId: rotated.id,
        fingerprint: rotated.fingerprint,
        replacedKeyId: issued.id,
        replacedFingerprint: issued.fingerprint,
      }),
      expect.objectContaining({
        actorUserId: member.userId,
        keyId: issued.id,
        fingerprint: issued.fingerprint,
      }),
    ]);
    expect(JSON.stringify(reply.body)).not.toContain(issued.apiKey);
  });

  it('is limited to OWNER and ADMIN and validates limit', async () => {
    const viewer = await newMember('VIEWER', owner.accountId);
    expectError(
      await api('/v1/api-keys/audit-log', { token: viewer.token }),
      403,
      'permission_error',
      'API_KEY_ROLE_REQUIRED',
    );
    const reply = await api('/v1/api-keys/audit-log?limit=0', { token: owner.token });
    expectError(reply, 400, 'invalid_request_error', 'invalid_request');
    expect(reply.body.error.param).toBe('limit');
    expect((await api('/v1/api-keys/audit-log?limit=1', { token: owner.token })).body.data).toHaveLength(1);
    for (const cursor of ['nope', Buffer.from('2026-11-23T00:00:00.000Z|x').toString('base64url')]) {
      const bad = await api(`/v1/api-keys/audit-log?starting_after=${cursor}`, { token: owner.token });
      expectError(bad, 400, 'invalid_request_error', 'invalid_request');
      expect(bad.body.error.param).toBe('starting_after');
    }
  });

  it('pages by cursor: every event once, newest first, to the last page', async () => {
    const member = await newMember('OWNER');
    for (let n = 0; n < 5; n++) await issue(member, { label: `paged ${n}` });
    const whole = (await api('/v1/api-keys/audit-log?limit=100', { token: member.token })).body;
    expect(whole).toMatchObject({ has_more: false, next_cursor: null });
    expect(whole.data).toHaveLength(5);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `limit=2&starting_after=${cursor}` : 'limit=2';
      const page = (await api(`/v1/api-keys/audit-log?${query}`, { token: member.token })).body;
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data.map((e: { id: string }) => e.id));
      expect(page.has_more).toBe(page.next_cursor !== null);
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(seen).toEqual(whole.data.map((e: { id: string }) => e.id));
  });
});
