import { describe, expect, it } from 'vitest';
import { loginSource, loginSourceSubject } from '../../shared/domain/auth.ts';

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

  it('gives the addresses of one /64 one subject, and the next /64 another', () => {
    expect(loginSourceSubject('2001:db8:1:2::1')).toBe(loginSourceSubject('2001:db8:1:2:ffff::9'));
    expect(loginSourceSubject('2001:db8:1:3::1')).not.toBe(loginSourceSubject('2001:db8:1:2::1'));
    expect(loginSourceSubject('::ffff:127.0.0.2')).toBe(loginSourceSubject('127.0.0.2'));
    expect(loginSourceSubject('127.0.0.2')).toMatch(/^[0-9a-f]{64}$/);
  });
});
