import { createHmac } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import * as v from 'valibot';

export const LoginBody = v.strictObject({
  email: v.pipe(v.string(), v.trim(), v.email('Must be an e-mail address'), v.maxLength(254)),
  password: v.pipe(v.string(), v.minLength(1, 'Required'), v.maxLength(1024)),
  /** Needed only when the user belongs to several accounts. */
  account_id: v.optional(v.pipe(v.string(), v.maxLength(64))),
});
export type LoginBody = v.InferOutput<typeof LoginBody>;

/** Dashboard roles (README, "API decisions"): any member lists keys; OWNER and ADMIN manage them. */
export const roles = ['OWNER', 'ADMIN', 'DEVELOPER', 'VIEWER'] as const;
export type Role = (typeof roles)[number];

export interface User {
  id: string;
  email: string;
  passwordHash: string;
  createdAt: string;
}

export interface Membership {
  accountId: string;
  userId: string;
  role: Role;
  createdAt: string;
}

export const normaliseEmail = (email: string): string => email.trim().toLowerCase();

/**
 * What the failed-login limit is keyed by: the HMAC-SHA-256 (hex) of the normalised e-mail under
 * `key` (`loginSubjectKey`, a secret), so an address typed at the login form, known or not, is
 * never stored in clear, nor as a hash anyone could match against a list of addresses.
 */
export const loginLimitSubject = (email: string, key: Uint8Array): string =>
  createHmac('sha256', key).update(normaliseEmail(email)).digest('hex');

/**
 * The network a login comes from, for the per-source failed-login limit: an IPv4 address (an
 * IPv4-mapped IPv6 one included), or an IPv6 address's /64, one subscriber's usual allocation,
 * so hopping between its addresses buys no attempts. A value that is no IP address (API Gateway
 * always sends one) is its own source.
 */
export function loginSource(sourceIp: string): string {
  if (!ipaddr.isValid(sourceIp)) return sourceIp;
  const address = ipaddr.process(sourceIp);
  if (address.kind() === 'ipv4') return address.toString();
  return `${(address as ipaddr.IPv6).parts
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(':')}::/64`;
}

/**
 * What the per-source limit is keyed by, beside the address's own: the HMAC-SHA-256 (hex) of the
 * source under `key`, so the 2^32 IPv4 addresses cannot be tried against it without the secret.
 */
export const loginSourceSubject = (sourceIp: string, key: Uint8Array): string =>
  createHmac('sha256', key).update(loginSource(sourceIp)).digest('hex');

/**
 * The membership a login opens a session for: the one of `accountId` when it is sent (an empty
 * one is not); otherwise
 * the user's only one, or `'ambiguous'` when there are several (the login must name one).
 * `undefined` when the user is no member of the account asked for, or of any.
 */
export function loginMembership(
  memberships: readonly Membership[],
  accountId: string | undefined,
): Membership | 'ambiguous' | undefined {
  if (accountId) return memberships.find((m) => m.accountId === accountId);
  return memberships.length > 1 ? 'ambiguous' : memberships[0];
}

/** What a dashboard session token carries. */
export interface SessionClaims {
  userId: string;
  accountId: string;
  /** Token id, the key of the logout deny-list. */
  jti: string;
  /** Expiry, epoch seconds. */
  exp: number;
}
