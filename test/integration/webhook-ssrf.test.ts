/**
 * The SSRF guard on real connections: a hostname is checked on the addresses it resolves to,
 * and the request then goes to exactly the checked address, so a DNS answer that changes
 * between check and connect (rebinding) cannot redirect it.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DestinationError, type Resolver, resolveDestination } from '../../shared/webhooks/destination.ts';
import { postWebhook } from '../../shared/webhooks/post.ts';
import { merchant } from '../helpers/charges.ts';
import { api, expectError } from '../helpers/http.ts';
import { Receiver } from '../helpers/webhook-receiver.ts';

const local = { allowHttp: true, allowLoopback: true };
const deployed = { allowHttp: false, allowLoopback: false };
const answering =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

let receiver: Receiver;
let port: string;
beforeAll(async () => {
  receiver = new Receiver();
  port = new URL(await receiver.start()).port;
});
afterAll(() => receiver.stop());

describe('a hostname resolving to a forbidden address', () => {
  it.each([
    ['loopback', '127.0.0.1'],
    ['private', '10.0.0.7'],
    ['link-local', '169.254.1.1'],
    ['metadata', '169.254.169.254'],
    ['CGNAT', '100.100.100.200'],
    ['unique-local', 'fd00::5'],
    ['IPv6 metadata', 'fd00:ec2::254'],
    ['IPv4-mapped', '::ffff:10.0.0.1'],
    ['NAT64', '64:ff9b::169.254.169.254'],
    ['IPv4-compatible', '::a00:1'],
    ['6to4 of private', '2002:a00:1::1'],
    ['site-local', 'fec0::1'],
    ['Teredo', '2001::1'],
  ])('is rejected when deployed (%s)', async (_label, address) => {
    await expect(
      resolveDestination('https://hooks.example.com/x', deployed, answering(address)),
    ).rejects.toThrow(DestinationError);
  });

  it('is rejected when any of its addresses is forbidden', async () => {
    await expect(
      resolveDestination('https://hooks.example.com/x', deployed, answering('93.184.216.34', '10.0.0.1')),
    ).rejects.toThrow(/forbidden/);
  });

  it('is rejected over plain http when deployed, and a public one is accepted over https', async () => {
    await expect(
      resolveDestination('http://hooks.example.com/x', deployed, answering('93.184.216.34')),
    ).rejects.toThrow(/https/);
    await expect(
      resolveDestination('https://hooks.example.com/x', deployed, answering('93.184.216.34')),
    ).resolves.toMatchObject({ address: '93.184.216.34' });
  });
});

describe('a hostname whose lookup does not answer', () => {
  it('fails within the time it is given, as a destination error, while the lookup still hangs', async () => {
    const hanging: Resolver = () => new Promise(() => {});
    const failure = await resolveDestination('https://hooks.example.com/x', deployed, hanging, 50).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(DestinationError);
    // Retried as a timeout is (at least a minute later), not as a refusal.
    expect(failure).toMatchObject({
      message: 'DNS lookup of hooks.example.com timed out after 50 ms',
      timedOut: true,
    });
  });
});

// Registration runs the same check as each delivery (shared/webhooks/destination.ts): these
// IPv6 literals reach private IPv4 space or deprecated ranges (review finding, SSRF).
describe('registering an endpoint at a deprecated or IPv4-embedding IPv6 address', () => {
  let apikey: string;
  beforeAll(async () => {
    ({ apikey } = await merchant());
  });
  it.each([
    ['IPv4-compatible private (hex)', 'http://[::a00:1]/'],
    ['IPv4-compatible private (dotted)', 'http://[::10.0.0.1]/'],
    ['IPv4-compatible loopback', 'http://[::7f00:1]:7531/'],
    ['6to4 of a private address', 'http://[2002:a00:1::1]/'],
    ['site-local', 'http://[fec0::1]/'],
    ['Teredo', 'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/'],
  ])('is 400 with param url (%s)', async (_label, url) => {
    const reply = await api('/v1/webhooks/endpoints', { apikey, body: { url, events: ['charge.paid'] } });
    expectError(reply, 400, 'invalid_request_error', 'invalid_request');
    expect(reply.body.error.param).toBe('url');
    expect(reply.body.error.message).toMatch(/forbidden address/);
  });
});

describe('DNS rebinding', () => {
  it('connects to the address that was checked, never resolving again', async () => {
    let lookups = 0;
    // First answer: the (allowed) local receiver; any later answer would be a private address.
    const rebinding: Resolver = async () => {
      lookups++;
      return [{ address: lookups === 1 ? '127.0.0.1' : '10.0.0.1', family: 4 }];
    };
    const destination = await resolveDestination(`http://rebind.example.test:${port}/hook`, local, rebinding);
    const result = await postWebhook(
      destination,
      '{"ok":true}',
      { 'Content-Type': 'application/json' },
      2000,
    );
    expect(result.statusCode).toBe(200);
    expect(lookups).toBe(1);
    const request = receiver.received.at(-1);
    expect(request?.headers.host).toBe(`rebind.example.test:${port}`);
    expect(request?.body).toBe('{"ok":true}');
  });

  it('refuses a host whose check-time answer is already forbidden', async () => {
    const rebinding: Resolver = async () => [{ address: '169.254.169.254', family: 4 }];
    await expect(
      resolveDestination(`http://rebind.example.test:${port}/hook`, local, rebinding),
    ).rejects.toThrow(/forbidden/);
  });
});

describe('delivery failures are reported, not thrown', () => {
  it('reports a refused connection and a DNS failure', async () => {
    const refused = await postWebhook(
      { url: new URL('http://127.0.0.1:1/x'), address: '127.0.0.1', family: 4 },
      '{}',
      {},
      1000,
    );
    expect(refused.error).toMatch(/ECONNREFUSED/);
    await expect(resolveDestination('https://does-not-exist.invalid/x', deployed)).rejects.toThrow(
      /DNS lookup/,
    );
  });
});
