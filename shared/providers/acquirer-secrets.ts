/**
 * Each account's acquirer secret (`AcquirerSecret`: client id and secret, certificate and key,
 * the PSP's CA), written by `npm run admin -- set-provider` and read only by the functions that
 * call the acquirer. Deployed: one Secrets Manager secret per account (`<prefix><accountId>`).
 * Locally: one JSON file per account under the data folder, mode 0600 in a 0700 folder. Reads are
 * cached five minutes per process (a rotated secret applies within that); nothing here logs.
 */

import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { config } from '../config.ts';
import type { AcquirerSecret } from '../domain/acquirer.ts';

const CACHE_MS = 5 * 60_000;
const cache = new Map<string, { secret: Promise<AcquirerSecret>; until: number }>();

function where(): { prefix: string } | { dir: string } {
  const prefix = config.acquirerSecretPrefix;
  if (prefix) return { prefix };
  const dir = config.acquirerSecretsDir;
  if (dir) return { dir };
  throw new Error(
    'No acquirer secret store: set ACQUIRER_SECRET_PREFIX (AWS) or ACQUIRER_SECRETS_DIR (local)',
  );
}

/**
 * Where acquirer secrets go (Secrets Manager deployed, files locally); throws unless a store is
 * configured: `set-provider` asks before it points the PSP at a new callback token, which a
 * failed secret write would leave the table without.
 */
export function acquirerSecretStore(): 'aws' | 'local' {
  return 'prefix' in where() ? 'aws' : 'local';
}

const secretsManager = async () => {
  const sdk = await import('@aws-sdk/client-secrets-manager');
  return { sdk, client: new sdk.SecretsManagerClient({}) };
};

async function readSecret(accountId: string): Promise<AcquirerSecret> {
  const store = where();
  if ('dir' in store) return JSON.parse(readFileSync(join(store.dir, `${accountId}.json`), 'utf8'));
  const { sdk, client } = await secretsManager();
  const { SecretString } = await client.send(
    new sdk.GetSecretValueCommand({ SecretId: `${store.prefix}${accountId}` }),
  );
  if (!SecretString) throw new Error(`The acquirer secret of ${accountId} is empty`);
  return JSON.parse(SecretString);
}

/** The account's acquirer secret (cached; a failed read is not cached). */
export function getAcquirerSecret(accountId: string): Promise<AcquirerSecret> {
  const hit = cache.get(accountId);
  if (hit && hit.until > Date.now()) return hit.secret;
  const secret = readSecret(accountId);
  cache.set(accountId, { secret, until: Date.now() + CACHE_MS });
  secret.catch(() => cache.delete(accountId));
  return secret;
}

/** Creates or replaces the account's acquirer secret (the admin CLI's `set-provider`). */
export async function putAcquirerSecret(accountId: string, secret: AcquirerSecret): Promise<void> {
  const store = where();
  cache.delete(accountId);
  if ('dir' in store) {
    mkdirSync(store.dir, { recursive: true, mode: 0o700 });
    chmodSync(store.dir, 0o700);
    const file = join(store.dir, `${accountId}.json`);
    writeFileSync(file, JSON.stringify(secret), { mode: 0o600 });
    chmodSync(file, 0o600);
    return;
  }
  const { sdk, client } = await secretsManager();
  const name = `${store.prefix}${accountId}`;
  try {
    await client.send(
      new sdk.PutSecretValueCommand({ SecretId: name, SecretString: JSON.stringify(secret) }),
    );
  } catch (error) {
    if ((error as { name?: string }).name !== 'ResourceNotFoundException') throw error;
    await client.send(
      new sdk.CreateSecretCommand({
        Name: name,
        SecretString: JSON.stringify(secret),
        Description: `Pix acquirer credentials of ${accountId}`,
      }),
    );
  }
}
