/**
 * Webhook events written to the outbox in the same transaction as the state change that
 * causes them: the canonical envelope (`charge.*`, with the public Charge from the REST
 * serializer) and the legacy transaction envelope (`payment.*`).
 */

import { randomBytes } from 'node:crypto';
import { type ChargeRecord, serializeCharge, type TxStatus } from './charges.ts';

/** `api_version` of canonical events (DESIGN.md §4). */
export const API_VERSION = '2026-11-01';

export type CanonicalEventType = 'charge.created' | 'charge.paid' | 'charge.failed' | 'charge.expired';
export type LegacyEventType =
  | 'payment.created'
  | 'payment.completed'
  | 'payment.failed'
  | 'payment.expired'
  | 'payment.refunded'
  | 'payment.status_changed';

export interface OutboxEvent {
  /** `evt_…`: stable per business event, the receiver's dedupe key. */
  id: string;
  family: 'canonical' | 'legacy';
  type: CanonicalEventType | LegacyEventType;
  chargeId: string;
  createdAt: string;
  /** Exactly what is delivered (the raw JSON body is this, serialized). */
  payload: Record<string, unknown>;
  /** A legacy event of a payment with a `webhookUrl`: delivered there too. */
  webhookUrl?: string;
}

export const newEventId = (): string => `evt_${randomBytes(12).toString('hex')}`;

export function canonicalEvent(type: CanonicalEventType, charge: ChargeRecord, at: string): OutboxEvent {
  const id = newEventId();
  return {
    id,
    family: 'canonical',
    type,
    chargeId: charge.id,
    createdAt: at,
    payload: {
      id,
      object: 'event',
      api_version: API_VERSION,
      type,
      created_at: at,
      data: { object: serializeCharge(charge, Date.parse(at)) },
    },
  };
}

export function legacyEvent(
  type: LegacyEventType,
  charge: ChargeRecord,
  previousStatus: TxStatus | null,
  at: string,
): OutboxEvent {
  const settled = charge.status === 'PAID' || charge.status === 'APPROVED';
  return {
    id: newEventId(),
    family: 'legacy',
    type,
    chargeId: charge.id,
    createdAt: at,
    ...(charge.webhookUrl !== undefined && { webhookUrl: charge.webhookUrl }),
    payload: {
      event: type,
      data: {
        transactionId: charge.id,
        amount: charge.amount,
        status: charge.status,
        previousStatus,
        occurredAt: at,
        ...(charge.customerId !== undefined && { customerId: charge.customerId }),
        ...(settled &&
          charge.fees && {
            paidWith: 'PIX',
            providerFee: charge.fees.providerFee,
            platformFee: charge.fees.platformFee,
            netAmount: charge.fees.netAmount,
          }),
      },
    },
  };
}

/** The canonical and legacy events a transition into `charge.status` emits. */
export function eventsForTransition(
  charge: ChargeRecord,
  previousStatus: TxStatus | null,
  at: string,
): OutboxEvent[] {
  const both = (canonical: CanonicalEventType, legacy: LegacyEventType) => [
    canonicalEvent(canonical, charge, at),
    legacyEvent(legacy, charge, previousStatus, at),
  ];
  switch (charge.status) {
    case 'WAITING_PAYMENT':
      return both('charge.created', 'payment.created');
    case 'PAID':
    case 'APPROVED':
      return both('charge.paid', 'payment.completed');
    case 'REFUSED':
    case 'CANCELLED':
      return both('charge.failed', 'payment.failed');
    case 'EXPIRED':
      return both('charge.expired', 'payment.expired');
    // No canonical event exists for these (Part 2): the legacy family reports them.
    case 'REFUNDED':
      return [legacyEvent('payment.refunded', charge, previousStatus, at)];
    default:
      return [legacyEvent('payment.status_changed', charge, previousStatus, at)];
  }
}
