/**
 * The failed-login limit of `POST /v1/auth/login`, per e-mail address (keyed by its hash, so
 * an unknown address is limited exactly like a known one), counted twice:
 * - **per source** (an IPv4 address or an IPv6 /64, `loginSource`): at most
 *   `config.loginFailureLimit` failed logins in a window of `config.loginFailureWindowSeconds`
 *   that starts at the first counted attempt; beyond them the address's logins from that
 *   source, the right password included, are 429 `rate_limited` with `Retry-After` until the
 *   window is over;
 * - **per address, all sources together**: at most `config.loginAddressFailureLimit` in a
 *   window of the same length; beyond them the address's logins are 429 from every source the
 *   address has not logged in from in the last `KNOWN_SOURCE_DAYS` days. Only attempts the
 *   source's limit let through count here, so one source cannot lock an address out for
 *   everyone: that takes `loginAddressFailureLimit / loginFailureLimit` sources (10 by
 *   default), where a limit per address alone let anyone do it with 5 guesses; and even then
 *   the owner's own known sources keep their per-source limit only.
 *
 * Every attempt is counted BEFORE its password is checked (one atomic `ADD` per counter), and
 * one that is not a failure is taken back: a right password from both counters, an attempt the
 * address's limit refused from its source's. So a burst of parallel guesses gets at most the
 * limit's worth of password checks (the others are refused without one), a user who logs in
 * spends nothing, and a refused attempt runs no scrypt, known address or not.
 */

import { config } from '../config.ts';
import { loginLimitSubject, loginSourceSubject } from '../domain/auth.ts';
import { TooManyAttempts } from '../domain/errors.ts';
import {
  type ItemKey,
  loginAttemptsKey,
  loginKnownSourceKey,
  loginSourceAttemptsKey,
} from '../store/keys.ts';
import {
  countLoginAttempt,
  isKnownLoginSource,
  rememberLoginSource,
  uncountLoginAttempt,
} from '../store/rate-limit.ts';

/** One counter an attempt was counted in, and the window it was counted in. */
interface Counted {
  key: ItemKey;
  windowEndsAt: number;
}

/**
 * How long a source the address logged in from stays known: as long as the API's access logs
 * keep client IPs (a month), and the record holds only a hash.
 */
const KNOWN_SOURCE_DAYS = 30;

/** An attempt counted against its address: `releaseLoginAttempt` takes it back. */
export interface LoginAttempt {
  fromSource: Counted;
  overall: Counted;
  /** Where a successful login records its source as known. */
  knownSource: ItemKey;
}

const count = async (
  key: ItemKey,
  limit: number,
  now: number,
): Promise<Counted & { over: boolean; retryAfter: number }> => {
  const windowSeconds = config.loginFailureWindowSeconds;
  const window = await countLoginAttempt(key, windowSeconds * 1000, now);
  // A window that a concurrent attempt started after `now` ends more than a window after it.
  const secondsLeft = Math.ceil((window.windowEndsAt - now) / 1000);
  return {
    key,
    windowEndsAt: window.windowEndsAt,
    over: window.count > limit,
    retryAfter: Math.min(windowSeconds, Math.max(1, secondsLeft)),
  };
};

const limited = (retryAfter: number) =>
  new TooManyAttempts('Too many failed logins for this e-mail address: retry later.', retryAfter);

const release = ({ key, windowEndsAt }: Counted) => uncountLoginAttempt(key, windowEndsAt);

/**
 * Counts a login attempt for `email` from `sourceIp`, or throws `TooManyAttempts` (429) when the address has no
 * attempt left from that source or from all sources together.
 */
export async function reserveLoginAttempt(
  email: string,
  sourceIp: string,
  now = Date.now(),
): Promise<LoginAttempt> {
  const address = loginLimitSubject(email);
  const source = loginSourceSubject(sourceIp);
  const fromSource = await count(loginSourceAttemptsKey(address, source), config.loginFailureLimit, now);
  if (fromSource.over) throw limited(fromSource.retryAfter);
  const overall = await count(loginAttemptsKey(address), config.loginAddressFailureLimit, now);
  const knownSource = loginKnownSourceKey(address, source);
  if (overall.over && !(await isKnownLoginSource(knownSource, now))) {
    // Refused before any password check: not a failure of this source.
    await release(fromSource);
    throw limited(overall.retryAfter);
  }
  return { fromSource, overall, knownSource };
}

/** The password was right: the attempt does not count as a failure, and its source is known from now on. */
export const releaseLoginAttempt = async (attempt: LoginAttempt, now = Date.now()): Promise<void> => {
  await Promise.all([
    release(attempt.fromSource),
    release(attempt.overall),
    rememberLoginSource(attempt.knownSource, Math.ceil(now / 1000) + KNOWN_SOURCE_DAYS * 86_400),
  ]);
};
