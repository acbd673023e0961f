/**
 * What happens to a Pix received for a charge (Part 1, "Public charge status"), what expiry and
 * release do, as pure plans. The use cases (`shared/services/`) turn a plan into items and
 * commit them in one transaction guarded by the state the plan was made from.
 */

import { type AccountSettings, computeFees } from './account-settings.ts';
import { type ChargeRecord, effectiveStatus } from './charges.ts';
import { InvalidInput } from './errors.ts';
import {
  heldReturnJournal,
  type Journal,
  releaseJournal,
  returnJournal,
  reviewHoldJournal,
  settlementJournal,
} from './ledger.ts';
import { awaitingPayment, canApply, nextStatus, type Trigger, type TxStatus } from './transaction-status.ts';

export interface IncomingPix {
  endToEndId: string;
  amount: number;
  /** CPF/CNPJ of the payer as the bank reported it; absent when the bank did not report it. */
  payerDocument?: string;
  /**
   * Set when the acquirer cannot name the payer but can say whether the charge's expected payer
   * sent this Pix (API Pix: `GET /pix?cpf|cnpj=…&txid=…`); `false` is another payer.
   */
  expectedPayerPaid?: boolean;
  payerName?: string;
  receivedAt: string;
}

export type SettlementOutcome =
  /** pending → paid: credited. */
  | { kind: 'credit' }
  /** pending → processing: payer lock set, payer document not reported; held for review, never credited. */
  | { kind: 'hold' }
  /** pending → refunded: payer lock set and another payer paid; returned by devolution. */
  | { kind: 'refund'; reason: 'payer_mismatch' }
  /** Status unchanged, the money goes straight back: too little, too late, or nothing to pay. */
  | { kind: 'return'; reason: 'underpaid' | 'overpaid' | 'expired' | 'not_payable' };

export function decideSettlement(charge: ChargeRecord, pix: IncomingPix): SettlementOutcome {
  const status = effectiveStatus(charge, Date.parse(pix.receivedAt));
  if (status === 'EXPIRED') return { kind: 'return', reason: 'expired' };
  if (!awaitingPayment(status)) return { kind: 'return', reason: 'not_payable' };
  // An underpaid Pix charge stays pending and the bank returns the money (Part 1).
  if (pix.amount < charge.amount) return { kind: 'return', reason: 'underpaid' };
  if (pix.amount > charge.amount) return { kind: 'return', reason: 'overpaid' };
  if (charge.expectedPayerTaxId === undefined) return { kind: 'credit' };
  if (pix.payerDocument === undefined && pix.expectedPayerPaid === false)
    return { kind: 'refund', reason: 'payer_mismatch' };
  if (pix.payerDocument === undefined) return { kind: 'hold' };
  return pix.payerDocument === charge.expectedPayerTaxId
    ? { kind: 'credit' }
    : { kind: 'refund', reason: 'payer_mismatch' };
}

/** A net amount held until `releaseAt` (the account's settlement hold). */
export interface Tranche {
  amount: number;
  currency: string;
  releaseAt: string;
}

/** Money sent back to the payer, addressed by the original end-to-end id. */
interface Devolution {
  endToEndId: string;
  amount: number;
  reason: string;
}

interface SettlementPlan {
  outcome: SettlementOutcome;
  journal: Journal;
  /** The charge's transition; absent when the Pix is returned and the charge stays as it was. */
  transition?: { trigger: Trigger; next: ChargeRecord };
  tranche?: Tranche;
  devolution?: Devolution;
}

const OUTCOME_TRIGGER: Record<Exclude<SettlementOutcome['kind'], 'return'>, Trigger> = {
  credit: 'pay',
  hold: 'holdForReview',
  refund: 'returnToPayer',
};

/**
 * Everything a received Pix changes: the charge's next state, the ledger journal, a tranche when
 * the account holds settlements, and a devolution when the money goes back.
 */
export function planSettlement(
  charge: ChargeRecord,
  pix: IncomingPix,
  settings: Pick<AccountSettings, 'feePlan' | 'settlementHoldDays'>,
): SettlementPlan {
  const outcome = decideSettlement(charge, pix);
  const at = pix.receivedAt;
  const devolution = (reason: string): Devolution => ({
    endToEndId: pix.endToEndId,
    amount: pix.amount,
    reason,
  });
  if (outcome.kind === 'return') {
    return {
      outcome,
      journal: returnJournal(charge.id, charge.currency, pix.amount),
      devolution: devolution(outcome.reason),
    };
  }
  const trigger = OUTCOME_TRIGGER[outcome.kind];
  const payer = {
    ...(pix.payerDocument !== undefined && { document: pix.payerDocument }),
    ...(pix.payerName !== undefined && { name: pix.payerName }),
  };
  const next: ChargeRecord = {
    ...charge,
    status: nextStatus(trigger, charge.status),
    endToEndId: pix.endToEndId,
    payer,
    updatedAt: at,
  };
  if (outcome.kind === 'hold') {
    return {
      outcome,
      journal: reviewHoldJournal(charge.id, charge.currency, pix.amount),
      transition: { trigger, next },
    };
  }
  if (outcome.kind === 'refund') {
    return {
      outcome,
      journal: returnJournal(charge.id, charge.currency, pix.amount),
      transition: { trigger, next },
      devolution: devolution(outcome.reason),
    };
  }
  const fees = computeFees(charge.amount, settings.feePlan);
  const held = settings.settlementHoldDays > 0;
  return {
    outcome,
    journal: settlementJournal(charge.id, charge.currency, charge.amount, fees, held),
    transition: { trigger, next: { ...next, paidAt: at, fees } },
    ...(held && {
      tranche: {
        amount: fees.netAmount,
        currency: charge.currency,
        releaseAt: new Date(Date.parse(at) + settings.settlementHoldDays * 86_400_000).toISOString(),
      },
    }),
  };
}

