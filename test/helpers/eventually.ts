/** The one polling helper of the test suite: retry an assertion until it holds or time runs out. */

import { setTimeout as sleep } from 'node:timers/promises';

export interface EventuallyOptions {
  /** Give up after this long (default 15 s). */
  timeoutMs?: number;
  /** Pause between attempts (default 100 ms). */
  intervalMs?: number;
  /** What was awaited, put in front of the last error on timeout. */
  message?: string;
}

/**
 * Calls `fn` until it returns (or resolves) without throwing, and returns its value. `fn`
 * signals "not yet" by throwing, typically with `expect(…)`. On timeout the last error is
 * thrown, its message prefixed with `message` and how long was waited (an assertion error keeps
 * its expected/actual diff).
 */
export async function eventually<T>(fn: () => T | Promise<T>, options: EventuallyOptions = {}): Promise<T> {
  const { timeoutMs = 15_000, intervalMs = 100, message = 'condition' } = options;
  const deadline = Date.now() + timeoutMs;
  let attempts = 0;
  for (;;) {
    attempts++;
    try {
      return await fn();
    } catch (error) {
      if (Date.now() + intervalMs > deadline) {
        const prefix = `eventually: ${message} not met within ${timeoutMs} ms (${attempts} attempts)`;
        if (error instanceof Error) {
          error.message = `${prefix}; last error: ${error.message}`;
          throw error;
        }
        throw new Error(`${prefix}; last error: ${String(error)}`, { cause: error });
      }
    }
    await sleep(intervalMs);
  }
}
