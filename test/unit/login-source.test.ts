import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loginLimitSubject, loginSource, loginSourceSubject } from '../../shared/domain/auth.ts';

describe('loginSource: what the per-source failed-login limit counts by', () => {
  it.each([
    ['an IPv4 address', '203.0.113.7', '203.0.113.7'],
    ['an IPv4-mapped IPv6 address, as its IPv4 address', '::ffff:203.0.113.7', '203.0.113.7'],
    ['an IPv6 address, as its /64', '2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
    ['a shortened IPv6 address, as its /64', '2001:db8::1', '2001:db8:0:0::/64'],
    ['a value that is no address, as itself', 'unknown', 'unknown'],
  ])('keys %s', (_, sourceIp, source) => {
    expect(loginSource(sourceIp)).toBe(source);
  });

  const key = new Uint8Array(32).fill(7);
  const subject = (sourceIp: string) => loginSourceSubject(sourceIp, key);

  it('gives the addresses of one /64 one subject, and the next /64 another', () => {
    expect(subject('2001:db8:1:2::1')).toBe(subject('2001:db8:1:2:ffff::9'));
    expect(subject('2001:db8:1:3::1')).not.toBe(subject('2001:db8:1:2::1'));
    expect(subject('::ffff:127.0.0.2')).toBe(subject('127.0.0.2'));
    expect(subject('127.0.0.2')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is keyed: no plain hash anyone could compute from the address, and another key gives another subject', () => {
    for (const [sourceIp, plain] of [
      ['203.0.113.7', '203.0.113.7'],
      ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ] as const) {
      expect(subject(sourceIp)).not.toBe(createHash('sha256').update(plain).digest('hex'));
      expect(loginSourceSubject(sourceIp, new Uint8Array(32).fill(8))).not.toBe(subject(sourceIp));
    }
    expect(loginLimitSubject('Ana@Example.com ', key)).toBe(loginLimitSubject('ana@example.com', key));
    expect(loginLimitSubject('ana@example.com', key)).not.toBe(
      createHash('sha256').update('ana@example.com').digest('hex'),
    );
  });
});
