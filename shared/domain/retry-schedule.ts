/**
 * Webhook retry delays (README, "Operations"): before attempt n+1 wait 10 s, 1 m, 5 m, 30 m, 1 h, 2 h, 4 h,
 * 6 h, 8 h, 10 h, 12 h, 12 h, 12 h, 12 h (about 3.3 days), each ±10 % jitter; at least 60 s after
 * a timeout or a 429; a 429's `Retry-After` honoured; never more than `MAX_DELAY_SECONDS`.
 */

export const MAX_ATTEMPTS = 15;
const MINUTE = 60;
const HOUR = 3600;
export const RETRY_DELAYS_SECONDS = [
  10,
  MINUTE,
  5 * MINUTE,
  30 * MINUTE,
  HOUR,
  2 * HOUR,
  4 * HOUR,
  6 * HOUR,
  8 * HOUR,
  10 * HOUR,
  12 * HOUR,
  12 * HOUR,
  12 * HOUR,
  12 * HOUR,
] as const;
/**
 * The longest wait, 11 h 55 min: SQS refuses a visibility that would end more than 12 h after the
 * message's receive, and the delay is set at the end of an attempt (up to the dispatcher's 60 s
 * timeout later), so a full 12 h would be refused and the message come back a minute later.
 */
export const MAX_DELAY_SECONDS = 12 * HOUR - 5 * MINUTE;

interface FailedAttempt {
  /** 1-based number of the attempt that just failed. */
  attempt: number;
  timedOut?: boolean;
  statusCode?: number;
  /** The receiver's `Retry-After`, in seconds, on a 429. */
  retryAfterSeconds?: number;
}

/**
 * Seconds to wait before the next attempt. `scale` compresses the schedule (tests only; the
 * receiver's own `Retry-After` is never compressed), `random` is the jitter source.
 */
export function retryDelaySeconds(
  failed: FailedAttempt,
  scale = 1,
  random: () => number = Math.random,
): number {
  const base =
    RETRY_DELAYS_SECONDS[Math.min(failed.attempt, RETRY_DELAYS_SECONDS.length) - 1] ?? MAX_DELAY_SECONDS;
  const jittered = base * (0.9 + 0.2 * random()) * scale;
  const throttled =
    failed.timedOut || failed.statusCode === 429 ? Math.max(jittered, MINUTE * scale) : jittered;
  const honoured =
    failed.statusCode === 429 && failed.retryAfterSeconds !== undefined
      ? Math.max(throttled, failed.retryAfterSeconds)
      : throttled;
  return Math.min(MAX_DELAY_SECONDS, Math.round(honoured));
}

/**
 * How long a message is hidden when its dispatch failed unexpectedly (the table or the queue
 * failing, before its POST or while recording it; not the receiver): 60 s, doubling with each
 * receive of the message, at most 15 min. Every receive counts toward the 15 before the DLQ, so with the queue's flat 60 s a
 * 15-minute table outage would dead-letter deliveries never attempted; this way such receives
 * alone take about 3 h (docs/infrastructure.md, "Known limits").
 */
export const dispatchErrorDelaySeconds = (receiveCount: number): number =>
  Math.min(15 * MINUTE, MINUTE * 2 ** Math.max(0, Math.min(receiveCount, 10) - 1));

/** `Retry-After` as seconds: a delay or an HTTP date; `undefined` when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}
