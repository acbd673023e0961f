/**
 * API key material. Keys carry 192 random bits, so a fast SHA-256 is the right storage hash
 * (a slow password hash would only add latency to every request; there is nothing to brute
 * force). The cleartext never leaves the create/rotate response.
 */

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

import type { Mode as KeyMode } from '../domain/scope.ts';

const KEY_PATTERN = /^ak_(live|test)_[A-Za-z0-9_-]{32}$/;

interface IssuedKeyMaterial {
  apiKey: string;
  hash: string;
  fingerprint: string;
  prefix: string;
}

/** `ak_live_` or `ak_test_` followed by 24 random bytes in base64url (32 characters). */
export function generateApiKey(mode: KeyMode): IssuedKeyMaterial {
  const apiKey = `ak_${mode}_${randomBytes(24).toString('base64url')}`;
  return {
    apiKey,
    hash: hashApiKey(apiKey),
    fingerprint: fingerprintOf(apiKey),
    prefix: apiKey.slice(0, 12),
  };
}

/** The lookup hash stored instead of the key: hex SHA-256. */
export const hashApiKey = (apiKey: string): string => createHash('sha256').update(apiKey).digest('hex');

/**
 * A display fingerprint for logs and the audit trail: `fp_` + 24 hex chars of a SHA-256 taken
 * over a distinct prefix, so it reveals nothing of the stored lookup hash.
 */
export const fingerprintOf = (apiKey: string): string =>
  `fp_${createHash('sha256').update(`fingerprint:${apiKey}`).digest('hex').slice(0, 24)}`;

/** Returns the key's mode when it is well formed; whitespace or any other byte makes it invalid. */
export function parseApiKey(value: string): KeyMode | undefined {
  const match = KEY_PATTERN.exec(value);
  return match ? (match[1] as KeyMode) : undefined;
}

/** Constant-time equality of two hex digests. */
export function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
