/**
 * `npm run admin -- set-provider` (README, "Going live") against the local PSP: the callback
 * is registered at the PSP, the credentials are stored as an owner-only secret file and never in
 * the table or the output, and anything wrong (a key of another certificate, a PSP that refuses
 * the credentials, an http:// URL) changes nothing.
 */

import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { LocalPsp } from '../../infra/local/psp/server.ts';
import { callbackTokenHash } from '../../shared/domain/acquirer.ts';
import { getAccount } from '../../shared/store/accounts.ts';
import { db, tableName } from '../../shared/store/client.ts';
import { admin, adminRefused, adminRefusedWithEnv } from '../helpers/admin.ts';
import { testAwsEnv, testBaseUrl } from '../helpers/local-env.ts';
import { startPsp } from '../helpers/psp.ts';

let psp: LocalPsp;
let other: LocalPsp;
beforeAll(async () => {
  // A secret starting with '-' (as a random one may, the case a CI run met) must still be read as a value.
  [psp, other] = await Promise.all([startPsp({ clientSecret: '-starts-with-a-dash' }), startPsp()]);
});
afterAll(async () => {
  await Promise.all([psp?.stop(), other?.stop()]);
});

const providerArgs = (account: string, p: LocalPsp, overrides: Record<string, string> = {}) =>
  Object.entries({
    account,
    'base-url': p.baseUrl,
    'token-url': p.tokenUrl,
    'client-id': p.clientId,
    'client-secret': p.clientSecret,
    cert: p.files.clientCert,
    key: p.files.clientKey,
    ca: p.files.ca,
    'pix-key': p.pixKey,
    'api-url': testBaseUrl,
    ...overrides,
  }).map(([name, value]) => `--${name}=${value}`); // `=`: a generated secret may start with '-'

