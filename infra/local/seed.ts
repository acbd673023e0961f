/**
 * The demo account seeded on first start: an owner who can log in, one test and one live key.
 * Written to `<data dir>/demo.json` so scripts (and the tests) can use it.
 */

import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashPassword } from '../../shared/auth/password.ts';
import { issueApiKey } from '../../shared/services/issue-api-key.ts';
import { createAccount, getAccount } from '../../shared/store/accounts.ts';
import { createUser, findUserByEmail, putMembership } from '../../shared/store/users.ts';

export interface DemoAccount {
  account_id: string;
  email: string;
  password: string;
  test_api_key: string;
  live_api_key: string;
  base_url: string;
}

export async function seedDemoAccount(dataDir: string, baseUrl: string): Promise<DemoAccount> {
  const file = join(dataDir, 'demo.json');
  if (existsSync(file)) {
    const demo = JSON.parse(readFileSync(file, 'utf8')) as DemoAccount;
    if (await getAccount(demo.account_id)) {
      const current = { ...demo, base_url: baseUrl };
      writeFileSync(file, `${JSON.stringify(current, null, 2)}\n`);
      return current;
    }
  }
  const email = 'demo@example.com';
  const password = randomBytes(12).toString('base64url');
  // MED notices of the demo account show up in the SES emulator's viewer.
  const account = await createAccount({ name: 'Demo Store', settings: { contactEmail: email } });
  const existing = await findUserByEmail(email);
  const user = existing ?? (await createUser(email, await hashPassword(password)));
  await putMembership(account.id, user.id, 'OWNER');
  const test = await issueApiKey({
    accountId: account.id,
    mode: 'test',
    label: 'demo test key',
    actorUserId: user.id,
  });
  const live = await issueApiKey({
    accountId: account.id,
    mode: 'live',
    label: 'demo live key',
    actorUserId: user.id,
  });
  const demo: DemoAccount = {
    account_id: account.id,
    email,
    password: existing ? '(unchanged: see the earlier demo.json)' : password,
    test_api_key: test.apiKey,
    live_api_key: live.apiKey,
    base_url: baseUrl,
  };
  writeFileSync(file, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  return demo;
}
