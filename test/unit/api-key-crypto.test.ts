import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  fingerprintOf,
  generateApiKey,
  hashApiKey,
  parseApiKey,
  sameDigest,
} from '../../shared/auth/api-key-crypto.ts';

describe('API key material', () => {
  it('generates ak_<mode>_ + 24 random bytes in base64url, with its 12-char prefix', () => {
    for (const mode of ['live', 'test'] as const) {
      const key = generateApiKey(mode);
      expect(key.apiKey).toMatch(new RegExp(`^ak_${mode}_[A-Za-z0-9_-]{32}$`));
      expect(Buffer.from(key.apiKey.slice(8), 'base64url')).toHaveLength(24);
      expect(key.prefix).toBe(key.apiKey.slice(0, 12));
      expect(key.hash).toBe(createHash('sha256').update(key.apiKey).digest('hex'));
      expect(key.fingerprint).toBe(fingerprintOf(key.apiKey));
    }
    expect(generateApiKey('live').apiKey).not.toBe(generateApiKey('live').apiKey);
  });

  it('derives a fingerprint that is stable and reveals nothing of the lookup hash', () => {
    const { apiKey, hash } = generateApiKey('test');
    expect(fingerprintOf(apiKey)).toBe(fingerprintOf(apiKey));
    expect(fingerprintOf(apiKey)).toMatch(/^fp_[0-9a-f]{24}$/);
    expect(hash).not.toContain(fingerprintOf(apiKey).slice(3));
  });

  it('parses only exact keys: whitespace, other modes and lengths are invalid', () => {
    const { apiKey } = generateApiKey('live');
    expect(parseApiKey(apiKey)).toBe('live');
    for (const bad of [
      ` ${apiKey}`,
      `${apiKey} `,
      `${apiKey}\n`,
      `\t${apiKey}`,
      apiKey.replace('live', 'prod'),
      apiKey.slice(0, -1),
      `${apiKey}A`,
      '',
    ]) {
      expect(parseApiKey(bad)).toBeUndefined();
    }
  });

  it('compares digests in constant time, false on any difference or length mismatch', () => {
    const digest = hashApiKey('a');
    expect(sameDigest(digest, hashApiKey('a'))).toBe(true);
    expect(sameDigest(digest, hashApiKey('b'))).toBe(false);
    expect(sameDigest(digest, digest.slice(0, 10))).toBe(false);
  });
});