describe('set-provider', () => {
  it('registers the callback at the PSP and keeps the credentials out of the table and the output', async () => {
    const account = await admin('create-account', '--name', 'Live Merchant');
    const output = await admin('set-provider', ...providerArgs(account.id, psp));
    expect(output).toEqual({
      account: account.id,
      acquirer: 'api-pix',
      baseUrl: psp.baseUrl,
      callbackUrl: expect.stringMatching(
        new RegExp(`^${testBaseUrl}/v1/provider-callbacks/[A-Za-z0-9_-]{43}$`),
      ),
    });
    expect(JSON.stringify(output)).not.toContain(psp.clientSecret);
    // The PSP holds the callback for the merchant's key (it posts to `{webhookUrl}/pix`).
    expect(psp.bank.webhooks.get(psp.pixKey)?.webhookUrl).toBe(output.callbackUrl);

    const file = join(inject('dataDir'), 'acquirer', `${account.id}.json`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(inject('dataDir'), 'acquirer')).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      clientId: psp.clientId,
      clientSecret: psp.clientSecret,
      cert: readFileSync(psp.files.clientCert, 'utf8'),
      key: readFileSync(psp.files.clientKey, 'utf8'),
      ca: readFileSync(psp.files.ca, 'utf8'),
    });

    const token = String(output.callbackUrl).split('/').at(-1) as string;
    expect((await getAccount(account.id))?.acquirer).toEqual({
      kind: 'api-pix',
      baseUrl: psp.baseUrl,
      tokenUrl: psp.tokenUrl,
      pixKey: psp.pixKey,
      callbackTokenHash: callbackTokenHash(token),
      configuredAt: expect.any(String),
    });
    // Nowhere in the table: the secret, the key, or the callback token itself (every page of a
    // scan; booleans, so a failure does not print the table).
    const found = { hash: false, secret: false, token: false, key: false };
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await db.send(new ScanCommand({ TableName: tableName(), ExclusiveStartKey }));
      const text = JSON.stringify(page.Items ?? []);
      found.hash ||= text.includes(callbackTokenHash(token));
      found.secret ||= text.includes(psp.clientSecret);
      found.token ||= text.includes(token);
      found.key ||= text.includes('PRIVATE KEY');
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    expect(found).toEqual({ hash: true, secret: false, token: false, key: false });
  });

  it('setting it again replaces the callback; the old token no longer points at the account', async () => {
    const account = await admin('create-account', '--name', 'Live Merchant 2');
    const first = await admin('set-provider', ...providerArgs(account.id, psp));
    const second = await admin('set-provider', ...providerArgs(account.id, psp));
    expect(second.callbackUrl).not.toBe(first.callbackUrl);
    expect(psp.bank.webhooks.get(psp.pixKey)?.webhookUrl).toBe(second.callbackUrl);
    const { accountOfCallback } = await import('../../shared/store/accounts.ts');
    const tokenOf = (url: string) => callbackTokenHash(url.split('/').at(-1) as string);
    expect(await accountOfCallback(tokenOf(second.callbackUrl))).toBe(account.id);
    expect(await accountOfCallback(tokenOf(first.callbackUrl))).toBeUndefined();
  });

  it('reads the client secret from a file (off the command line), and refuses it given both ways', async () => {
    const account = await admin('create-account', '--name', 'Live Merchant 4');
    const secretFile = join(mkdtempSync(join(tmpdir(), 'psp-secret-')), 'secret.txt');
    writeFileSync(secretFile, `${psp.clientSecret}\n`, { mode: 0o600 });
    const { 'client-secret': _, ...withoutSecret } = Object.fromEntries(
      providerArgs(account.id, psp).map((arg) => arg.slice(2).split(/=(.*)/s).slice(0, 2)),
    );
    const args = Object.entries({ ...withoutSecret, 'client-secret-file': secretFile }).map(
      ([name, value]) => `--${name}=${value}`,
    );
    expect(await adminRefused('set-provider', ...args, `--client-secret=${psp.clientSecret}`)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('not both'),
    });
    const output = await admin('set-provider', ...args);
    expect(psp.bank.webhooks.get(psp.pixKey)?.webhookUrl).toBe(output.callbackUrl);
    const stored = JSON.parse(
      readFileSync(join(inject('dataDir'), 'acquirer', `${account.id}.json`), 'utf8'),
    );
    expect(stored.clientSecret).toBe(psp.clientSecret);
  });

  it('refuses a key of another certificate, credentials the PSP refuses and http:// URLs, storing nothing', async () => {
    const account = await admin('create-account', '--name', 'Live Merchant 3');
    const wrongKey = await adminRefused(
      'set-provider',
      ...providerArgs(account.id, psp, { key: other.files.clientKey }),
    );
    expect(wrongKey.code).toBe(2);
    expect(wrongKey.stderr).toContain('--key is not the private key of --cert');
    const wrongSecret = await adminRefused(
      'set-provider',
      ...providerArgs(account.id, psp, { 'client-secret': 'not-the-secret' }),
    );
    expect(wrongSecret.code).toBe(2);
    expect(wrongSecret.stderr).not.toContain('not-the-secret');
    const http = await adminRefused(
      'set-provider',
      ...providerArgs(account.id, psp, { 'base-url': psp.baseUrl.replace('https:', 'http:') }),
    );
    expect(http.stderr).toContain('baseUrl');
    expect(await adminRefused('set-provider', ...providerArgs('acct_nobody', psp))).toMatchObject({
      code: 2,
    });
    expect((await getAccount(account.id))?.acquirer).toBeUndefined();
    expect(() => statSync(join(inject('dataDir'), 'acquirer', `${account.id}.json`))).toThrow();
  });

  it('against AWS without ACQUIRER_SECRET_PREFIX, refuses before it touches the PSP', async () => {
    const account = await admin('create-account', '--name', 'Live Merchant 5');
    const first = await admin('set-provider', ...providerArgs(account.id, psp));
    // As an operator runs it against the stack with only TABLE_NAME set: no secret store.
    const { JWT_SECRET: _, ...awsEnv } = testAwsEnv;
    const refused = await adminRefusedWithEnv(awsEnv, 'set-provider', ...providerArgs(account.id, psp));
    expect(refused.stderr).toContain('ACQUIRER_SECRET_PREFIX');
    // The PSP still posts to the callback the table knows.
    expect(psp.bank.webhooks.get(psp.pixKey)?.webhookUrl).toBe(first.callbackUrl);
    expect((await getAccount(account.id))?.acquirer?.callbackTokenHash).toBe(
      callbackTokenHash(first.callbackUrl.split('/').at(-1) as string),
    );
  });

  it('against AWS, refuses a plain-HTTP --api-url before it touches the PSP: the callback URL carries its token', async () => {
    const account = await admin('create-account', '--name', 'Live Merchant 6');
    const first = await admin('set-provider', ...providerArgs(account.id, psp));
    const { JWT_SECRET: _, ...awsEnv } = testAwsEnv;
    const refused = await adminRefusedWithEnv(
      { ...awsEnv, ACQUIRER_SECRET_PREFIX: 'pix/acquirer/' },
      'set-provider',
      ...providerArgs(account.id, psp, { 'api-url': 'http://api.example.com' }),
    );
    expect(refused.stderr).toContain('--api-url must be an https:// URL');
    expect(psp.bank.webhooks.get(psp.pixKey)?.webhookUrl).toBe(first.callbackUrl);
  });
});
