/**
 * Refunds (Part 2, "Refund"): the record, its own small state machine (PENDING → IN_PROGRESS →
 * REFUNDED or FAILED), the rules a new refund must pass, and the journals that move its money.
 * Creating a refund reserves the amount (and the Pix-out fee the merchant chose to bear) from
 * `available`; FAILED gives it back; REFUNDED moves it out of the acquirer's account.
 */

import type { ChargeRecord } from './charges.ts';
import { effectiveStatus } from './charges.ts';
import { InvalidInput } from './errors.ts';
import { maskTaxId } from './format.ts';
import type { Journal, LedgerAccount, LedgerEntry } from './ledger.ts';
import { prefixedUuidV7 } from './pix-ids.ts';

export const refundStatuses = ['PENDING', 'IN_PROGRESS', 'REFUNDED', 'FAILED'] as const;
export type RefundStatus = (typeof refundStatuses)[number];
type RefundStrategy = 'devolution' | 'cashout';

export interface RefundRecord {
  /** `re_<UUIDv7>`: time-ordered, so a transaction's refunds list newest first by key. */
  id: string;
  accountId: string;
  mode: 'live' | 'test';
  chargeId: string;
  amount: number;
  currency: string;
  status: RefundStatus;
  strategy: RefundStrategy;
  reason: string | null;
  /** Cashout: the Pix-out fee debited from the merchant (`passFeeToTenant`), else 0. */
  fee: number;
  /** Cashout: the Pix key paid. */
  destinationKey?: string;
  /** The key is the payment's payer document, not one the merchant sent: shown masked. */
  destinationIsPayer?: true;
  /** Devolution: the end-to-end id of the Pix returned. */
  endToEndId?: string;
  /**
   * Not requested by the merchant: a Pix the service returned by itself (payer lock mismatch,
   * late, partial or overpaid). Its money never reached the merchant's wallet, so it reserves
   * nothing and its journal was written when the Pix arrived.
   */
  automatic: boolean;
  /** Why it failed (the acquirer's reason, or the sandbox's). */
  failureReason?: string;
  createdAt: string;
  updatedAt: string;
  /**
   * When the service recorded it, if later than `createdAt`: an automatic return's `createdAt`
   * is its Pix's time, and a Pix may be settled long after it arrived (a lost callback found by
   * reconciliation). The refund's age (overdue) counts from here.
   */
  recordedAt?: string;
  /** When the acquirer accepted the request (IN_PROGRESS). */
  requestedAt?: string;
  completedAt?: string;
}

const REFUND_ID_PATTERN = prefixedUuidV7('re_');
/** `re_<UUIDv7>`: what a refund id looks like (anything else names no refund, and is never a key). */
export const isRefundId = (id: string | undefined): id is string =>
  id !== undefined && REFUND_ID_PATTERN.test(id);

/** The API Pix devolution id of a refund (`[a-zA-Z0-9]{1,35}`): its UUID without dashes. */
export const devolutionIdOf = (refundId: string): string => refundId.replace(/^re_/, '').replaceAll('-', '');

