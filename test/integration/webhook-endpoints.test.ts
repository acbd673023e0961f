import { beforeAll, describe, expect, it } from 'vitest';
import { newKey } from '../helpers/accounts.ts';
import { merchant } from '../helpers/charges.ts';
import { api, expectError } from '../helpers/http.ts';

const URL = 'http://127.0.0.1:9/hook';
let m: { accountId: string; apikey: string };
beforeAll(async () => {
  m = await merchant();
});

const register = (apikey: string, body: unknown) => api('/v1/webhooks/endpoints', { apikey, body });

describe('POST /v1/webhooks/endpoints', () => {
  it('registers an endpoint: 201 with a 64-hex secret shown once, ACTIVE', async () => {
    const reply = await register(m.apikey, {
      url: URL,
      events: ['charge.paid', 'payment.completed', 'charge.paid'],
    });
    expect(reply.status).toBe(201);
    expect(Object.keys(reply.body).sort()).toEqual(['events', 'id', 'secret', 'status', 'url']);
    expect(reply.body).toMatchObject({
      url: URL,
      events: ['charge.paid', 'payment.completed'],
      status: 'ACTIVE',
    });
    expect(reply.body.secret).toMatch(/^[0-9a-f]{64}$/);
    const list = await api('/v1/webhooks/endpoints', { apikey: m.apikey });
    expect(JSON.stringify(list.body)).not.toContain(reply.body.secret);
  });

  it('rejects unknown event names and empty or malformed event lists with param events', async () => {
    for (const events of [['charge.pay'], [], 'charge.paid', [42]]) {
      const reply = await register(m.apikey, { url: URL, events });
      expectError(reply, 400, 'invalid_request_error', 'invalid_request');
      expect(reply.body.error.param).toMatch(/^events/);
    }
  });

  it.each([
    ['a non-URL', 'not a url'],
    ['another scheme', 'ftp://127.0.0.1/hook'],
    ['credentials', 'http://user:pw@127.0.0.1/hook'],
    ['a private address', 'https://10.0.0.8/hook'],
    ['the metadata address', 'http://169.254.169.254/latest/meta-data'],
    ['CGNAT', 'https://100.64.1.1/hook'],
    ['IPv6 loopback', 'http://[::1]/hook'],
    ['IPv6 unique-local metadata', 'http://[fd00:ec2::254]/hook'],
    ['an IPv4-mapped loopback', 'http://[::ffff:127.0.0.1]/hook'],
    ['NAT64 of a private address', 'http://[64:ff9b::a00:1]/hook'],
    ['another loopback address', 'http://127.0.0.2/hook'],
    ['a host that does not resolve', 'https://no-such-host.invalid/hook'],
    // Forms the URL parser would repair, so the stored URL would not be the one delivered to.
    ['surrounding spaces', ` ${URL} `],
    ['a tab inside', 'http://127.0.0.1:9/ho\tok'],
    ['a NUL', 'http://127.0.0.1:9/hook\u0000'],
    ['no slashes after the scheme', 'http:127.0.0.1:9/hook'],
    ['port 0', 'http://127.0.0.1:0/hook'],
  ])('rejects %s with param url', async (_label, url) => {
    const reply = await register(m.apikey, { url, events: ['charge.paid'] });
    expectError(reply, 400, 'invalid_request_error', 'invalid_request');
    expect(reply.body.error.param).toBe('url');
  });

  it('says a missing url or events is required', async () => {
    for (const [body, param] of [
      [{ url: URL }, 'events'],
      [{ events: ['charge.paid'] }, 'url'],
    ] as const) {
      const reply = await register(m.apikey, body);
      expectError(reply, 400, 'invalid_request_error', 'invalid_request');
      expect(reply.body.error.param).toBe(param);
      expect(reply.body.error.message).toBe(`${param} is required.`);
    }
  });

  it('requires an API key', async () => {
    expectError(
      await api('/v1/webhooks/endpoints', { body: { url: URL, events: ['charge.paid'] } }),
      401,
      'authentication_error',
      'unauthorized',
    );
  });
});

