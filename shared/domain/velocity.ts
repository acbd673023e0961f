/**
 * The fraud/velocity guard of charge creation (defaults in README's API decisions, per-account settings). Only
 * live (pending) charges count: expired, failed or paid ones never block a customer.
 */

import type { VelocityLimits } from './account-settings.ts';
import { VelocityExceeded } from './errors.ts';
import { awaitingPayment, type TxStatus } from './transaction-status.ts';

/** A charge of the customer index: its raw id and creation time. */
export interface CustomerCharge {
  id: string;
  createdAt: string;
}

/** A customer's velocity guard item: its recent creates (raw id → creation time) and its version. */
export interface CustomerGuard {
  version: number;
  recent: Record<string, string>;
}

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

/** The customer a charge counts against: its document, or else the payer lock's tax id. */
export const velocityCustomerOf = (charge: {
  customer: { document?: string | undefined };
  expectedPayerTaxId?: string | undefined;
}): string | undefined => charge.customer.document ?? charge.expectedPayerTaxId;

/**
 * How long a create stays listed in its customer's guard item (docs/data-model.md, "Customer
 * velocity"): far longer than the customer index takes to show a new charge, so every create
 * the index may not show yet is in the list. Concurrent creates of one customer serialise on
 * that item.
 */
export const RECENT_CREATES_SECONDS = 60;

/** A guard item's creates (charge id → creation time) still within `RECENT_CREATES_SECONDS`. */
export function recentCreates(recent: Readonly<Record<string, string>>, now: Date): Record<string, string> {
  const since = new Date(now.getTime() - RECENT_CREATES_SECONDS * 1000).toISOString();
  return Object.fromEntries(Object.entries(recent).filter(([, createdAt]) => createdAt >= since));
}

/** When a guard item listing `recent` may go (epoch seconds): a day after its newest create. */
export const guardExpiresAt = (recent: Readonly<Record<string, string>>): number =>
  Math.ceil(Math.max(...Object.values(recent).map((at) => Date.parse(at))) / 1000) + 24 * 3600;

/**
 * Of the guard's recent creates, the ones the index did not list as live: either the index has
 * not caught up yet or the charge is no longer live, which only a read of the charge tells.
 */
export const unconfirmedCreates = (
  recent: Readonly<Record<string, string>>,
  indexedLive: readonly { id: string }[],
): string[] => {
  const indexed = new Set(indexedLive.map((charge) => charge.id));
  return Object.keys(recent).filter((id) => !indexed.has(id));
};

/**
 * Creation times of the customer's live charges: the index's (live when it was read), and each
 * unconfirmed recent create whose charge, read just now, still awaits payment within its window.
 */
export function liveCustomerChargeTimes(
  indexedLive: readonly CustomerCharge[],
  unconfirmed: readonly { status: TxStatus; expiresAt: string; createdAt: string }[],
  now: Date,
): string[] {
  const nowIso = now.toISOString();
  return [
    ...indexedLive.map((charge) => charge.createdAt),
    ...unconfirmed
      .filter((charge) => awaitingPayment(charge.status) && charge.expiresAt > nowIso)
      .map((charge) => charge.createdAt),
  ];
}

/** Throws the 403 a customer's next charge would earn. */
export function assertCustomerWithinVelocity(
  limits: VelocityLimits,
  customerChargeTimes: string[],
  now: Date,
): void {
  const windowStart = new Date(now.getTime() - limits.customerWindowSeconds * 1000).toISOString();
  if (customerChargeTimes.filter((createdAt) => createdAt >= windowStart).length >= limits.customerMaxCharges)
    throw customerVelocityExceeded();
}

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
  assertCustomerWithinVelocity(limits, customerChargeTimes, now);
  if (livePending >= limits.accountMaxPending) throw accountVelocityExceeded();
}
