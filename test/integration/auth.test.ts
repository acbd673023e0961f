import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { hashPassword, needsRehash } from '../../shared/auth/password.ts';
import { db, tableName } from '../../shared/store/client.ts';
import { membershipKey } from '../../shared/store/keys.ts';
import { createUser, findUserByEmail, putMembership } from '../../shared/store/users.ts';
import { newAccount, newMember } from '../helpers/accounts.ts';
import { api, demo, expectError, login } from '../helpers/http.ts';
import { testAwsEnv } from '../helpers/local-env.ts';

const listKeys = (token: string) => api('/v1/api-keys', { token });

const signWith = (secret: string, claims: { sub: string; acct: string; exp: number }) =>
  new SignJWT({ acct: claims.acct })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer('pix-service')
    .setAudience('dashboard')
    .setSubject(claims.sub)
    .setJti(crypto.randomUUID())
    .setIssuedAt()
    .setExpirationTime(claims.exp)
    .sign(new TextEncoder().encode(secret));

describe('POST /v1/auth/login', () => {
  it('returns a bearer token for the demo owner', async () => {
    const { email, password, account_id } = demo();
    const reply = await api('/v1/auth/login', { body: { email, password } });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 3600,
      account_id,
      role: 'OWNER',
    });
    expect((await listKeys(reply.body.token)).status).toBe(200);
    // The scheme is case-insensitive.
    const lowerCase = await api('/v1/api-keys', {
      headers: { authorization: `bearer ${reply.body.token}` },
    });
    expect(lowerCase.status).toBe(200);
  });

  it('answers a wrong password and an unknown e-mail alike with 401', async () => {
    const wrong = await api('/v1/auth/login', { body: { email: demo().email, password: 'wrong-password' } });
    expectError(wrong, 401, 'authentication_error', 'unauthorized');
    const unknown = await api('/v1/auth/login', {
      body: { email: 'nobody@example.com', password: 'whatever' },
    });
    expectError(unknown, 401, 'authentication_error', 'unauthorized');
    expect(unknown.body.error.message).toBe(wrong.body.error.message);
  });

  it('validates the body before looking anything up', async () => {
    const reply = await api('/v1/auth/login', { body: { email: 'not-an-email', password: 'x' } });
    expectError(reply, 400, 'invalid_request_error', 'invalid_request');
    expect(reply.body.error.param).toBe('email');
    const missing = await api('/v1/auth/login', { body: { email: 'a@example.com' } });
    expect(missing.body.error.param).toBe('password');
    expectError(
      await api('/v1/auth/login', { rawBody: 'email=a' }),
      400,
      'invalid_request_error',
      'invalid_json',
    );
    const form = await api('/v1/auth/login', {
      rawBody: 'email=a',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectError(form, 400, 'invalid_request_error', 'invalid_request');
    expect(form.body.error.param).toBe('Content-Type');
  });

  it('replaces a hash of older scrypt parameters at the next login, and only with the right password', async () => {
    const older = { N: 16384, r: 8, p: 1 };
    const { id: accountId } = await newAccount();
    const users = await Promise.all(
      ['upgraded', 'kept'].map(async () => {
        const email = `user-${crypto.randomUUID()}@example.com`;
        const password = crypto.randomUUID();
        const user = await createUser(email, await hashPassword(password, older));
        await putMembership(accountId, user.id, 'OWNER');
        return { email, password, storedHash: user.passwordHash };
      }),
    );
    const [upgraded, kept] = users as [(typeof users)[0], (typeof users)[0]];
    expect(
      (await api('/v1/auth/login', { body: { email: upgraded.email, password: upgraded.password } })).status,
    ).toBe(200);
    expectError(
      await api('/v1/auth/login', { body: { email: kept.email, password: 'wrong-password' } }),
      401,
      'authentication_error',
      'unauthorized',
    );
    const now = (await findUserByEmail(upgraded.email))?.passwordHash ?? '';
    expect(now).not.toBe(upgraded.storedHash);
    expect(needsRehash(now)).toBe(false);
    expect((await findUserByEmail(kept.email))?.passwordHash).toBe(kept.storedHash);
    // The new hash is of the same password.
    expect(await login(upgraded.email, upgraded.password)).toEqual(expect.any(String));
    expectError(
      await api('/v1/auth/login', { body: { email: upgraded.email, password: 'wrong-password' } }),
      401,
      'authentication_error',
      'unauthorized',
    );
  });

  it('asks a member of several accounts which one, and binds the token to it', async () => {
    const member = await newMember('OWNER');
    const second = await newAccount();
    await putMembership(second.id, member.userId, 'VIEWER');

    const ambiguous = await api('/v1/auth/login', {
      body: { email: member.email, password: member.password },
    });
    expectError(ambiguous, 400, 'invalid_request_error', 'invalid_request');
    expect(ambiguous.body.error.param).toBe('account_id');

    const reply = await api('/v1/auth/login', {
      body: { email: member.email, password: member.password, account_id: second.id },
    });
    expect(reply.body).toMatchObject({ account_id: second.id, role: 'VIEWER' });
    expect((await listKeys(reply.body.token)).body.access).toEqual({ canManage: false });

    const foreign = await api('/v1/auth/login', {
      body: { email: member.email, password: member.password, account_id: (await newAccount()).id },
    });
    expectError(foreign, 401, 'authentication_error', 'unauthorized');
  });
});

