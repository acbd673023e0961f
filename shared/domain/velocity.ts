/**
 * The fraud/velocity guard of charge creation (defaults in README's API decisions, per-account settings). Only
 * live (pending) charges count: expired, failed or paid ones never block a customer.
 */

import type { VelocityLimits } from './account-settings.ts';
import { VelocityExceeded } from './errors.ts';

const customerVelocityExceeded = () =>
  new VelocityExceeded(
    'fraud.customer_velocity_exceeded',
    'Too many live charges for this customer in a short window; try again later.',
  );

export const accountVelocityExceeded = () =>
  new VelocityExceeded(
    'fraud.account_velocity_exceeded',
    'This account has reached its limit of live charges; wait for some to be paid or expire.',
  );

/**
 * Throws the 403 a new charge would earn. `customerChargeTimes`: creation times of the
 * customer's live charges (any window at least as long as the account's).
 */
export function assertWithinVelocity(
  limits: VelocityLimits,
  customerChargeTimes: string[],
  livePending: number,
  now: Date,
): void {
  const windowStart = new Date(now.getTime() - limits.customerWindowSeconds * 1000).toISOString();
  if (
    customerChargeTimes.filter((createdAt) => createdAt >= windowStart).length >= limits.customerMaxCharges
  ) {
    throw customerVelocityExceeded();
  }
  if (livePending >= limits.accountMaxPending) throw accountVelocityExceeded();
}
