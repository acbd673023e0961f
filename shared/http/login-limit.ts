/**
 * The failed-login limit of `POST /v1/auth/login`, per e-mail address (keyed by its hash, so
 * an unknown address is limited exactly like a known one): at most `config.loginFailureLimit`
 * failed logins in a window of `config.loginFailureWindowSeconds` that starts at the address's
 * first counted attempt; beyond them every login for the address, the right password included,
 * is 429 `rate_limited` with `Retry-After` until the window is over.
 *
 * Every attempt is counted BEFORE its password is checked (one atomic `ADD`), and one whose
 * password is right is taken back: so a burst of parallel guesses gets at most the limit's
 * worth of password checks (the others are refused without one), while a user who logs in
 * successfully spends nothing. A refused attempt runs no scrypt, known address or not.
 */

import { config } from '../config.ts';
import { loginLimitSubject } from '../domain/auth.ts';
import { countLoginAttempt, uncountLoginAttempt } from '../store/rate-limit.ts';
import { rateLimited } from './errors.ts';

/** An attempt counted against its address: `releaseLoginAttempt` takes it back. */
export interface LoginAttempt {
  subject: string;
  windowEndsAt: number;
}

/** Counts a login attempt for `email`, or throws 429 when its address has no attempt left. */
export async function reserveLoginAttempt(email: string, now = Date.now()): Promise<LoginAttempt> {
  const subject = loginLimitSubject(email);
  const window = await countLoginAttempt(subject, config.loginFailureWindowSeconds * 1000, now);
  if (window.count > config.loginFailureLimit) {
    const retryAfter = Math.max(1, Math.ceil((window.windowEndsAt - now) / 1000));
    throw rateLimited(retryAfter, {}, 'Too many failed logins for this e-mail address: retry later.');
  }
  return { subject, windowEndsAt: window.windowEndsAt };
}

/** The password was right: the attempt does not count as a failure. */
export const releaseLoginAttempt = (attempt: LoginAttempt): Promise<void> =>
  uncountLoginAttempt(attempt.subject, attempt.windowEndsAt);
