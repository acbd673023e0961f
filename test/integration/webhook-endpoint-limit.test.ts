/**
 * The cap on webhook endpoints per account and mode (`WEBHOOK_ENDPOINT_LIMIT`), over HTTP: the
 * one past it is a 400 with its code and `param`, a delete makes room, and races of real
 * requests (creates, and creates against deletes) never leave more than the cap stored.
 */

import { describe, expect, it } from 'vitest';
import { WEBHOOK_ENDPOINT_LIMIT } from '../../shared/domain/webhook-endpoints.ts';
import { newKey } from '../helpers/accounts.ts';
import { merchant } from '../helpers/charges.ts';
import { type ApiReply, api, expectError } from '../helpers/http.ts';

const URL = 'http://127.0.0.1:9/hook';

const register = (apikey: string, n = 0) =>
  api('/v1/webhooks/endpoints', { apikey, body: { url: `${URL}/${n}`, events: ['charge.paid'] } });
const remove = (apikey: string, id: string) =>
  api(`/v1/webhooks/endpoints/${id}`, { apikey, method: 'DELETE' });
const storedIds = async (apikey: string): Promise<string[]> => {
  const reply = await api('/v1/webhooks/endpoints', { apikey });
  expect(reply.status).toBe(200);
  return reply.body.data.map((e: { id: string }) => e.id).sort();
};

/** `count` endpoints, one after another, each a 201. */
async function fill(apikey: string, count = WEBHOOK_ENDPOINT_LIMIT): Promise<string[]> {
  const ids: string[] = [];
  for (let n = 0; n < count; n++) {
    const reply = await register(apikey, n);
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    ids.push(reply.body.id);
  }
  return ids;
}

function expectLimitExceeded(reply: ApiReply): void {
  expectError(reply, 400, 'invalid_request_error', 'webhook_endpoint_limit_exceeded');
  expect(reply.body.error.param).toBe('url');
  expect(reply.body.error.message).toContain(`at most ${WEBHOOK_ENDPOINT_LIMIT} webhook endpoints`);
}

/** Every reply of a race is a 201 or the cap's 400, never anything else (a 500, a 409). */
function expectCreatedOrLimited(replies: ApiReply[]): string[] {
  for (const reply of replies) if (reply.status !== 201) expectLimitExceeded(reply);
  return replies.filter((r) => r.status === 201).map((r) => r.body.id as string);
}

describe('the cap on webhook endpoints per account and mode', () => {
  it('is 16, as Stripe’s', () => {
    expect(WEBHOOK_ENDPOINT_LIMIT).toBe(16);
  });

  it('refuses the one past the cap with 400 webhook_endpoint_limit_exceeded (param url), storing nothing', async () => {
    const m = await merchant();
    const ids = await fill(m.apikey);
    expectLimitExceeded(await register(m.apikey, 99));
    expectLimitExceeded(await register(m.apikey, 100));
    expect(await storedIds(m.apikey)).toEqual([...ids].sort());
  });

  it('makes room when one is deleted, and only then', async () => {
    const m = await merchant();
    const [first = '', ...rest] = await fill(m.apikey);
    // A delete that deletes nothing (another account's key, an unknown id) makes no room.
    const stranger = await merchant();
    expectError(await remove(stranger.apikey, first), 404, 'not_found_error', 'not_found');
    expectError(await remove(m.apikey, `we_${'0'.repeat(24)}`), 404, 'not_found_error', 'not_found');
    expectLimitExceeded(await register(m.apikey, 99));

    expect((await remove(m.apikey, first)).body).toEqual({ deleted: true });
    const again = await register(m.apikey, 99);
    expect(again.status).toBe(201);
    expectLimitExceeded(await register(m.apikey, 100));
    expect(await storedIds(m.apikey)).toEqual([...rest, again.body.id].sort());
  });

  it('holds under a burst of concurrent creates: exactly the cap stored, the rest refused', async () => {
    const m = await merchant();
    const replies = await Promise.all(
      Array.from({ length: WEBHOOK_ENDPOINT_LIMIT * 2 + 8 }, (_, n) => register(m.apikey, n)),
    );
    const created = expectCreatedOrLimited(replies);
    expect(created).toHaveLength(WEBHOOK_ENDPOINT_LIMIT);
    expect(await storedIds(m.apikey)).toEqual(created.sort());
    expectLimitExceeded(await register(m.apikey, 99));
  });

  it('holds when creates race deletes, and a delete raced by itself makes room once', async () => {
    const m = await merchant();
    const ids = await fill(m.apikey);
    const deleted = ids.slice(0, 4);
    const [deletes, creates, twice] = await Promise.all([
      Promise.all(deleted.map((id) => remove(m.apikey, id))),
      Promise.all(Array.from({ length: 12 }, (_, n) => register(m.apikey, 100 + n))),
      // The same endpoint deleted by two requests at once: one 200, one 404.
      Promise.all([remove(m.apikey, ids[4] ?? ''), remove(m.apikey, ids[4] ?? '')]),
    ]);
    for (const reply of deletes) expect(reply.status).toBe(200);
    expect(twice.map((r) => r.status).sort()).toEqual([200, 404]);
    const created = expectCreatedOrLimited(creates);
    expect(created.length).toBeLessThanOrEqual(5);
    const stored = await storedIds(m.apikey);
    expect(stored).toEqual([...ids.slice(5), ...created].sort());
    // Whatever the race's order, the count is the endpoints stored: room for exactly the rest.
    const rest = await fill(m.apikey, WEBHOOK_ENDPOINT_LIMIT - stored.length);
    expectLimitExceeded(await register(m.apikey, 99));
    expect(await storedIds(m.apikey)).toEqual([...stored, ...rest].sort());
  });

  it('counts test and live apart: a full test mode leaves live its own 16', async () => {
    const m = await merchant();
    const live = await newKey(m.accountId, 'live');
    const testIds = await fill(m.apikey);
    expectLimitExceeded(await register(m.apikey, 99));
    const liveIds = await fill(live);
    expectLimitExceeded(await register(live, 99));
    expect(await storedIds(m.apikey)).toEqual(testIds.sort());
    expect(await storedIds(live)).toEqual(liveIds.sort());
    // Room made in one mode is not room in the other.
    expect((await remove(live, liveIds[0] ?? '')).status).toBe(200);
    expectLimitExceeded(await register(m.apikey, 99));
    expect((await register(live, 99)).status).toBe(201);
  });
});
