/**
 * Double-entry ledger. Every money movement is a journal of entries that sum to zero
 * (debits positive, credits negative). Merchant balances are credit-normal: a wallet's
 * `available` is minus the sum of its `merchant_available` entries, and likewise `pending`.
 */

import type { Fees } from './charges.ts';

export type LedgerAccount =
  | 'psp_clearing'
  | 'merchant_available'
  | 'merchant_pending'
  | 'provider_fees'
  | 'platform_fees'
  | 'payer_returns'
  /** Received but held for manual review (payer lock without a reported payer document). */
  | 'review_hold'
  /** Refunds reserved from the merchant and owed to payers until the acquirer confirms. */
  | 'refunds_in_flight'
  /** A MED case's contested amount, held from the merchant while the case is undecided (`retained`). */
  | 'merchant_retained'
  /** MED money that left the merchant's books (lost, or closed without refund): owed back to the payer. */
  | 'med_clearing';

export interface LedgerEntry {
  account: LedgerAccount;
  amount: number;
}

type JournalKind =
  | 'charge_settled'
  | 'payment_returned'
  | 'return_failed'
  | 'payment_held'
  | 'balance_released'
  | 'refund_reserved'
  | 'refund_paid'
  | 'refund_failed'
  | 'med_held'
  | 'med_released'
  | 'med_lost';

export interface Journal {
  kind: JournalKind;
  currency: string;
  chargeId: string;
  entries: LedgerEntry[];
}

const nonZero = (entries: LedgerEntry[]) => entries.filter((e) => e.amount !== 0);

/** A settled charge: the acquirer holds `amount`; the merchant is owed `netAmount`; fees are earned. */
export function settlementJournal(
  chargeId: string,
  currency: string,
  amount: number,
  fees: Fees,
  held: boolean,
): Journal {
  return {
    kind: 'charge_settled',
    currency,
    chargeId,
    entries: nonZero([
      { account: 'psp_clearing', amount },
      { account: held ? 'merchant_pending' : 'merchant_available', amount: -fees.netAmount },
      { account: 'provider_fees', amount: -fees.providerFee },
      { account: 'platform_fees', amount: -fees.platformFee },
    ]),
  };
}

/** `amount` moves from `from` to `to`: a debit of `to`, a credit of `from`. */
const transfer = (from: LedgerAccount, to: LedgerAccount, amount: number): LedgerEntry[] => [
  { account: to, amount },
  { account: from, amount: -amount },
];

/**
 * A payment that is not credited (payer lock mismatch, late or partial payment): it reaches
 * the acquirer and goes straight back to the payer. The merchant's balances never move.
 */
export const returnJournal = (chargeId: string, currency: string, amount: number): Journal => ({
  kind: 'payment_returned',
  currency,
  chargeId,
  entries: [
    ...transfer('payer_returns', 'psp_clearing', amount),
    ...transfer('psp_clearing', 'payer_returns', amount),
  ],
});

/**
 * A Pix the service returned by itself (`returnJournal`, `heldReturnJournal`) did not leave: the
 * acquirer refused the devolution. The money is still in the acquirer's account, owed to its
 * payer (`payer_returns`) until operations return it another way; the merchant's books never move.
 */
export const returnFailedJournal = (chargeId: string, currency: string, amount: number): Journal => ({
  kind: 'return_failed',
  currency,
  chargeId,
  entries: transfer('payer_returns', 'psp_clearing', amount),
});

/** A Pix held for review: received, owed to nobody yet, never credited to the merchant. */
export const reviewHoldJournal = (chargeId: string, currency: string, amount: number): Journal => ({
  kind: 'payment_held',
  currency,
  chargeId,
  entries: transfer('review_hold', 'psp_clearing', amount),
});

/**
 * A Pix held for review goes back to its payer (its payment was cancelled): it leaves the
 * acquirer's account out of `review_hold`. The merchant's balances never move.
 */
export const heldReturnJournal = (chargeId: string, currency: string, amount: number): Journal => ({
  kind: 'payment_returned',
  currency,
  chargeId,
  entries: transfer('psp_clearing', 'review_hold', amount),
});

/** A held tranche becomes spendable. */
export const releaseJournal = (chargeId: string, currency: string, amount: number): Journal => ({
  kind: 'balance_released',
  currency,
  chargeId,
  entries: transfer('merchant_available', 'merchant_pending', amount),
});

/**
 * A MED case opens: the contested amount leaves `available` (which may go negative) and is
 * held in `retained` (both credit-normal: a debit lowers the balance).
 */
export const medHoldJournal = (chargeId: string, currency: string, amount: number): Journal => ({
  kind: 'med_held',
  currency,
  chargeId,
  entries: transfer('merchant_retained', 'merchant_available', amount),
});

/** The merchant won the MED: the held amount is spendable again. */
export const medReleaseJournal = (chargeId: string, currency: string, amount: number): Journal => ({
  kind: 'med_released',
  currency,
  chargeId,
  entries: transfer('merchant_available', 'merchant_retained', amount),
});

/** The MED was lost (or closed without refund): the held amount leaves the merchant's books. */
export const medLossJournal = (chargeId: string, currency: string, amount: number): Journal => ({
  kind: 'med_lost',
  currency,
  chargeId,
  entries: transfer('med_clearing', 'merchant_retained', amount),
});

export interface WalletDelta {
  available: number;
  pending: number;
  retained: number;
}

/** How a journal moves the merchant's wallet (what the balance item's `ADD` must apply). */
export function walletDelta(journal: Journal): WalletDelta {
  const sum = (account: LedgerAccount) =>
    0 - journal.entries.filter((e) => e.account === account).reduce((t, e) => t + e.amount, 0);
  return {
    available: sum('merchant_available'),
    pending: sum('merchant_pending'),
    retained: sum('merchant_retained'),
  };
}

export const isBalanced = (journal: Journal): boolean =>
  journal.entries.reduce((t, e) => t + e.amount, 0) === 0;
