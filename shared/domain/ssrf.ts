/**
 * Which addresses a webhook may never reach: loopback, private, link-local, CGNAT,
 * unique-local, cloud metadata, unspecified/multicast/reserved, and the IPv6 forms that embed
 * an IPv4 address (IPv4-mapped, NAT64) judged by the address inside. Pure: the resolver and
 * the HTTP client enforce it on real addresses.
 */

import { BlockList, isIPv4, isIPv6 } from 'node:net';

const forbidden = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, incl. 169.254.169.254 metadata
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  forbidden.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fc00::', 7], // unique-local, incl. fd00:ec2::254 metadata
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
  ['2001:db8::', 32], // documentation
  ['100::', 64], // discard
] as const) {
  forbidden.addSubnet(network, prefix, 'ipv6');
}

/** The IPv4 address carried by an IPv4-mapped (`::ffff:a.b.c.d`) or NAT64 (`64:ff9b::/96`) IPv6 address. */
export function embeddedIPv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::|::ffff:0:)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted?.[1]) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::|::ffff:0:)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex?.[1] && hex[2]) {
    const high = Number.parseInt(hex[1], 16);
    const low = Number.parseInt(hex[2], 16);
    return [high >> 8, high & 255, low >> 8, low & 255].join('.');
  }
  if (lower.startsWith('64:ff9b:') || lower.startsWith('::ffff:')) return '0.0.0.0';
  return undefined;
}

export interface AddressPolicy {
  /** Local development only: allow exactly 127.0.0.1. */
  allowLoopback: boolean;
}

export function isForbiddenAddress(address: string, policy: AddressPolicy): boolean {
  // Only the plain literal: a mapped or NAT64 form of 127.0.0.1 stays forbidden.
  if (policy.allowLoopback && address === '127.0.0.1') return false;
  const inner = isIPv6(address) ? embeddedIPv4(address) : undefined;
  const ip = inner ?? address;
  if (isIPv4(ip)) return forbidden.check(ip, 'ipv4');
  if (isIPv6(ip)) return forbidden.check(ip, 'ipv6');
  return true;
}