/** The refund id of an API Pix devolution id (`devolutionIdOf` reversed); `undefined` if it is not one of ours. */
export function refundIdOfDevolution(devolutionId: string): string | undefined {
  const m = /^([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{12})$/.exec(devolutionId);
  return m ? `re_${m.slice(1).join('-')}` : undefined;
}

/** Where each refund trigger may take a refund. */
export const REFUND_TRANSITIONS = {
  /** The acquirer accepted the request. */
  request: { from: ['PENDING'], to: 'IN_PROGRESS' },
  /** The acquirer confirmed the money left. */
  confirm: { from: ['IN_PROGRESS'], to: 'REFUNDED' },
  /** The acquirer (or the sandbox) reported it cannot be done. */
  fail: { from: ['PENDING', 'IN_PROGRESS'], to: 'FAILED' },
} as const satisfies Record<string, { from: readonly RefundStatus[]; to: RefundStatus }>;
export type RefundTrigger = keyof typeof REFUND_TRANSITIONS;

export const canApplyRefund = (trigger: RefundTrigger, from: RefundStatus): boolean =>
  (REFUND_TRANSITIONS[trigger].from as readonly RefundStatus[]).includes(from);

export const isFinalRefund = (status: RefundStatus): boolean => status === 'REFUNDED' || status === 'FAILED';

/** When the service made the refund: an automatic return of a Pix settled late, at its settlement. */
const refundMadeAt = (refund: Pick<RefundRecord, 'createdAt' | 'recordedAt'>): string =>
  refund.recordedAt ?? refund.createdAt;

/**
 * Whether a refund is still unresolved `overdueMs` after it was made (recorded: an automatic
 * return of a Pix settled late is not overdue at once): a Pix devolution settles in seconds, so
 * one the acquirer has not resolved by then (down for that long, or answering in a way the
 * service cannot settle) holds the merchant's reserve until ops look.
 */
export const isOverdueRefund = (
  refund: Pick<RefundRecord, 'status' | 'createdAt' | 'recordedAt'>,
  now: Date,
  overdueMs: number,
): boolean => !isFinalRefund(refund.status) && now.getTime() - Date.parse(refundMadeAt(refund)) >= overdueMs;

/** How long after a request the service first asks the acquirer whether the money left. */
export const FIRST_CHECK_AFTER_MS = 2_000;
/** Later checks back off up to this. */
const MAX_CHECK_INTERVAL_MS = 10 * 60_000;

/**
 * When to ask the acquirer again about a refund still in flight: half its age since it was asked
 * (or made, not asked yet), from 2 s up to 10 min.
 */
export function refundCheckIntervalMs(
  refund: Pick<RefundRecord, 'createdAt' | 'recordedAt' | 'requestedAt'>,
  now: Date,
): number {
  const since = Date.parse(refund.requestedAt ?? refundMadeAt(refund));
  return Math.min(MAX_CHECK_INTERVAL_MS, Math.max(FIRST_CHECK_AFTER_MS, (now.getTime() - since) / 2));
}

/** What a charge has left to refund: its amount minus every refund not FAILED. */
export const refundableAmount = (charge: Pick<ChargeRecord, 'amount' | 'refundedAmount'>): number =>
  charge.amount - (charge.refundedAmount ?? 0);

/** Whether refunds of the charge are reserved but neither paid nor failed yet. */
export const hasRefundsInFlight = (
  charge: Pick<ChargeRecord, 'refundedAmount' | 'refundedSettled'>,
): boolean => (charge.refundedAmount ?? 0) > (charge.refundedSettled ?? 0);

export interface RefundRequest {
  amount?: number;
  reason?: string;
  strategy: RefundStrategy;
  passFeeToTenant: boolean;
  destinationKey?: string;
}

/** Why a charge cannot be refunded now, as the spec's error (400 with a specific code). */
export function assertRefundable(charge: ChargeRecord, request: RefundRequest, now: number): number {
  const status = effectiveStatus(charge, now);
  if (status === 'DISPUTE' || status === 'CHARGEBACK')
    throw new InvalidInput(
      status === 'DISPUTE'
        ? 'A disputed payment cannot be refunded while its MED case is open.'
        : 'This payment was charged back: the MED case returned its money to the payer.',
      { code: 'payment_disputed' },
    );
  if (status !== 'PAID' && status !== 'APPROVED')
    throw new InvalidInput(`Only a PAID or APPROVED payment can be refunded; this one is ${status}.`, {
      code: 'payment_not_refundable',
    });
  const remaining = refundableAmount(charge);
  const amount = request.amount ?? remaining;
  if (remaining <= 0)
    throw new InvalidInput('This payment was already refunded in full.', {
      code: 'refund_exceeds_remaining',
      param: 'amount',
    });
  if (amount > remaining)
    throw new InvalidInput(`The amount exceeds the remaining refundable amount (${remaining}).`, {
      code: 'refund_exceeds_remaining',
      param: 'amount',
    });
  if (request.strategy === 'devolution' && charge.endToEndId === undefined)
    throw new InvalidInput('This payment has no end-to-end id to return.', {
      code: 'payment_not_refundable',
      param: 'strategy',
    });
  return amount;
}

/** The Pix key a cashout pays: `destinationKey`, else the payer's CPF/CNPJ (then marked as such). */
export function cashoutDestination(
  charge: ChargeRecord,
  request: RefundRequest,
): Pick<RefundRecord, 'destinationKey' | 'destinationIsPayer'> {
  if (request.destinationKey !== undefined) return { destinationKey: request.destinationKey };
  const document = charge.payer?.document ?? charge.customer.document;
  if (document === undefined)
    throw new InvalidInput('This payment has no payer document to pay back: give a destinationKey.', {
      param: 'destinationKey',
    });
  return { destinationKey: document, destinationIsPayer: true };
}

/** `amount` debited to `debit` and credited to `credit` (merchant balances are credit-normal: ledger.ts). */
const post = (debit: LedgerAccount, credit: LedgerAccount, amount: number): LedgerEntry[] =>
  amount === 0
    ? []
    : [
        { account: debit, amount },
        { account: credit, amount: -amount },
      ];

/** Creating a refund: the amount (and the fee the merchant bears) leaves `available` at once. */
export const refundReserveJournal = (refund: RefundRecord): Journal => ({
  kind: 'refund_reserved',
  currency: refund.currency,
  chargeId: refund.chargeId,
  entries: [
    ...post('merchant_available', 'refunds_in_flight', refund.amount),
    ...post('merchant_available', 'provider_fees', refund.fee),
  ],
});

/** The acquirer confirmed: the reserved amount leaves the acquirer's account to the payer. */
export const refundPaidJournal = (refund: RefundRecord): Journal => ({
  kind: 'refund_paid',
  currency: refund.currency,
  chargeId: refund.chargeId,
  entries: post('refunds_in_flight', 'psp_clearing', refund.amount),
});

/** The refund failed: the reserve and the fee go back to `available`. */
export const refundFailedJournal = (refund: RefundRecord): Journal => ({
  kind: 'refund_failed',
  currency: refund.currency,
  chargeId: refund.chargeId,
  entries: [
    ...post('refunds_in_flight', 'merchant_available', refund.amount),
    ...post('provider_fees', 'merchant_available', refund.fee),
  ],
});

/** The public refund (create response and list items), field by field. */
export const serializeRefund = (refund: RefundRecord) => ({
  id: refund.id,
  transactionId: refund.chargeId,
  amount: refund.amount,
  currency: refund.currency,
  status: refund.status,
  reason: refund.reason,
  strategy: refund.strategy,
  fee: refund.fee,
  automatic: refund.automatic,
  // The payer's document is never shown in full (Part 1): a key the merchant did not send is masked.
  ...(refund.destinationKey !== undefined && {
    destinationKey: refund.destinationIsPayer ? maskTaxId(refund.destinationKey) : refund.destinationKey,
  }),
  failureReason: refund.failureReason ?? null,
  createdAt: refund.createdAt,
  updatedAt: refund.updatedAt,
  completedAt: refund.completedAt ?? null,
});

/**
 * The refund record of a Pix the service returns by itself (a devolution of the whole Pix,
 * addressed by its end-to-end id), listed with the transaction's refunds. `at` is the Pix's time;
 * `recordedAt`, when given and later, when the service settled it.
 */
export function automaticReturn(
  charge: Pick<ChargeRecord, 'id' | 'accountId' | 'mode' | 'currency'>,
  devolution: { endToEndId: string; amount: number; reason: string },
  id: string,
  at: string,
  recordedAt?: string,
): RefundRecord {
  return {
    id,
    accountId: charge.accountId,
    mode: charge.mode,
    chargeId: charge.id,
    amount: devolution.amount,
    currency: charge.currency,
    status: 'PENDING',
    strategy: 'devolution',
    reason: devolution.reason,
    fee: 0,
    endToEndId: devolution.endToEndId,
    automatic: true,
    createdAt: at,
    updatedAt: at,
    ...(recordedAt !== undefined && Date.parse(recordedAt) > Date.parse(at) && { recordedAt }),
  };
}
