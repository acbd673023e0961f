/**
 * Webhook events written to the outbox in the same transaction as the state change that
 * causes them: the canonical envelope (`charge.*`, with the public Charge from the REST
 * serializer) and the legacy transaction envelope (`payment.*`). Which events a transition
 * emits is the state machine's answer (`transaction-status.ts`).
 */

import { type ChargeRecord, serializeCharge } from './charges.ts';
import { type MedCaseRecord, type MedEventType, serializeMedCase } from './med-cases.ts';
import type { RefundRecord } from './refunds.ts';
import {
  type CanonicalEventType,
  eventTypesOf,
  type LegacyEventType,
  type Trigger,
  type TxStatus,
} from './transaction-status.ts';

export type { CanonicalEventType, LegacyEventType } from './transaction-status.ts';

export interface OutboxEvent {
  /** `evt_…`: stable per business event, the receiver's dedupe key. */
  id: string;
  family: 'canonical' | 'legacy';
  type: CanonicalEventType | LegacyEventType | MedEventType;
  /** The raw charge id the event is about (a MED event: the contested charge). */
  chargeId: string;
  createdAt: string;
  /** When the use case recorded it (`EventContext.recordedAt`): the endpoints it goes to existed then. */
  recordedAt: string;
  /** Exactly what is delivered (the raw JSON body is this, serialized). */
  payload: Record<string, unknown>;
  /** A legacy event of a payment with a `webhookUrl`: delivered there too. */
  webhookUrl?: string;
}

/** What building an event needs from outside the domain: the time, the API version, new ids. */
export interface EventContext {
  /** The business time the event is about (a Pix's own time for a payment), its `created_at`. */
  at: string;
  /** The wall clock when the use case records it (later than `at` for a Pix settled late). */
  recordedAt: string;
  /** `api_version` of canonical envelopes (README, "API decisions", Events). */
  apiVersion: string;
  newEventId: () => string;
}

/** The canonical envelope (`evt_` id, `api_version`, `type`, `data.object`) of a charge's event. */
function canonicalEnvelope(
  type: CanonicalEventType | MedEventType,
  chargeId: string,
  object: unknown,
  ctx: EventContext,
): OutboxEvent {
  const id = ctx.newEventId();
  return {
    id,
    family: 'canonical',
    type,
    chargeId,
    createdAt: ctx.at,
    recordedAt: ctx.recordedAt,
    payload: { id, object: 'event', api_version: ctx.apiVersion, type, created_at: ctx.at, data: { object } },
  };
}

const canonicalEvent = (type: CanonicalEventType, charge: ChargeRecord, ctx: EventContext): OutboxEvent =>
  canonicalEnvelope(type, charge.id, serializeCharge(charge, Date.parse(ctx.at)), ctx);

export function legacyEvent(
  type: LegacyEventType,
  charge: ChargeRecord,
  previousStatus: TxStatus | null,
  ctx: EventContext,
): OutboxEvent {
  const settled = charge.status === 'PAID' || charge.status === 'APPROVED';
  return {
    id: ctx.newEventId(),
    family: 'legacy',
    type,
    chargeId: charge.id,
    createdAt: ctx.at,
    recordedAt: ctx.recordedAt,
    ...(charge.webhookUrl !== undefined && { webhookUrl: charge.webhookUrl }),
    payload: {
      event: type,
      data: {
        transactionId: charge.id,
        amount: charge.amount,
        status: charge.status,
        previousStatus,
        occurredAt: ctx.at,
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

const isCanonical = (type: CanonicalEventType | LegacyEventType): type is CanonicalEventType =>
  type.startsWith('charge.');

/** The events of `trigger` taking the transaction from `previousStatus` to `charge.status`. */
export function transitionEvents(
  trigger: Trigger,
  charge: ChargeRecord,
  previousStatus: TxStatus | null,
  ctx: EventContext,
): OutboxEvent[] {
  return eventTypesOf(trigger, previousStatus).map((type) =>
    isCanonical(type) ? canonicalEvent(type, charge, ctx) : legacyEvent(type, charge, previousStatus, ctx),
  );
}

/**
 * A refund advanced (created, requested, refunded or failed): `payment.refunded` with the
 * transaction's fields and the `refund` it is about, plus `payment.status_changed` when this
 * advance moved the transaction itself (the refund that completes it: PAID → REFUNDED).
 */
export function refundEvents(
  charge: ChargeRecord,
  previousStatus: TxStatus,
  refund: Pick<RefundRecord, 'id' | 'amount' | 'status'>,
  ctx: EventContext,
): OutboxEvent[] {
  const refunded = legacyEvent('payment.refunded', charge, previousStatus, ctx);
  const data = refunded.payload.data as Record<string, unknown>;
  data.refund = { id: refund.id, amount: refund.amount, status: refund.status };
  return [
    refunded,
    ...(previousStatus !== charge.status
      ? [legacyEvent('payment.status_changed', charge, previousStatus, ctx)]
      : []),
  ];
}

/**
 * MED events in the canonical envelope (README, "MED cases (Pix disputes)"): `evt_` id, `api_version`, `type`,
 * `data.object` the med_case as the REST API returns it. Signed like `charge.*` (`t=…,v1=…`).
 */
export function medCaseEvents(
  types: MedEventType[],
  medCase: MedCaseRecord,
  ctx: EventContext,
): OutboxEvent[] {
  return types.map((type) => canonicalEnvelope(type, medCase.chargeId, serializeMedCase(medCase), ctx));
}
