/**
 * The failed-login limit of POST /v1/auth/login, per e-mail address from one source and from
 * all sources together, over HTTP against the test runtime (its window shortened to
 * `testLoginWindow`, the limits the defaults). Requests come from 127.0.0.1 unless they name
 * another loopback address to send from.
 */

import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { loginSubjectKey } from '../../shared/auth/jwt.ts';
import { config } from '../../shared/config.ts';
import {
  loginLimitSubject as keyedAddress,
  loginSourceSubject as keyedSource,
} from '../../shared/domain/auth.ts';
import { db, tableName } from '../../shared/store/client.ts';
import {
  loginAttemptsKey,
  loginSourceAnyAddressKey,
  loginSourceAttemptsKey,
} from '../../shared/store/keys.ts';
import { countLoginAttempt, uncountLoginAttempt } from '../../shared/store/rate-limit.ts';
import { newMember } from '../helpers/accounts.ts';
import { type ApiReply, api, expectError } from '../helpers/http.ts';
import { testLoginWindow } from '../helpers/local-env.ts';

const LIMIT = config.loginFailureLimit;
const ADDRESS_LIMIT = config.loginAddressFailureLimit;
const SOURCE_LIMIT = config.loginSourceFailureLimit;
const WINDOW_SECONDS = Number(testLoginWindow.LOGIN_FAILURE_WINDOW_SECONDS);
/** The runtime's subjects: the test process shares its JWT secret, so derives the same key. */
const loginSubjectKeyBytes = await loginSubjectKey();
const loginLimitSubject = (email: string) => keyedAddress(email, loginSubjectKeyBytes);
const loginSourceSubject = (sourceIp: string) => keyedSource(sourceIp, loginSubjectKeyBytes);

const attempt = (email: string, password: string, from?: string) =>
  api('/v1/auth/login', { body: { email, password }, ...(from && { localAddress: from }) });
const wrong = (email: string, from?: string) => attempt(email, `wrong-${randomUUID()}`, from);

async function failTimes(email: string, times: number, from?: string): Promise<void> {
  for (let i = 0; i < times; i++)
    expectError(await wrong(email, from), 401, 'authentication_error', 'unauthorized');
}

/** The spec's 429: envelope, `rate_limited`, and `Retry-After` in whole seconds within the window. */
function expectLimited(reply: ApiReply): number {
  expectError(reply, 429, 'rate_limit_error', 'rate_limited');
  const retryAfter = reply.headers.get('retry-after');
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(WINDOW_SECONDS);
  return Number(retryAfter);
}

