/** Sets up accounts, members and keys directly in the test runtime's table (what the admin CLI does). */

import { randomUUID } from 'node:crypto';
import { hashPassword } from '../../shared/auth/password.ts';
import type { Role } from '../../shared/domain/auth.ts';
import { issueApiKey } from '../../shared/services/issue-api-key.ts';
import { createAccount } from '../../shared/store/accounts.ts';
import { createUser, putMembership } from '../../shared/store/users.ts';
import { login } from './http.ts';
import { assertLocalEndpoints } from './local-env.ts';

assertLocalEndpoints();

export interface TestMember {
  accountId: string;
  userId: string;
  email: string;
  password: string;
  token: string;
}

/** The accounts this test file created (the ledger invariant checks them after the file). */
export const accountsCreatedHere = new Set<string>();

export async function newAccount(options: Omit<Parameters<typeof createAccount>[0], 'name'> = {}) {
  const account = await createAccount({ name: `Test ${randomUUID().slice(0, 8)}`, ...options });
  accountsCreatedHere.add(account.id);
  return account;
}

/** A user with `role` in `accountId` (a new account when omitted), logged in. */
export async function newMember(role: Role, accountId?: string): Promise<TestMember> {
  const account = accountId ?? (await newAccount()).id;
  const email = `user-${randomUUID()}@example.com`;
  const password = randomUUID();
  const user = await createUser(email, await hashPassword(password));
  await putMembership(account, user.id, role);
  return { accountId: account, userId: user.id, email, password, token: await login(email, password) };
}

export async function newKey(accountId: string, mode: 'live' | 'test' = 'test'): Promise<string> {
  return (await issueApiKey({ accountId, mode, label: 'test', actorUserId: 'user_test_setup' })).apiKey;
}
