import { describe, expect, it } from 'vitest';
import { decoyHash, hashPassword, verifyPassword } from '../../shared/auth/password.ts';

describe('password hashing', () => {
  it('stores scrypt with its parameters and a random salt', async () => {
    const [a, b] = await Promise.all([hashPassword('correct horse'), hashPassword('correct horse')]);
    expect(a).toMatch(/^scrypt\$16384\$8\$1\$[\w-]+\$[\w-]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('correct horse');
  });

  it('verifies the right password only', async () => {
    const stored = await hashPassword('correct horse');
    expect(await verifyPassword('correct horse', stored)).toBe(true);
    expect(await verifyPassword('correct hors', stored)).toBe(false);
    expect(await verifyPassword('correct horse', 'md5$abc')).toBe(false);
  });

  it('has a decoy hash no guess matches', async () => {
    expect(await verifyPassword('', await decoyHash)).toBe(false);
  });
});