describe('POST /v1/auth/login: failed logins per e-mail address', () => {
  it('is the default of 5 within the window', () => {
    expect(LIMIT).toBe(5);
    expect(WINDOW_SECONDS).toBeLessThan(config.loginFailureWindowSeconds);
  });

  it(`answers 429 with Retry-After after ${LIMIT} wrong passwords, even to the right one`, async () => {
    const member = await newMember('OWNER');
    await failTimes(member.email, LIMIT);

    const right = await attempt(member.email, member.password);
    expectLimited(right);
    expect(right.body.error.message).not.toMatch(/password/i);
    expectLimited(await wrong(member.email));
    // The address in another case and with spaces is the same address.
    expectLimited(await attempt(`  ${member.email.toUpperCase()} `, member.password));
  });

  it(`lets a parallel burst of wrong passwords be checked at most ${LIMIT} times`, async () => {
    const member = await newMember('ADMIN');
    const burst = await Promise.all(Array.from({ length: 30 }, () => wrong(member.email)));

    const statuses = burst.map((reply) => reply.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(LIMIT);
    expect(statuses.filter((s) => s === 429)).toHaveLength(burst.length - LIMIT);
    for (const reply of burst)
      if (reply.status === 401) expectError(reply, 401, 'authentication_error', 'unauthorized');
      else expectLimited(reply);
    expectLimited(await attempt(member.email, member.password));
  });

  it('leaves another e-mail address alone', async () => {
    const locked = await newMember('OWNER');
    const other = await newMember('OWNER', locked.accountId);
    await Promise.all(Array.from({ length: LIMIT + 3 }, () => wrong(locked.email)));
    expectLimited(await attempt(locked.email, locked.password));

    expectError(await wrong(other.email), 401, 'authentication_error', 'unauthorized');
    const reply = await attempt(other.email, other.password);
    expect(reply.status).toBe(200);
    expect(reply.body.account_id).toBe(locked.accountId);
  });

  it('limits an unknown e-mail address the same way, with the same answers', async () => {
    const known = await newMember('OWNER');
    const unknown = `nobody-${randomUUID()}@example.com`;
    await Promise.all([failTimes(unknown, LIMIT), failTimes(known.email, LIMIT)]);

    const unknownReply = await wrong(unknown);
    const knownReply = await wrong(known.email);
    expectLimited(unknownReply);
    expectLimited(knownReply);
    expect(unknownReply.body.error).toEqual(knownReply.body.error);
    const headerNames = (reply: ApiReply) =>
      [...reply.headers.keys()].filter((name) => !['date', 'x-request-id'].includes(name)).sort();
    expect(headerNames(unknownReply)).toEqual(headerNames(knownReply));
  });

  it('spends no attempt on a successful login, and forgets no failure either', async () => {
    const member = await newMember('DEVELOPER');
    for (let i = 0; i <= LIMIT; i++) expect((await attempt(member.email, member.password)).status).toBe(200);

    await failTimes(member.email, LIMIT - 1);
    expect((await attempt(member.email, member.password)).status).toBe(200);
    await failTimes(member.email, 1);
    expectLimited(await attempt(member.email, member.password));
  });

  it('lets the address in again once the window has passed', { timeout: 60_000 }, async () => {
    const member = await newMember('OWNER');
    await failTimes(member.email, LIMIT);
    const retryAfter = expectLimited(await attempt(member.email, member.password));

    await sleep(retryAfter * 1000 + 250);
    const reply = await attempt(member.email, member.password);
    expect(reply.status).toBe(200);
    expect(reply.body.role).toBe('OWNER');
    // A new window: its failures count from zero.
    await failTimes(member.email, LIMIT - 1);
    expect((await attempt(member.email, member.password)).status).toBe(200);
  });
});

describe('POST /v1/auth/login: failed logins per source, and per address from all sources', () => {
  it(`has defaults that take ${ADDRESS_LIMIT / LIMIT} sources to lock an address out`, () => {
    expect([LIMIT, ADDRESS_LIMIT]).toEqual([5, 50]);
  });

  it('lets the owner in from another source while one source is locked out', async () => {
    const member = await newMember('OWNER');
    await failTimes(member.email, LIMIT);
    expectLimited(await attempt(member.email, member.password));

    const reply = await attempt(member.email, member.password, '127.0.0.2');
    expect(reply.status).toBe(200);
    expect(reply.body.account_id).toBe(member.accountId);
    // That source has its own failures to spend; the first stays locked.
    expectError(await wrong(member.email, '127.0.0.2'), 401, 'authentication_error', 'unauthorized');
    expectLimited(await attempt(member.email, member.password));
  });

  it(`locks the address after ${ADDRESS_LIMIT} failures from several sources, except where it logged in before`, async () => {
    const member = await newMember('ADMIN');
    // The owner's own network, known to the address before the attack.
    const known = '127.0.3.1';
    expect((await attempt(member.email, member.password, known)).status).toBe(200);
    const sources = Array.from({ length: ADDRESS_LIMIT / LIMIT }, (_, n) => `127.0.1.${n + 1}`);
    // Each source twice its limit: only its first LIMIT are checked and count for the address.
    const burst = await Promise.all(
      sources.flatMap((from) => Array.from({ length: 2 * LIMIT }, () => wrong(member.email, from))),
    );
    expect(burst.filter((reply) => reply.status === 401)).toHaveLength(ADDRESS_LIMIT);
    for (const reply of burst) if (reply.status !== 401) expectLimited(reply);

    // A source that never failed is refused too, right password included, with no check run.
    const fresh = '127.0.2.1';
    expectLimited(await attempt(member.email, member.password, fresh));
    expectLimited(await wrong(member.email, fresh));
    // Those refusals were not the fresh source's failures: both were taken back from its counter.
    const { Item } = await db.send(
      new GetCommand({
        TableName: tableName(),
        Key: loginSourceAttemptsKey(loginLimitSubject(member.email), loginSourceSubject(fresh)),
        ConsistentRead: true,
      }),
    );
    expect(Item?.count).toBe(0);

    // The known source still gets its own limit's worth of checks: a wrong password is a 401, the right one logs in.
    expectError(await wrong(member.email, known), 401, 'authentication_error', 'unauthorized');
    const owner = await attempt(member.email, member.password, known);
    expect(owner.status).toBe(200);
    expect(owner.body.role).toBe('ADMIN');
  });
});

describe('POST /v1/auth/login: failed logins per source, all addresses together', () => {
  const sourceCount = async (from: string): Promise<unknown> =>
    (
      await db.send(
        new GetCommand({
          TableName: tableName(),
          Key: loginSourceAnyAddressKey(loginSourceSubject(from)),
          ConsistentRead: true,
        }),
      )
    ).Item?.count;

  it(`refuses a source past ${SOURCE_LIMIT} failures over any addresses, except for an address it logged in to before`, async () => {
    expect(SOURCE_LIMIT).toBe(100);
    const from = '127.0.4.1';
    const member = await newMember('OWNER');
    expect((await attempt(member.email, member.password, from)).status).toBe(200);
    // A right password is no failure of the source.
    expect(await sourceCount(from)).toBe(0);

    // A source trying a new address each time: every failure counts, whoever it names.
    await failTimes(`nobody-${randomUUID()}@example.com`, 2, from);
    await failTimes(`nobody-${randomUUID()}@example.com`, 1, from);
    expect(await sourceCount(from)).toBe(3);
    // The rest of its allowance spent as if on other addresses (97 more wrong logins).
    const key = loginSourceAnyAddressKey(loginSourceSubject(from));
    for (let n = 3; n < SOURCE_LIMIT; n++) await countLoginAttempt(key, WINDOW_SECONDS * 1000);

    const next = await wrong(`nobody-${randomUUID()}@example.com`, from);
    expectLimited(next);
    expectLimited(await attempt(`new-${randomUUID()}@example.com`, 'whatever', from));
    // Refused before any password check: taken back, so the counter stays at the limit.
    expect(await sourceCount(from)).toBe(SOURCE_LIMIT);
    // And never counted against the address it named: refusals cost an attacker nothing, so
    // they must not bring a real address nearer its all-sources lock.
    const target = await newMember('ADMIN');
    for (let n = 0; n < 3; n++) expectLimited(await wrong(target.email, from));
    const addressCounter = await db.send(
      new GetCommand({
        TableName: tableName(),
        Key: loginAttemptsKey(loginLimitSubject(target.email)),
        ConsistentRead: true,
      }),
    );
    expect(addressCounter.Item?.count ?? 0).toBe(0);
    expect((await attempt(target.email, target.password, '127.0.4.3')).status).toBe(200);

    // The address that logged in from there before keeps its own limit's worth of checks.
    expectError(await wrong(member.email, from), 401, 'authentication_error', 'unauthorized');
    expect((await attempt(member.email, member.password, from)).status).toBe(200);
    // Another source is not affected.
    expectError(
      await wrong(`nobody-${randomUUID()}@example.com`, '127.0.4.2'),
      401,
      'authentication_error',
      'unauthorized',
    );
  });
});

describe('the failed-login counter item', () => {
  it('counts concurrent attempts one each, and starts exactly one new window when the last is over', async () => {
    const subject = loginAttemptsKey(loginLimitSubject(`counter-${randomUUID()}@example.com`));
    const start = Date.now();
    const first = await Promise.all(
      Array.from({ length: 8 }, () => countLoginAttempt(subject, 1_000, start)),
    );
    expect(first.map((w) => w.count).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(new Set(first.map((w) => w.windowEndsAt))).toEqual(new Set([start + 1_000]));

    // Past the window's end: one attempt starts the next window, the others count in it.
    const later = start + 1_000;
    const next = await Promise.all(Array.from({ length: 8 }, () => countLoginAttempt(subject, 1_000, later)));
    expect(next.map((w) => w.count).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(new Set(next.map((w) => w.windowEndsAt))).toEqual(new Set([later + 1_000]));

    // Taking an attempt back touches only the window it was counted in.
    await uncountLoginAttempt(subject, start + 1_000);
    await uncountLoginAttempt(subject, later + 1_000);
    expect((await countLoginAttempt(subject, 1_000, later)).count).toBe(8);
  });
});
