import { issueSessionToken } from '#shared/auth/jwt.ts';
import { decoyHash, hashPassword, needsRehash, verifyPassword } from '#shared/auth/password.ts';
import { config } from '#shared/config.ts';
import { LoginBody, type User } from '#shared/domain/auth.ts';
import { InvalidInput } from '#shared/domain/errors.ts';
import { parseInput } from '#shared/domain/validation.ts';
import { unauthorized } from '#shared/http/errors.ts';
import { releaseLoginAttempt, reserveLoginAttempt } from '#shared/http/login-limit.ts';
import type { RouteHandler } from '#shared/http/types.ts';
import { errorFields, log } from '#shared/log.ts';
import { findUserByEmail, listMembershipsOfUser, replacePasswordHash } from '#shared/store/users.ts';

const INVALID = 'Invalid e-mail or password.';

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
 * POST /v1/auth/login: e-mail + password → dashboard JWT for one account. Failed logins are
 * limited per e-mail address, per source and overall (shared/http/login-limit.ts).
 */
export const login: RouteHandler<undefined> = async ({ body, sourceIp }) => {
  const input = parseInput(LoginBody, body, 'body');
  // The attempt counts against the address before any password is checked, known address or
  // not: past the failed-login limit this is 429, with no scrypt either way.
  const [attempt, user] = await Promise.all([
    reserveLoginAttempt(input.email, sourceIp),
    findUserByEmail(input.email),
  ]);
  // Unknown e-mails still pay for one scrypt, so timing does not reveal who has an account.
  const valid = await verifyPassword(input.password, user?.passwordHash ?? (await decoyHash));
  if (!user || !valid) throw unauthorized(INVALID);

  // The right password is not a failed login: its attempt is taken back.
  const [memberships] = await Promise.all([
    listMembershipsOfUser(user.id),
    releaseLoginAttempt(attempt),
    needsRehash(user.passwordHash) && upgradePasswordHash(user, input.password),
  ]);
  const membership = input.account_id
    ? memberships.find((m) => m.accountId === input.account_id)
    : memberships.length === 1
      ? memberships[0]
      : undefined;
  if (!membership && !input.account_id && memberships.length > 1) {
    throw new InvalidInput('This user belongs to several accounts: send account_id.', {
      param: 'account_id',
    });
  }
  if (!membership) throw unauthorized(INVALID);

  const { token } = await issueSessionToken(user.id, membership.accountId);
  return {
    status: 200,
    body: {
      token,
      token_type: 'Bearer',
      expires_in: config.jwtTtlSeconds,
      account_id: membership.accountId,
      role: membership.role,
    },
  };
};
