/**
 * The failed-login limit of `POST /v1/auth/login`, keyed by hashes (an unknown address is
 * limited exactly like a known one), counted three times:
 * - **per address from one source** (an IPv4 address or an IPv6 /64, `loginSource`): at most
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
 *   the owner's own known sources keep their per-source limit only;
 * - **per source, all addresses together**: at most `config.loginSourceFailureLimit`; beyond
 *   them the source's logins are 429 for every address it is not a known source of. Without it
 *   a source trying a new address each time met no limit, and each of its attempts costs a
 *   password hash (an unknown address pays the decoy's).
 *
 * Every attempt is counted BEFORE its password is checked (one atomic `ADD` per counter; the
 * two per-source counters at once), and one that is not a failure is taken back: a right
 * password from every counter, an attempt a limit refused from the source's counters, an attempt
 * an error ended before its password was checked from every counter (only a Lambda that dies
 * before answering leaves its attempt counted: it fails closed). So a burst of parallel guesses
 * gets at most the limit's worth of password checks (the others are refused without one), a user
 * who logs in spends nothing, and a refused attempt runs no scrypt, known address or not.
 */

import { loginSubjectKey } from '../auth/jwt.ts';
import { config } from '../config.ts';
import { loginLimitSubject, loginSourceSubject } from '../domain/auth.ts';
import { TooManyAttempts } from '../domain/errors.ts';
import {
  type ItemKey,
  loginAttemptsKey,
  loginKnownSourceKey,
  loginSourceAnyAddressKey,
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

/** An attempt counted against its address and its source: `releaseLoginAttempt` takes it back. */
interface LoginAttempt {
  fromSource: Counted;
  overall: Counted;
  sourceOverall: Counted;
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
  new TooManyAttempts('Too many failed logins: retry later.', retryAfter);

const release = ({ key, windowEndsAt }: Counted) => uncountLoginAttempt(key, windowEndsAt);

/**
 * Counts a login attempt for `email` from `sourceIp`, or throws `TooManyAttempts` (429) when the
 * address has no attempt left from that source, or from all sources together, or the source has
 * none left for all addresses together (a source the address logged in from is spared the last
 * two). Any other error (the table's) takes back what it had counted: no password was checked.
 */
export async function reserveLoginAttempt(
  email: string,
  sourceIp: string,
  now = Date.now(),
): Promise<LoginAttempt> {
  const key = await loginSubjectKey();
  const address = loginLimitSubject(email, key);
  const source = loginSourceSubject(sourceIp, key);
  // Counted and not yet taken back: what an error takes back (each once).
  const held = new Set<Counted>();
  const countIn = async (key: ItemKey, limit: number) => {
    const counted = await count(key, limit, now);
    held.add(counted);
    return counted;
  };
  const takeBack = (...counted: Counted[]) => Promise.all(counted.map((c) => held.delete(c) && release(c)));
  try {
    // Both settled before going on: one that failed must not strand the other's count.
    const [bySource, bySourceOverall] = await Promise.allSettled([
      countIn(loginSourceAttemptsKey(address, source), config.loginFailureLimit),
      countIn(loginSourceAnyAddressKey(source), config.loginSourceFailureLimit),
    ]);
    if (bySource.status === 'rejected') throw bySource.reason;
    if (bySourceOverall.status === 'rejected') throw bySourceOverall.reason;
    const [fromSource, sourceOverall] = [bySource.value, bySourceOverall.value];
    if (fromSource.over) {
      await takeBack(sourceOverall);
      throw limited(fromSource.retryAfter);
    }
    const knownSource = loginKnownSourceKey(address, source);
    let known: Promise<boolean> | undefined;
    const isKnown = () => (known ??= isKnownLoginSource(knownSource, now));
    // Refused before any password check: not a failure of this source, taken back from its counters.
    const refuse = async (retryAfter: number): Promise<never> => {
      await takeBack(fromSource, sourceOverall);
      throw limited(retryAfter);
    };
    // The source's own limit first: an attempt it refuses never reaches the address's counter, or
    // one source past it could still lock any address out with refused (hash-free) attempts.
    if (sourceOverall.over && !(await isKnown())) return await refuse(sourceOverall.retryAfter);
    const overall = await countIn(loginAttemptsKey(address), config.loginAddressFailureLimit);
    if (overall.over && !(await isKnown())) return await refuse(overall.retryAfter);
    return { fromSource, overall, sourceOverall, knownSource };
  } catch (error) {
    if (!(error instanceof TooManyAttempts)) await takeBack(...held).catch(() => undefined);
    throw error;
  }
}

/**
 * No password was checked (an error ended the attempt before its answer): the attempt is taken
 * back as a right password's is, without making its source known.
 */
export const abandonLoginAttempt = async (attempt: LoginAttempt): Promise<void> => {
  await Promise.all([release(attempt.fromSource), release(attempt.overall), release(attempt.sourceOverall)]);
};

/** The password was right: the attempt does not count as a failure, and its source is known from now on. */
export const releaseLoginAttempt = async (attempt: LoginAttempt, now = Date.now()): Promise<void> => {
  await Promise.all([
    abandonLoginAttempt(attempt),
    rememberLoginSource(attempt.knownSource, Math.ceil(now / 1000) + KNOWN_SOURCE_DAYS * 86_400),
  ]);
};
