/** The API Pix transport's reading of a token answer's lifetime. */

import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TOKEN_LIFETIME_SECONDS,
  tokenLifetimeSeconds,
} from '../../shared/providers/api-pix/transport.ts';

describe('tokenLifetimeSeconds', () => {
  it('uses expires_in when the PSP sends it', () => {
    expect(tokenLifetimeSeconds(3600)).toBe(3600);
  });

  it('assumes 300 s when expires_in is absent or unusable (RFC 6749 §5.1: recommended, not required)', () => {
    expect(DEFAULT_TOKEN_LIFETIME_SECONDS).toBe(300);
    for (const missing of [undefined, null, '3600', 0, -5, Number.NaN])
      expect(tokenLifetimeSeconds(missing)).toBe(300);
  });
});