/**
 * The expired charge, or `undefined` when it cannot expire now: no longer awaiting payment, or
 * its window still open. `force` (sandbox "expire now") closes an open window by moving its
 * expiry to now.
 */
export function planExpiry(charge: ChargeRecord, now: Date, force = false): ChargeRecord | undefined {
  if (!awaitingPayment(charge.status)) return undefined;
  const open = Date.parse(charge.expiresAt) > now.getTime();
  if (open && !force) return undefined;
  const at = now.toISOString();
  const expiresAt = open ? at : charge.expiresAt;
  return {
    ...charge,
    status: nextStatus('expire', charge.status),
    expiresAt,
    updatedAt: at,
    failure: expiryFailure(charge, expiresAt),
  };
}

/**
 * Why an expired charge failed (`metadata.failure`): the same whether the scheduler has recorded
 * the expiry or a read shows it early (`effectiveStatus`). `ttlSeconds` is the QR's lifetime as
 * created; `at` is when the window closed (its end, or the moment it was closed early).
 */
export const expiryFailure = (
  charge: Pick<ChargeRecord, 'createdAt' | 'expiresAt'>,
  at: string,
): NonNullable<ChargeRecord['failure']> => ({
  reason: 'The Pix charge expired unpaid',
  providerErrorCode: 'expired',
  ttlSeconds: Math.round((Date.parse(charge.expiresAt) - Date.parse(charge.createdAt)) / 1000),
  at,
});

/** The Pix QR's lifetime in seconds (`metadata.failure.ttlSeconds`); absent when there was no QR. */
const qrTtlSeconds = (charge: ChargeRecord): number | undefined =>
  charge.brCode === undefined
    ? undefined
    : Math.round((Date.parse(charge.expiresAt) - Date.parse(charge.createdAt)) / 1000);

interface CancelPlan {
  /** The cancelled charge, with its `failure` (`providerErrorCode: canceled`). */
  next: ChargeRecord;
  /**
   * The acquirer's charge to withdraw (API Pix `PATCH /cob/{txid}`) before the cancel commits:
   * set while the QR can still be paid. A charge held for review was paid already (its cob is
   * concluded): nothing to withdraw.
   */
  withdrawTxid?: string;
  /** A Pix held for review (PROCESSING) goes back to its payer: its journal and devolution. */
  heldReturn?: { journal: Journal; devolution: Devolution };
}

/** Why a payment cannot be cancelled, as the spec's 400 (`payment_not_cancellable`). */
function notCancellable(status: TxStatus): InvalidInput {
  const message =
    status === 'PAID' || status === 'APPROVED'
      ? `A settled (${status}) payment cannot be cancelled: refund it instead (POST /v1/payments/{id}/refund).`
      : status === 'DISPUTE' || status === 'CHARGEBACK'
        ? `A disputed (${status}) payment cannot be cancelled.`
        : `Only a WAITING_PAYMENT, PENDING or PROCESSING payment can be cancelled; this one is ${status}.`;
  return new InvalidInput(message, { code: 'payment_not_cancellable' });
}

/**
 * `POST /v1/payments/{id}/cancel`: the cancelled charge, and what else the cancel must do.
 * Throws `payment_not_cancellable` unless the charge is cancellable as read at `now` (a
 * WAITING_PAYMENT charge past its expiry reads EXPIRED: not cancellable).
 */
export function planCancel(charge: ChargeRecord, now: Date): CancelPlan {
  const status = effectiveStatus(charge, now.getTime());
  if (!canApply('cancel', status)) throw notCancellable(status);
  const at = now.toISOString();
  const ttlSeconds = qrTtlSeconds(charge);
  const next: ChargeRecord = {
    ...charge,
    status: nextStatus('cancel', charge.status),
    updatedAt: at,
    failure: {
      reason: 'The payment was cancelled by the merchant',
      providerErrorCode: 'canceled',
      ...(ttlSeconds !== undefined && { ttlSeconds }),
      at,
    },
  };
  // Held for review: the exact amount arrived (any other amount is returned on arrival) and was
  // never credited; cancelling it must give it back, or it would stay held forever.
  const held = !awaitingPayment(charge.status) && charge.endToEndId !== undefined;
  return {
    next,
    ...(awaitingPayment(charge.status) && charge.txid !== undefined && { withdrawTxid: charge.txid }),
    ...(held && {
      heldReturn: {
        journal: heldReturnJournal(charge.id, charge.currency, charge.amount),
        devolution: { endToEndId: charge.endToEndId as string, amount: charge.amount, reason: 'cancelled' },
      },
    }),
  };
}

/** A tranche whose hold is over moves from `pending` to `available`. */
export const planRelease = (chargeId: string, tranche: Pick<Tranche, 'amount' | 'currency'>): Journal =>
  releaseJournal(chargeId, tranche.currency, tranche.amount);