describe('POST /v1/auth/logout', () => {
  it('revokes the token: 204, then 401 on its next use', async () => {
    const token = await login(demo().email, demo().password);
    const reply = await api('/v1/auth/logout', { token, method: 'POST' });
    expect(reply.status).toBe(204);
    expect(reply.headers.get('x-request-id')).toBeTruthy();
    expectError(await listKeys(token), 401, 'authentication_error', 'unauthorized');
    expectError(
      await api('/v1/auth/logout', { token, method: 'POST' }),
      401,
      'authentication_error',
      'unauthorized',
    );
  });

  it('requires a token', async () => {
    expectError(
      await api('/v1/auth/logout', { method: 'POST' }),
      401,
      'authentication_error',
      'unauthorized',
    );
  });

  it('names a query parameter or body it does not read, and a body that is not JSON, revoking nothing', async () => {
    const member = await newMember('DEVELOPER');
    const logout = (call: Parameters<typeof api>[1] = {}) =>
      api('/v1/auth/logout', { token: member.token, method: 'POST', ...call });

    const query = await api('/v1/auth/logout?everywhere=true', { token: member.token, method: 'POST' });
    expectError(query, 400, 'invalid_request_error', 'invalid_request');
    expect(query.body.error.param).toBe('everywhere');
    const field = await logout({ body: { all_sessions: true } });
    expectError(field, 400, 'invalid_request_error', 'invalid_request');
    expect(field.body.error.param).toBe('all_sessions');
    expectError(await logout({ rawBody: '{' }), 400, 'invalid_request_error', 'invalid_json');

    // Refused before anything was done: the token still works, and logs out once asked plainly.
    expect((await listKeys(member.token)).status).toBe(200);
    expect((await logout()).status).toBe(204);
    expectError(await listKeys(member.token), 401, 'authentication_error', 'unauthorized');
  });
});

describe('dashboard tokens', () => {
  it('rejects expired, foreign-signed, unsigned, tampered and overlong tokens', async () => {
    const member = await newMember('OWNER');
    const claims = { sub: member.userId, acct: member.accountId };
    const now = Math.floor(Date.now() / 1000);
    const expired = await signWith(testAwsEnv.JWT_SECRET, { ...claims, exp: now - 10 });
    // Signed with the right secret, but for 100 years: longer than any token the service issues.
    const overlong = await signWith(testAwsEnv.JWT_SECRET, { ...claims, exp: now + 100 * 365 * 86_400 });
    const foreign = await signWith('some-other-secret', { ...claims, exp: now + 600 });
    const [header, payload] = member.token.split('.');
    const unsigned = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${payload}.`;
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, acct: 'acct_other' })).toString('base64url')}.${member.token.split('.')[2]}`;
    for (const token of [expired, foreign, unsigned, tampered, overlong]) {
      expectError(await listKeys(token), 401, 'authentication_error', 'unauthorized');
    }
    expect(
      (await listKeys(await signWith(testAwsEnv.JWT_SECRET, { ...claims, exp: now + 600 }))).status,
    ).toBe(200);
  });

  it('stops working as soon as the membership is removed', async () => {
    const member = await newMember('ADMIN');
    expect((await listKeys(member.token)).status).toBe(200);
    await db.send(
      new DeleteCommand({
        TableName: tableName(),
        Key: membershipKey(member.accountId, member.userId),
      }),
    );
    expectError(await listKeys(member.token), 401, 'authentication_error', 'unauthorized');
  });

  it('reads the role live: a demoted admin loses key management on the next request', async () => {
    const member = await newMember('ADMIN');
    await putMembership(member.accountId, member.userId, 'VIEWER');
    expectError(
      await api('/v1/api-keys', { token: member.token, body: {} }),
      403,
      'permission_error',
      'API_KEY_ROLE_REQUIRED',
    );
  });
});
