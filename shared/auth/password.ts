/**
 * Password hashing with scrypt (memory-hard, built into Node). The stored form carries its
 * parameters, so raising them leaves existing hashes valid: a hash made with other parameters
 * is replaced at its user's next login (`needsRehash`). The parameters and why: README, "Password hashes".
 */

import { randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCallback) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/** 16 MiB of memory (128 · N · r) and p = 5 passes. */
const PASSWORD_PARAMS: ScryptParams = { N: 16384, r: 8, p: 5 };
const KEY_LENGTH = 32;

/** `params` other than the current ones only to make an older hash (tests of the upgrade). */
export async function hashPassword(
  password: string,
  params: ScryptParams = PASSWORD_PARAMS,
): Promise<string> {
  const salt = randomBytes(16);
  const derived = await scrypt(password, salt, KEY_LENGTH, { ...params, maxmem: 64 * 1024 * 1024 });
  return [
    'scrypt',
    params.N,
    params.r,
    params.p,
    salt.toString('base64url'),
    derived.toString('base64url'),
  ].join('$');
}

/** Whether a stored hash was made with other parameters than the current ones. */
export const needsRehash = (stored: string): boolean =>
  !stored.startsWith(`scrypt$${PASSWORD_PARAMS.N}$${PASSWORD_PARAMS.r}$${PASSWORD_PARAMS.p}$`);

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const derived = await scrypt(password, Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: 64 * 1024 * 1024,
  });
  return timingSafeEqual(derived, expected);
}

/**
 * A valid hash of a random password: login verifies against it when the e-mail is unknown, so
 * the response time does not reveal which e-mails have accounts.
 */
export const decoyHash = hashPassword(randomBytes(16).toString('hex'));
