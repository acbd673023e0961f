/**
 * `POST /v1/payments/{id}/resend-webhook` (Part 2): the transaction's current status emitted
 * again, as a new legacy event (a new event id, so a new delivery to each destination).
 *
 * Which event: the one Part 2 names for that status ("Which operation or transition emits
 * what"), so a resend reaches the handler the merchant wrote for that status and the endpoints
 * subscribed to it. Not `payment.status_changed`: that alias means "the status changed", and a
 * resend changes nothing; it is used only for a status no named event stands for (PROCESSING,
 * held for review, whose transition emits the alias alone). EXPIRED has two named events
 * (`payment.expired` and `payment.failed`); the specific one is sent.
 *
 * `data.previousStatus` is the status itself: there was no transition, the transaction was
 * already in that status (a receiver comparing the two sees no change). `null` would read as
 * "just created", which the original `payment.created` already means.
 */

import { type ChargeRecord, effectiveStatus } from './charges.ts';
import { type EventContext, legacyEvent, type OutboxEvent } from './events.ts';
import type { LegacyEventType, TxStatus } from './transaction-status.ts';

/** The legacy event that stands for each status. */
export const RESEND_EVENT: Record<TxStatus, LegacyEventType> = {
  PENDING: 'payment.created',
  WAITING_PAYMENT: 'payment.created',
  PROCESSING: 'payment.status_changed',
  PAID: 'payment.completed',
  APPROVED: 'payment.completed',
  REFUSED: 'payment.failed',
  CANCELLED: 'payment.failed',
  EXPIRED: 'payment.expired',
  REFUNDED: 'payment.refunded',
  CHARGEBACK: 'payment.failed',
  DISPUTE: 'payment.failed',
};

/**
 * The event re-emitting the charge's status as a reader sees it at `ctx.at` (a WAITING_PAYMENT
 * charge past its expiry is EXPIRED even before the scheduler records it), and that status.
 */
export function resendEvent(
  charge: ChargeRecord,
  ctx: EventContext,
): { status: TxStatus; event: OutboxEvent } {
  const status = effectiveStatus(charge, Date.parse(ctx.at));
  return { status, event: legacyEvent(RESEND_EVENT[status], { ...charge, status }, status, ctx) };
}
