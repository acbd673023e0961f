import { describe, expect, it } from 'vitest';
import { decoyHash, hashPassword, needsRehash, verifyPassword } from '../../shared/auth/password.ts';

describe('password hashing', () => {
  it('stores scrypt with its parameters and a random salt', async () => {
    const [a, b] = await Promise.all([hashPassword('correct horse'), hashPassword('correct horse')]);
    expect(a).toMatch(/^scrypt\$16384\$8\$5\$[\w-]+\$[\w-]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('correct horse');
  });

  it('verifies the right password only', async () => {
    const stored = await hashPassword('correct horse');
    expect(await verifyPassword('correct horse', stored)).toBe(true);
    expect(await verifyPassword('correct hors', stored)).toBe(false);
    expect(await verifyPassword('correct horse', 'md5$abc')).toBe(false);
  });

  it('verifies a hash of older parameters, and says it needs replacing', async () => {
    const older = await hashPassword('correct horse', { N: 16384, r: 8, p: 1 });
    expect(older).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(await verifyPassword('correct horse', older)).toBe(true);
    expect(needsRehash(older)).toBe(true);
    expect(needsRehash(await hashPassword('correct horse'))).toBe(false);
  });

  it('has a decoy hash no guess matches', async () => {
    expect(await verifyPassword('', await decoyHash)).toBe(false);
  });
});
