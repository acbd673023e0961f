/**
 * Which addresses a webhook may never reach: loopback, private, link-local, CGNAT,
 * unique-local, cloud metadata, unspecified/multicast/reserved, and the IPv6 forms that embed
 * an IPv4 address (IPv4-mapped, SIIT, NAT64, 6to4) judged by the address inside. IPv6 is an
 * allow-list: only global unicast (2000::/3) may be reached, so deprecated or special forms
 * (IPv4-compatible ::/96, site-local fec0::/10, discard 100::/64, local-use NAT64) are refused
 * without each being listed. Range checks by `ipaddr.js` (README "Dependencies and why"), not by
 * hand-written bit math. Pure: the resolver and the HTTP client enforce it on real addresses.
 */

import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type Range<T> = [T, number];
const v4 = (cidr: string): Range<ipaddr.IPv4> => ipaddr.IPv4.parseCIDR(cidr);
const v6 = (cidr: string): Range<ipaddr.IPv6> => ipaddr.IPv6.parseCIDR(cidr);

const FORBIDDEN_IPV4 = [
  v4('0.0.0.0/8'), // "this network"
  v4('10.0.0.0/8'), // private
  v4('100.64.0.0/10'), // CGNAT
  v4('127.0.0.0/8'), // loopback
  v4('169.254.0.0/16'), // link-local, incl. 169.254.169.254 metadata
  v4('172.16.0.0/12'), // private
  v4('192.0.0.0/24'), // IETF protocol assignments
  v4('192.0.2.0/24'), // documentation
  v4('192.88.99.0/24'), // 6to4 relay
  v4('192.168.0.0/16'), // private
  v4('198.18.0.0/15'), // benchmarking
  v4('198.51.100.0/24'), // documentation
  v4('203.0.113.0/24'), // documentation
  v4('224.0.0.0/4'), // multicast
  v4('240.0.0.0/4'), // reserved, broadcast
];

/** The only IPv6 space a webhook may reach (IANA global unicast); everything outside is refused. */
const GLOBAL_UNICAST = v6('2000::/3');
/** Inside global unicast, still never reachable. */
const FORBIDDEN_IPV6 = [
  v6('2001::/23'), // IETF protocol assignments: Teredo 2001::/32, benchmarking, ORCHID
  v6('2001:db8::/32'), // documentation
  v6('3fff::/20'), // documentation (RFC 9637)
];

/** IPv6 ranges that carry an IPv4 address in their last 32 bits. */
const LAST_32_BITS = [
  v6('::ffff:0:0/96'), // IPv4-mapped
  v6('::ffff:0:0:0/96'), // SIIT (RFC 6145)
  v6('64:ff9b::/96'), // NAT64 well-known prefix (RFC 6052)
];
const SIX_TO_FOUR = v6('2002::/16'); // bits 16–47 are the IPv4 address (RFC 3056)

const ipv4From = (high: number, low: number): string =>
  [high >> 8, high & 255, low >> 8, low & 255].join('.');

/**
 * Parses an IPv6 literal as the WHATWG URL parser, and so the delivery's request, writes it
 * (`::10.0.0.1` → `::a00:1`; ipaddr.js alone would read it as `::ffff:a00:1`). Undefined when it
 * is no IPv6 literal (a zone id too: never a webhook's address), which the caller treats as forbidden.
 */
function parseIPv6(address: string): ipaddr.IPv6 | undefined {
  if (isIP(address) !== 6) return undefined;
  try {
    return ipaddr.IPv6.parse(new URL(`http://[${address}]/`).hostname.slice(1, -1));
  } catch {
    return undefined;
  }
}

/**
 * The IPv4 address carried by an IPv4-mapped, SIIT, NAT64 (`64:ff9b::/96`) or 6to4
 * (`2002::/16`) IPv6 address, dotted; undefined for any other address.
 */
export function embeddedIPv4(address: string): string | undefined {
  const ip = parseIPv6(address);
  if (!ip) return undefined;
  const [, p1 = 0, p2 = 0, , , , p6 = 0, p7 = 0] = ip.parts;
  if (LAST_32_BITS.some((range) => ip.match(range))) return ipv4From(p6, p7);
  if (ip.match(SIX_TO_FOUR)) return ipv4From(p1, p2);
  return undefined;
}

export interface AddressPolicy {
  /** Local development only: allow exactly 127.0.0.1. */
  allowLoopback: boolean;
}

export function isForbiddenAddress(address: string, policy: AddressPolicy): boolean {
  // Only the plain literal: a mapped or NAT64 form of 127.0.0.1 stays forbidden.
  if (policy.allowLoopback && address === '127.0.0.1') return false;
  // node:net's strict check first: ipaddr.js would also read forms such as 0x7f.1 as IPv4.
  const family = isIP(address);
  if (family === 4) return FORBIDDEN_IPV4.some((range) => ipaddr.IPv4.parse(address).match(range));
  const ip = family === 6 ? parseIPv6(address) : undefined;
  if (!ip) return true;
  const inner = embeddedIPv4(address);
  if (inner !== undefined) return isForbiddenAddress(inner, { allowLoopback: false });
  return !ip.match(GLOBAL_UNICAST) || FORBIDDEN_IPV6.some((range) => ip.match(range));
}
