/**
 * The key that signs Pix location payloads (the JWS a payer's bank fetches from the BR Code's
 * location URL, as API Pix's `GET /{pixUrlAccessToken}`). ES256, derived with HKDF from a
 * service secret (Secrets Manager when deployed, `PIX_SIGNING_SECRET` locally), so no key file
 * has to be provisioned; the public half is served at `/.well-known/jwks.json`.
 */

import { createPrivateKey, createPublicKey, hkdfSync, type KeyObject } from 'node:crypto';
import { CompactSign, calculateJwkThumbprint, exportJWK, type JWK } from 'jose';
import { config } from '../config.ts';

let keyPromise: Promise<{ privateKey: KeyObject; publicJwk: JWK; kid: string }> | undefined;

async function loadSecret(): Promise<string> {
  if (config.pixSigningSecret) return config.pixSigningSecret;
  const arn = config.pixSigningSecretArn;
  if (!arn)
    throw new Error(
      'Missing required environment variable PIX_SIGNING_SECRET_ARN (or PIX_SIGNING_SECRET locally)',
    );
  const { SecretsManagerClient, GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
  const { SecretString } = await new SecretsManagerClient({}).send(
    new GetSecretValueCommand({ SecretId: arn }),
  );
  if (!SecretString) throw new Error('Pix signing secret is empty');
  return SecretString;
}

/** A P-256 private key whose scalar is `seed` (PKCS#8 without the optional public key). */
function p256KeyFromSeed(seed: Buffer): KeyObject {
  const prefix = Buffer.from('3041020100301306072a8648ce3d020106082a8648ce3d030107042730250201010420', 'hex');
  return createPrivateKey({ key: Buffer.concat([prefix, seed]), format: 'der', type: 'pkcs8' });
}

function signingKey() {
  keyPromise ??= (async () => {
    const seed = Buffer.from(
      hkdfSync('sha256', await loadSecret(), 'pix-service', 'pix-location-jws-es256', 32),
    );
    const privateKey = p256KeyFromSeed(seed);
    const publicJwk = await exportJWK(createPublicKey(privateKey));
    const kid = await calculateJwkThumbprint(publicJwk);
    return { privateKey, publicJwk: { ...publicJwk, kid, alg: 'ES256', use: 'sig' }, kid };
  })().catch((error: unknown) => {
    keyPromise = undefined;
    throw error;
  });
  return keyPromise;
}

/** Signs a JSON payload as a compact JWS whose header points at the JWKS (`jku`). */
export async function signPixPayload(payload: Record<string, unknown>, jwksUrl: string): Promise<string> {
  const { privateKey, kid } = await signingKey();
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: 'ES256', typ: 'JWS', kid, jku: jwksUrl })
    .sign(privateKey);
}

export async function pixSigningJwks(): Promise<{ keys: JWK[] }> {
  return { keys: [(await signingKey()).publicJwk] };
}
