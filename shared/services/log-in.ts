/**
 * Logging in to the dashboard: an e-mail and password → a session token for one of the user's
 * accounts. Failed logins are limited per e-mail address, per source and overall
 * (`login-limit.ts`), and the attempt is counted before any password is checked.
 */

import { issueSessionToken } from '../auth/jwt.ts';
import { decoyHash, hashPassword, needsRehash, verifyPassword } from '../auth/password.ts';
import { type LoginBody, loginMembership, type Role, type User } from '../domain/auth.ts';
import { InvalidInput, Unauthenticated } from '../domain/errors.ts';
import { errorFields, log } from '../log.ts';
import { findUserByEmail, listMembershipsOfUser, replacePasswordHash } from '../store/users.ts';
import { abandonLoginAttempt, releaseLoginAttempt, reserveLoginAttempt } from './login-limit.ts';

/** One message for an unknown address, a wrong password and an account the user is not in. */
const INVALID = 'Invalid e-mail or password.';

interface Session {
  token: string;
  accountId: string;
  role: Role;
}

/**
 * A hash made with older scrypt parameters is replaced by one with the current ones, now that
 * the password is known. Best effort: a failure is logged, and the next login tries again.
 */
async function upgradePasswordHash(user: User, password: string): Promise<void> {
  try {
    await replacePasswordHash(user.email, user.passwordHash, await hashPassword(password));
  } catch (error) {
    log.warn('password hash upgrade failed', { userId: user.id, ...errorFields(error) });
  }
}

/**
 * Throws `TooManyAttempts` past the failed-login limit, `Unauthenticated` for a wrong address,
 * password or account, and `InvalidInput` (`account_id`) when the user belongs to several
 * accounts and names none.
 */
export async function logIn(input: LoginBody, sourceIp: string): Promise<Session> {
  // The attempt counts against the address before any password is checked, known address or
  // not: past the failed-login limit this is 429, with no scrypt either way.
  const [reserved, found] = await Promise.allSettled([
    reserveLoginAttempt(input.email, sourceIp),
    findUserByEmail(input.email),
  ]);
  if (reserved.status === 'rejected') throw reserved.reason;
  const attempt = reserved.value;
  let user: User | undefined;
  let valid: boolean;
  try {
    if (found.status === 'rejected') throw found.reason;
    user = found.value;
    // Unknown e-mails still pay for one scrypt, so timing does not reveal who has an account.
    valid = await verifyPassword(input.password, user?.passwordHash ?? (await decoyHash));
  } catch (error) {
    // No password was checked (the table failed): not a failed login, so its attempt is taken back.
    await abandonLoginAttempt(attempt).catch(() => undefined);
    throw error;
  }
  if (!user || !valid) throw new Unauthenticated(INVALID);

  // The right password is not a failed login: its attempt is taken back.
  const [memberships] = await Promise.all([
    listMembershipsOfUser(user.id),
    releaseLoginAttempt(attempt),
    needsRehash(user.passwordHash) && upgradePasswordHash(user, input.password),
  ]);
  const membership = loginMembership(memberships, input.account_id);
  if (membership === 'ambiguous') {
    throw new InvalidInput('This user belongs to several accounts: send account_id.', {
      param: 'account_id',
    });
  }
  if (!membership) throw new Unauthenticated(INVALID);

  const { token } = await issueSessionToken(user.id, membership.accountId);
  return { token, accountId: membership.accountId, role: membership.role };
}
