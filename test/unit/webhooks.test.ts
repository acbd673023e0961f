import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  dispatchErrorDelaySeconds,
  MAX_DELAY_SECONDS,
  parseRetryAfter,
  RETRY_DELAYS_SECONDS,
  retryDelaySeconds,
} from '../../shared/domain/retry-schedule.ts';
import { embeddedIPv4, isForbiddenAddress } from '../../shared/domain/ssrf.ts';
import { eventCatalog, usesLegacySignature } from '../../shared/domain/webhook-catalog.ts';
import { deliveryIdFor } from '../../shared/domain/webhook-deliveries.ts';
import { signatureHeader } from '../../shared/domain/webhook-signature.ts';
import { deliveryKey, eventKey } from '../../shared/store/keys.ts';
import { deliveryMessage } from '../../shared/store/webhook-deliveries.ts';
import { verifyAcmeSignature } from '../helpers/webhook-verifier.ts';

const strict = { allowLoopback: false };
const local = { allowLoopback: true };

describe('SSRF address policy', () => {
  it.each([
    ['loopback', '127.0.0.1'],
    ['loopback range', '127.8.8.8'],
    ['IPv6 loopback', '::1'],
    ['private 10/8', '10.1.2.3'],
    ['private 172.16/12', '172.31.255.255'],
    ['private 192.168/16', '192.168.0.10'],
    ['link-local', '169.254.10.10'],
    ['metadata', '169.254.169.254'],
    ['CGNAT', '100.64.0.1'],
    ['CGNAT top', '100.127.255.254'],
    ['unique-local', 'fd12:3456::1'],
    ['IPv6 metadata', 'fd00:ec2::254'],
    ['IPv6 link-local', 'fe80::1'],
    ['unspecified', '0.0.0.0'],
    ['IPv6 unspecified', '::'],
    ['multicast', '224.0.0.1'],
    ['IPv4-mapped loopback', '::ffff:127.0.0.1'],
    ['IPv4-mapped private (hex)', '::ffff:a00:1'],
    ['IPv4-mapped metadata', '::ffff:169.254.169.254'],
    ['NAT64 of private', '64:ff9b::10.0.0.1'],
    ['NAT64 of metadata (hex)', '64:ff9b::a9fe:a9fe'],
    // Review: deprecated and special IPv6 forms that reach private IPv4 space.
    ['IPv4-compatible private (hex)', '::a00:1'],
    ['IPv4-compatible private (dotted)', '::10.0.0.1'],
    ['IPv4-compatible loopback', '::7f00:1'],
    ['IPv4-compatible metadata', '::169.254.169.254'],
    ['6to4 of private', '2002:a00:1::1'],
    ['6to4 of metadata', '2002:a9fe:a9fe::1'],
    ['6to4 of loopback', '2002:7f00:1::'],
    ['site-local', 'fec0::1'],
    ['site-local top', 'feff:ffff::1'],
    ['Teredo', '2001::1'],
    ['Teredo with a server address', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
    ['SIIT of private', '::ffff:0:a00:1'],
    ['local-use NAT64 of private', '64:ff9b:1::a00:1'],
    ['discard', '100::1'],
    ['IPv6 documentation', '3fff::1'],
    ['a zone id', 'fe80::1%eth0'],
    ['not an address', 'example.com'],
  ])('forbids %s (%s)', (_label, address) => {
    expect(isForbiddenAddress(address, strict)).toBe(true);
  });

  it('allows public addresses, also when mapped', () => {
    for (const address of [
      '8.8.8.8',
      '2001:4860:4860::8888',
      '::ffff:8.8.8.8',
      '64:ff9b::8.8.4.4',
      '100.128.0.1',
      '2002:808:808::1', // 6to4 of 8.8.8.8: judged by the address inside
      '2606:4700:4700::1111',
    ]) {
      expect(isForbiddenAddress(address, strict)).toBe(false);
    }
  });

  it('allows exactly 127.0.0.1 in the local runtime, and no other internal address', () => {
    expect(isForbiddenAddress('127.0.0.1', local)).toBe(false);
    for (const address of ['127.0.0.2', '::1', '::ffff:127.0.0.1', '10.0.0.1', '169.254.169.254']) {
      expect(isForbiddenAddress(address, local)).toBe(true);
    }
  });

  it('reads the IPv4 inside mapped and NAT64 addresses', () => {
    expect(embeddedIPv4('::ffff:7f00:1')).toBe('127.0.0.1');
    expect(embeddedIPv4('64:ff9b::c0a8:101')).toBe('192.168.1.1');
    expect(embeddedIPv4('2001:db8::1')).toBeUndefined();
    expect(embeddedIPv4('2002:a00:1::1')).toBe('10.0.0.1');
    expect(embeddedIPv4('::ffff:0:a00:1')).toBe('10.0.0.1');
    expect(embeddedIPv4('::a00:1')).toBeUndefined(); // IPv4-compatible: refused whole, not judged
  });
});

describe('retry schedule', () => {
  const mid = () => 0.5;
  it('waits 10 s, 1 m, 5 m … 12 h (11 h 55 min at most) before attempts 2 to 15', () => {
    expect(RETRY_DELAYS_SECONDS).toHaveLength(14);
    expect(RETRY_DELAYS_SECONDS.map((_, i) => retryDelaySeconds({ attempt: i + 1 }, 1, mid))).toEqual([
      10, 60, 300, 1800, 3600, 7200, 14_400, 21_600, 28_800, 36_000, 42_900, 42_900, 42_900, 42_900,
    ]);
    // SQS refuses a visibility ending more than 12 h after the receive: the longest jittered wait,
    // set at the end of an attempt, must leave room for the attempt itself.
    expect(retryDelaySeconds({ attempt: 14 }, 1, () => 0.999_999)).toBe(MAX_DELAY_SECONDS);
    expect(MAX_DELAY_SECONDS).toBeLessThanOrEqual(43_200 - 60);
    expect(RETRY_DELAYS_SECONDS.reduce((t, d) => t + d, 0) / 86_400).toBeCloseTo(3.3, 1);
  });
  it('jitters by ±10 %', () => {
    expect(retryDelaySeconds({ attempt: 4 }, 1, () => 0)).toBe(1620);
    expect(retryDelaySeconds({ attempt: 4 }, 1, () => 0.999_999)).toBe(1980);
  });
  it('waits at least 60 s after a timeout or a 429, honours Retry-After up to the longest wait', () => {
    expect(retryDelaySeconds({ attempt: 1, timedOut: true }, 1, mid)).toBe(60);
    expect(retryDelaySeconds({ attempt: 1, statusCode: 429 }, 1, mid)).toBe(60);
    expect(retryDelaySeconds({ attempt: 1, statusCode: 429, retryAfterSeconds: 900 }, 1, mid)).toBe(900);
    expect(retryDelaySeconds({ attempt: 1, statusCode: 429, retryAfterSeconds: 10 * 86_400 }, 1, mid)).toBe(
      MAX_DELAY_SECONDS,
    );
    expect(retryDelaySeconds({ attempt: 1, statusCode: 500, retryAfterSeconds: 900 }, 1, mid)).toBe(10);
  });
  it('compresses the schedule for tests but never a receiver’s Retry-After', () => {
    expect(retryDelaySeconds({ attempt: 14 }, 0.0001, mid)).toBe(4);
    expect(retryDelaySeconds({ attempt: 1, statusCode: 429, retryAfterSeconds: 3 }, 0.0001, mid)).toBe(3);
  });
  it('hides a message whose dispatch failed (the table down) 1, 2, 4, 8, then 15 min: its 15 receives last about 3 h', () => {
    const delays = Array.from({ length: 15 }, (_, n) => dispatchErrorDelaySeconds(n + 1));
    expect(delays.slice(0, 6)).toEqual([60, 120, 240, 480, 900, 900]);
    expect(delays.reduce((t, d) => t + d, 0) / 3600).toBeCloseTo(3, 0);
    // A count SQS did not send, or one far past the DLQ's: as the first, and capped.
    expect(dispatchErrorDelaySeconds(0)).toBe(60);
    expect(dispatchErrorDelaySeconds(10_000)).toBe(900);
  });
  it('parses Retry-After seconds and HTTP dates', () => {
    expect(parseRetryAfter('120')).toBe(120);
    expect(parseRetryAfter(new Date(Date.now() + 30_000).toUTCString())).toBeGreaterThanOrEqual(29);
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});

describe('signatures', () => {
  const secret = 'a'.repeat(64);
  const body = '{"id":"evt_1","type":"charge.paid"}';
  it('signs canonical events t=,v1= over "t.body" and legacy ones sha256= over the body', () => {
    expect(signatureHeader('charge.paid', body, secret, 1_800_000_000)).toBe(
      `t=1800000000,v1=${createHmac('sha256', secret).update(`1800000000.${body}`).digest('hex')}`,
    );
    expect(signatureHeader('payment.completed', body, secret, 1_800_000_000)).toBe(
      `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
    );
    expect(usesLegacySignature('med_case.created')).toBe(false);
    expect(usesLegacySignature('withdrawal.created')).toBe(true);
  });
  it('verify with the independent verifier, and fail on a tampered body, a wrong secret or a stale timestamp', () => {
    const now = 1_800_000_000;
    const v1 = signatureHeader('charge.paid', body, secret, now);
    expect(verifyAcmeSignature(v1, body, secret, now)).toBe(true);
    expect(verifyAcmeSignature(v1, body.replace('paid', 'pain'), secret, now)).toBe(false);
    expect(verifyAcmeSignature(v1, body, 'b'.repeat(64), now)).toBe(false);
    expect(verifyAcmeSignature(v1, body, secret, now + 301)).toBe(false);
    expect(verifyAcmeSignature(v1, body, secret, now - 301)).toBe(false);
    const legacy = signatureHeader('payment.created', body, secret, now);
    expect(verifyAcmeSignature(legacy, body, secret, now)).toBe(true);
    expect(verifyAcmeSignature(legacy, `${body} `, secret, now)).toBe(false);
  });
});

describe('event catalog', () => {
  it('lists every canonical event and flags the legacy ones', () => {
    const canonical = eventCatalog.filter((e) => !e.legacy).map((e) => e.event);
    expect(canonical).toEqual([
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
    ]);
    expect(eventCatalog.filter((e) => e.legacy).every((e) => /^(payment|withdrawal)\./.test(e.event))).toBe(
      true,
    );
  });
});

describe('delivery queue messages', () => {
  const scope = { accountId: 'a', mode: 'test' } as const;
  const base = { ...deliveryKey(scope, 't', 'whd_1'), eventSk: eventKey(scope, 't', 'evt_1').sk };

  it('name the endpoint of an endpoint delivery', () => {
    expect(deliveryMessage({ ...base, endpointId: 'we_1' })).toEqual({ ...base, endpointId: 'we_1' });
  });

  it('mark a delivery to a webhookUrl override, which has no endpoint', () => {
    expect(deliveryMessage({ ...base, endpointId: null, url: 'https://shop.example/hook' })).toEqual({
      ...base,
      override: true,
    });
  });

  it('keep only the key of a delivery written before eventSk', () => {
    expect(deliveryMessage({ pk: base.pk, sk: base.sk, endpointId: 'we_1' })).toEqual({
      pk: base.pk,
      sk: base.sk,
    });
  });

  it('derive distinct delivery ids per destination', () => {
    const ids = new Set([
      deliveryIdFor('evt_1', { endpointId: 'we_1' }),
      deliveryIdFor('evt_1', { endpointId: 'we_2' }),
      deliveryIdFor('evt_1', { url: 'https://shop.example/hook' }),
      deliveryIdFor('evt_2', { url: 'https://shop.example/hook' }),
    ]);
    expect(ids.size).toBe(4);
    expect(deliveryIdFor('evt_1', { url: 'https://shop.example/hook' })).toBe(
      deliveryIdFor('evt_1', { url: 'https://shop.example/hook' }),
    );
  });
});
