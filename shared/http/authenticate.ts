/**
 * Authentication for the two kinds of caller, chosen per route by the manifest:
 * - `apikey` (merchants): the `apikey` header, compared exactly, resolved by its SHA-256 to a
 *   live key, then counted against the key's per-minute rate limit;
 * - `jwt` (dashboard): `Authorization: Bearer <token>`, verified, not logged out, and the
 *   user still a member of the token's account (role read live, not from the token).
 */

import { hashApiKey, parseApiKey, sameDigest } from '../auth/api-key-crypto.ts';
import { verifySessionToken } from '../auth/jwt.ts';
import { config } from '../config.ts';
import { getAccountCached } from '../store/accounts.ts';
import { findApiKeyByHash } from '../store/api-keys.ts';
import { countRequest } from '../store/rate-limit.ts';
import { activeMembership } from '../store/sessions.ts';
import { rateLimited, unauthorized } from './errors.ts';
import type { KeyPrincipal, UserPrincipal } from './types.ts';

interface KeyAuthentication {
  principal: KeyPrincipal;
  /** `X-RateLimit-*` headers for the response, whatever its status. */
  rateLimitHeaders: Record<string, string>;
}

export async function authenticateApiKey(headerValue: string | undefined): Promise<KeyAuthentication> {
  // No trimming: a key with surrounding whitespace is not the key (and fails the pattern).
  if (headerValue === undefined || parseApiKey(headerValue) === undefined) throw unauthorized();
  const hash = hashApiKey(headerValue);
  const key = await findApiKeyByHash(hash);
  if (!key || !sameDigest(key.hash, hash)) throw unauthorized();
  const principal: KeyPrincipal = {
    kind: 'apikey',
    accountId: key.accountId,
    mode: key.mode,
    keyId: key.keyId,
    fingerprint: key.fingerprint,
  };

  const [window, account] = await Promise.all([countRequest(key.keyId), getAccountCached(key.accountId)]);
  const limit = account?.rateLimitPerMinute ?? config.rateLimitPerMinute;
  const rateLimitHeaders = {
    'X-RateLimit-Limit-Minute': String(limit),
    'X-RateLimit-Remaining-Minute': String(Math.max(0, limit - window.count)),
  };
  if (window.count > limit) throw rateLimited(window.resetInSeconds, rateLimitHeaders);
  return { principal, rateLimitHeaders };
}

export async function authenticateUser(authorization: string | undefined): Promise<UserPrincipal> {
  // The scheme is case-insensitive (RFC 9110 §11.1).
  const match = /^Bearer ([A-Za-z0-9._-]+)$/i.exec(authorization ?? '');
  if (!match?.[1]) throw unauthorized('Missing or invalid dashboard token.');
  const claims = await verifySessionToken(match[1]);
  if (!claims) throw unauthorized('Missing or invalid dashboard token.');
  const membership = await activeMembership(claims);
  if (!membership) throw unauthorized('Missing or invalid dashboard token.');
  return {
    kind: 'user',
    accountId: claims.accountId,
    userId: claims.userId,
    role: membership.role,
    jti: claims.jti,
    exp: claims.exp,
  };
}
