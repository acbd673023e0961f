/**
 * The time one Lambda invocation may spend calling live acquirers (`acquirerCallBudgets` in
 * `shared/resources.ts`): the API edge runs each request under the `request` budget, the
 * scheduler and the provider callback consumer each invocation under `background`, and every
 * API Pix call made within (whichever use case makes it) shares that invocation's deadline. The
 * local runtime serves every function in one process, hence a per-invocation scope rather than a
 * per-process setting.
 */

import { AsyncLocalStorage } from 'node:async_hooks';
import { type AcquirerCallBudget, acquirerCallBudgets } from '../resources.ts';

interface AcquirerCallScope {
  budget: AcquirerCallBudget;
  /** Epoch ms by which every acquirer call of the invocation has ended. */
  deadline: number;
}

const scopes = new AsyncLocalStorage<AcquirerCallScope>();

/** Runs one invocation's `work` with `budget` for the acquirer calls in it, its deadline `budget.totalMs` from now. */
export function withAcquirerBudget<T>(
  budget: keyof typeof acquirerCallBudgets,
  work: () => Promise<T>,
): Promise<T> {
  const chosen = acquirerCallBudgets[budget];
  return scopes.run({ budget: chosen, deadline: Date.now() + chosen.totalMs }, work);
}

/**
 * The invocation's scope; none outside an invocation (the admin CLI, a test calling the
 * adapter), where the transport applies the `request` budget from the call's start.
 */
export function acquirerCallScope(): AcquirerCallScope | undefined {
  return scopes.getStore();
}
