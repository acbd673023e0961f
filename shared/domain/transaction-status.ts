/**
 * The transaction state machine: every status of Part 2, the public status each shows as
 * (Part 1), and one table of (from, trigger) → to with the events each transition emits. The
 * use cases ask this table what a trigger does; the store's conditions ("only if still in one
 * of `from`") are built from it, so a rule changes in one place.
 */

/** Transaction statuses (Part 2). The record stores these; the public status is derived. */
export const txStatuses = [
  'PENDING',
  'WAITING_PAYMENT',
  'PROCESSING',
  'PAID',
  'APPROVED',
  'REFUSED',
  'CANCELLED',
  'EXPIRED',
  'REFUNDED',
  'CHARGEBACK',
  'DISPUTE',
] as const;
export type TxStatus = (typeof txStatuses)[number];

export const publicStatuses = [
  'pending',
  'processing',
  'paid',
  'failed',
  'expired',
  'cancelled',
  'refunded',
  'disputed',
] as const;
export type PublicStatus = (typeof publicStatuses)[number];

/** Part 2's mapping of transaction statuses to the public charge status. */
export const PUBLIC_STATUS: Record<TxStatus, PublicStatus> = {
  PENDING: 'pending',
  WAITING_PAYMENT: 'pending',
  PROCESSING: 'processing',
  PAID: 'paid',
  APPROVED: 'paid',
  REFUSED: 'failed',
  CANCELLED: 'cancelled',
  EXPIRED: 'expired',
  REFUNDED: 'refunded',
  CHARGEBACK: 'disputed',
  DISPUTE: 'disputed',
};

/** The transaction statuses that show as `status` publicly. */
export const txStatusesOf = (status: PublicStatus): TxStatus[] =>
  txStatuses.filter((tx) => PUBLIC_STATUS[tx] === status);

export type CanonicalEventType = 'charge.created' | 'charge.paid' | 'charge.failed' | 'charge.expired';
export type LegacyEventType =
  | 'payment.created'
  | 'payment.completed'
  | 'payment.failed'
  | 'payment.expired'
  | 'payment.refunded'
  | 'payment.status_changed';

interface Transition {
  /** The statuses the trigger applies in (`null`: the transaction does not exist yet). */
  from: readonly (TxStatus | null)[];
  to: TxStatus;
  /** The canonical (`charge.*`) event, when Part 2 names one for this transition. */
  canonical?: CanonicalEventType;
  /** The legacy (`payment.*`) events; `payment.status_changed` is added to every status change. */
  legacy: readonly LegacyEventType[];
}

const AWAITING = ['WAITING_PAYMENT', 'PENDING'] as const;
const SETTLED = ['PAID', 'APPROVED'] as const;

/**
 * Every transition (Part 2, "States and transitions" and "Which operation or transition emits
 * what"). `cancel`, `refundInFull` and the MED triggers are used by the payments and MED issues;
 * they are here so the whole machine is read and tested in one place. No `charge.*` event is
 * sent because of a MED (Part 2).
 */
export const TRANSITIONS = {
  /** A charge the acquirer accepted, awaiting the payer. */
  create: { from: [null], to: 'WAITING_PAYMENT', canonical: 'charge.created', legacy: ['payment.created'] },
  /** The acquirer refused to create the charge. */
  refuse: { from: [null], to: 'REFUSED', canonical: 'charge.failed', legacy: ['payment.failed'] },
  /** A Pix of the exact amount by an accepted payer: settled. */
  pay: { from: AWAITING, to: 'PAID', canonical: 'charge.paid', legacy: ['payment.completed'] },
  /** Payer lock set and the payer's document not reported: held for review, never credited. */
  holdForReview: { from: AWAITING, to: 'PROCESSING', legacy: [] },
  /** Payer lock set and another payer paid: the Pix is returned (no canonical event exists). */
  returnToPayer: { from: AWAITING, to: 'REFUNDED', legacy: ['payment.refunded'] },
  /** The window closed unpaid (`payment.failed` too: Part 2 lists EXPIRED under it). */
  expire: {
    from: AWAITING,
    to: 'EXPIRED',
    canonical: 'charge.expired',
    legacy: ['payment.expired', 'payment.failed'],
  },
  /** `POST /v1/payments/{id}/cancel`. */
  cancel: {
    from: [...AWAITING, 'PROCESSING'],
    to: 'CANCELLED',
    canonical: 'charge.failed',
    legacy: ['payment.failed'],
  },
  /** Refunds reach the original amount. */
  refundInFull: { from: SETTLED, to: 'REFUNDED', legacy: ['payment.refunded'] },
  /** A MED case opens against a settled transaction: disputed publicly, refunds blocked. */
  openDispute: { from: SETTLED, to: 'DISPUTE', legacy: ['payment.failed'] },
  /** The merchant won the MED: the transaction is settled again. */
  winDispute: { from: ['DISPUTE'], to: 'PAID', legacy: [] },
  /** The merchant lost the MED: the money went back to the payer (Part 2 lists CHARGEBACK under `payment.failed`). */
  loseDispute: { from: ['DISPUTE'], to: 'CHARGEBACK', legacy: ['payment.failed'] },
} as const satisfies Record<string, Transition>;

export type Trigger = keyof typeof TRANSITIONS;

export const canApply = (trigger: Trigger, from: TxStatus | null): boolean =>
  (TRANSITIONS[trigger].from as readonly (TxStatus | null)[]).includes(from);

/** Where `trigger` takes a transaction in `from`; throws if the table has no such transition. */
export function nextStatus(trigger: Trigger, from: TxStatus | null): TxStatus {
  if (!canApply(trigger, from)) throw new Error(`No transition ${trigger} from ${from ?? 'nothing'}`);
  return TRANSITIONS[trigger].to;
}

/** The event types a transition emits, canonical first. */
export function eventTypesOf(
  trigger: Trigger,
  from: TxStatus | null,
): (CanonicalEventType | LegacyEventType)[] {
  const t: Transition = TRANSITIONS[trigger];
  return [
    ...(t.canonical ? [t.canonical] : []),
    ...t.legacy,
    ...(from !== null && from !== t.to ? (['payment.status_changed'] as const) : []),
  ];
}

/** Awaiting payment: a Pix may settle it, it counts as live, and it can expire. */
export const awaitingPayment = (status: TxStatus): boolean => canApply('pay', status);
