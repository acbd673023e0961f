/**
 * Dashboard session tokens: HS256 JWTs (via `jose`) carrying the user and the account they act
 * for. The signing secret comes from Secrets Manager when deployed (fetched once per cold
 * start) and from `JWT_SECRET` locally.
 */

import { hkdfSync, randomUUID } from 'node:crypto';
import { errors, jwtVerify, SignJWT } from 'jose';
import { config } from '../config.ts';
import type { SessionClaims } from '../domain/auth.ts';

const ISSUER = 'pix-service';
const AUDIENCE = 'dashboard';

let secretPromise: Promise<Uint8Array> | undefined;

async function loadSecret(): Promise<Uint8Array> {
  if (config.jwtSecret) return new TextEncoder().encode(config.jwtSecret);
  const arn = config.jwtSecretArn;
  if (!arn) throw new Error('Missing required environment variable JWT_SECRET_ARN (or JWT_SECRET locally)');
  // Imported lazily so functions that never sign or verify tokens do not bundle the client.
  const { SecretsManagerClient, GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
  const { SecretString } = await new SecretsManagerClient({}).send(
    new GetSecretValueCommand({ SecretId: arn }),
  );
  if (!SecretString) throw new Error('JWT secret is empty');
  return new TextEncoder().encode(SecretString);
}

const signingSecret = (): Promise<Uint8Array> => {
  secretPromise ??= loadSecret().catch((error: unknown) => {
    secretPromise = undefined;
    throw error;
  });
  return secretPromise;
};

let loginKey: Promise<Uint8Array> | undefined;

/**
 * The key the failed-login limit hashes addresses and sources with (`loginLimitSubject`), derived
 * from the signing secret (HKDF, its own label), so a stored hash cannot be reversed by trying
 * every IPv4 address or a list of e-mails without the secret. A new secret starts the counters
 * and known sources afresh, as it logs every session out.
 */
export const loginSubjectKey = (): Promise<Uint8Array> => {
  loginKey ??= signingSecret().then(
    (secret) => new Uint8Array(hkdfSync('sha256', secret, 'pix-service', 'login-attempt-subjects', 32)),
    (error: unknown) => {
      loginKey = undefined;
      throw error;
    },
  );
  return loginKey;
};

export async function issueSessionToken(
  userId: string,
  accountId: string,
): Promise<{ token: string; claims: SessionClaims }> {
  const now = Math.floor(Date.now() / 1000);
  const claims: SessionClaims = { userId, accountId, jti: randomUUID(), exp: now + config.jwtTtlSeconds };
  const token = await new SignJWT({ acct: accountId })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject(userId)
    .setJti(claims.jti)
    .setIssuedAt(now)
    .setExpirationTime(claims.exp)
    .sign(await signingSecret());
  return { token, claims };
}

/**
 * Verifies signature, algorithm, issuer, audience and expiry, and that the token lives no longer
 * than the service issues them for (`JWT_TTL_SECONDS`: a token minted with a far expiry, which
 * only a leaked secret allows, is still refused); `undefined` for any bad token.
 */
export async function verifySessionToken(token: string): Promise<SessionClaims | undefined> {
  try {
    const { payload } = await jwtVerify(token, await signingSecret(), {
      algorithms: ['HS256'],
      issuer: ISSUER,
      audience: AUDIENCE,
      maxTokenAge: config.jwtTtlSeconds,
    });
    const { sub, acct, jti, exp, iat } = payload;
    if (
      typeof sub !== 'string' ||
      typeof acct !== 'string' ||
      typeof jti !== 'string' ||
      typeof exp !== 'number' ||
      typeof iat !== 'number' ||
      exp - iat > config.jwtTtlSeconds
    ) {
      return undefined;
    }
    return { userId: sub, accountId: acct, jti, exp };
  } catch (error) {
    if (error instanceof errors.JOSEError) return undefined;
    throw error;
  }
}