describe('listing, updating, rotating and deleting', () => {
  it('lists endpoints with timestamps and without secrets', async () => {
    const fresh = await merchant();
    const created = (await register(fresh.apikey, { url: URL, events: ['charge.created'] })).body;
    const reply = await api('/v1/webhooks/endpoints', { apikey: fresh.apikey });
    expect(reply.body).toEqual({
      data: [
        {
          id: created.id,
          url: URL,
          events: ['charge.created'],
          status: 'ACTIVE',
          createdAt: expect.any(String),
          updatedAt: expect.any(String),
        },
      ],
    });
  });

  it('updates only the fields sent and returns the endpoint without its secret', async () => {
    const created = (await register(m.apikey, { url: URL, events: ['charge.created'] })).body;
    const status = await api(`/v1/webhooks/endpoints/${created.id}`, {
      apikey: m.apikey,
      method: 'PATCH',
      body: { status: 'INACTIVE' },
    });
    expect(status.body).toEqual({ id: created.id, url: URL, events: ['charge.created'], status: 'INACTIVE' });
    const events = await api(`/v1/webhooks/endpoints/${created.id}`, {
      apikey: m.apikey,
      method: 'PATCH',
      body: { events: ['charge.expired'], url: 'http://127.0.0.1:10/x' },
    });
    expect(events.body).toEqual({
      id: created.id,
      url: 'http://127.0.0.1:10/x',
      events: ['charge.expired'],
      status: 'INACTIVE',
    });
  });

  it('validates updates: empty body, bad status, unknown events, forbidden url', async () => {
    const created = (await register(m.apikey, { url: URL, events: ['charge.created'] })).body;
    const patch = (body: unknown) =>
      api(`/v1/webhooks/endpoints/${created.id}`, { apikey: m.apikey, method: 'PATCH', body });
    expectError(await patch({}), 400, 'invalid_request_error', 'invalid_request');
    expect((await patch({ status: 'PAUSED' })).body.error.param).toBe('status');
    expect((await patch({ events: ['nope'] })).body.error.param).toMatch(/^events/);
    expect((await patch({ url: 'http://192.168.1.1/' })).body.error.param).toBe('url');
    expect((await patch({ secret: 'mine' })).body.error.param).toBe('secret');
  });

  it('rotates the secret: a new 64-hex secret at once', async () => {
    const created = (await register(m.apikey, { url: URL, events: ['charge.created'] })).body;
    const reply = await api(`/v1/webhooks/endpoints/${created.id}/rotate-secret`, {
      apikey: m.apikey,
      method: 'POST',
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ id: created.id, secret: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(reply.body.secret).not.toBe(created.secret);
  });

  it('deletes: 200 deleted, then 404', async () => {
    const created = (await register(m.apikey, { url: URL, events: ['charge.created'] })).body;
    const reply = await api(`/v1/webhooks/endpoints/${created.id}`, { apikey: m.apikey, method: 'DELETE' });
    expect(reply.body).toEqual({ deleted: true });
    expectError(
      await api(`/v1/webhooks/endpoints/${created.id}`, { apikey: m.apikey, method: 'DELETE' }),
      404,
      'not_found_error',
      'not_found',
    );
  });

  it('answers 404 for another account’s (or mode’s) endpoint on update, rotate and delete, changing nothing', async () => {
    const created = (await register(m.apikey, { url: URL, events: ['charge.created'] })).body;
    const stranger = await merchant();
    const live = await newKey(m.accountId, 'live');
    for (const apikey of [stranger.apikey, live]) {
      expectError(
        await api(`/v1/webhooks/endpoints/${created.id}`, {
          apikey,
          method: 'PATCH',
          body: { status: 'INACTIVE' },
        }),
        404,
        'not_found_error',
        'not_found',
      );
      expectError(
        await api(`/v1/webhooks/endpoints/${created.id}/rotate-secret`, { apikey, method: 'POST' }),
        404,
        'not_found_error',
        'not_found',
      );
      expectError(
        await api(`/v1/webhooks/endpoints/${created.id}`, { apikey, method: 'DELETE' }),
        404,
        'not_found_error',
        'not_found',
      );
    }
    const mine = (await api('/v1/webhooks/endpoints', { apikey: m.apikey })).body.data.find(
      (e: { id: string }) => e.id === created.id,
    );
    expect(mine.status).toBe('ACTIVE');
  });

  it('answers 404 for an id that cannot be an endpoint’s, even one longer than a DynamoDB key may be', async () => {
    for (const id of ['we_nope', `we_${'a'.repeat(1100)}`]) {
      for (const [method, path, body] of [
        ['PATCH', `/v1/webhooks/endpoints/${id}`, { status: 'INACTIVE' }],
        ['POST', `/v1/webhooks/endpoints/${id}/rotate-secret`, undefined],
        ['DELETE', `/v1/webhooks/endpoints/${id}`, undefined],
      ] as const) {
        expectError(
          await api(path, { apikey: m.apikey, method, ...(body && { body }) }),
          404,
          'not_found_error',
          'not_found',
        );
      }
    }
  });
});

describe('GET /v1/webhooks/event-catalog', () => {
  it('needs no authentication and lists canonical and legacy events', async () => {
    const reply = await api('/v1/webhooks/event-catalog');
    expect(reply.status).toBe(200);
    const byName = Object.fromEntries(reply.body.map((e: { event: string }) => [e.event, e]));
    for (const name of [
      'charge.created',
      'charge.paid',
      'charge.failed',
      'charge.expired',
      'payout.created',
      'payout.paid',
      'payout.failed',
      'med_case.created',
      'med_case.updated',
      'med.resolved',
    ]) {
      expect(byName[name]).toEqual({ event: name, description: expect.any(String) });
    }
    for (const name of [
      'payment.created',
      'payment.completed',
      'payment.failed',
      'payment.expired',
      'payment.refunded',
      'payment.status_changed',
      'withdrawal.status_changed',
    ]) {
      expect(byName[name]).toEqual({ event: name, description: expect.any(String), legacy: true });
    }
  });
});

describe('GET /v1/webhooks/deliveries and /stats', () => {
  it('validates the query', async () => {
    for (const [query, param] of [
      ['status=SENT', 'status'],
      ['eventType=charge.pay', 'eventType'],
      ['endpointId=x', 'endpointId'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['offset=-1', 'offset'],
      ['page=2', 'page'],
    ]) {
      const reply = await api(`/v1/webhooks/deliveries?${query}`, { apikey: m.apikey });
      expectError(reply, 400, 'invalid_request_error', 'invalid_request');
      expect(reply.body.error.param).toBe(param);
    }
    const status = await api('/v1/webhooks/deliveries?status=delivered', { apikey: m.apikey });
    expect(status.body.error.message).toBe(
      'Invalid status: Must be one of PENDING, PROCESSING, DELIVERED, FAILED, CANCELLED.',
    );
    const eventType = await api('/v1/webhooks/deliveries?eventType=charge.pay', { apikey: m.apikey });
    expect(eventType.body.error.message).toMatch(
      /^Invalid eventType: Must be one of charge\.created, .*charge\.paid/,
    );
  });

  it('starts empty for a new account', async () => {
    const fresh = await merchant();
    expect((await api('/v1/webhooks/deliveries', { apikey: fresh.apikey })).body).toEqual({
      data: [],
      total: 0,
      limit: 25,
      offset: 0,
    });
    expect((await api('/v1/webhooks/stats', { apikey: fresh.apikey })).body).toEqual({
      total: 0,
      PENDING: 0,
      PROCESSING: 0,
      DELIVERED: 0,
      FAILED: 0,
      CANCELLED: 0,
    });
  });
});
