/**
 * The acquirer call budgets (shared/resources.ts) against the Lambda timeouts the stack sets from
 * the same constants (test/infra/stack.test.ts checks the stack uses them): a slow PSP must end
 * in the use case's own answer (on the API: 503 `service_unavailable`, safe to retry with the
 * same Idempotency-Key), never in the Lambda being cut off.
 */

import { describe, expect, it } from 'vitest';
import { type AcquirerCallBudget, acquirerCallBudgets, acquirerCallers } from '#shared/resources.ts';

/** The longest one call may take: every attempt to its timeout (token request included), and the longest backoffs (p-retry: min × 2^n, randomized up to ×2). */
const oneCallWorstMs = (budget: AcquirerCallBudget): number => {
  let backoff = 0;
  for (let n = 0; n < budget.retries; n++)
    backoff += Math.min(budget.minRetryDelayMs * 2 ** n * 2, budget.minRetryDelayMs * 16);
  return (budget.retries + 1) * budget.attemptTimeoutMs + backoff;
};

/** What each Lambda keeps for its own work (table reads and writes) after its acquirer calls. */
const MARGIN_MS = 2_000;

describe('acquirer call budgets', () => {
  it.each(Object.entries(acquirerCallers))(
    '%s: every acquirer call ends with margin before the Lambda timeout',
    (_, caller) => {
      const budget = acquirerCallBudgets[caller.budget];
      // The transport ends every call of an invocation by `totalMs` after it started.
      expect(budget.totalMs + MARGIN_MS).toBeLessThanOrEqual(caller.timeoutSeconds * 1000);
      // And one call's full retry schedule fits in it, so the deadline never cuts the first call short.
      expect(oneCallWorstMs(budget)).toBeLessThanOrEqual(budget.totalMs);
    },
  );

  it('merchant requests use the request budget, shorter than the API timeout; background keeps a longer one', () => {
    expect(acquirerCallers.api.budget).toBe('request');
    expect(oneCallWorstMs(acquirerCallBudgets.request)).toBe(6_400);
    expect(acquirerCallers.scheduler.budget).toBe('background');
    expect(acquirerCallers.providerCallbackConsumer.budget).toBe('background');
    expect(oneCallWorstMs(acquirerCallBudgets.background)).toBe(42_800);
  });
});
