/**
 * What happens to a Pix received for a charge (Part 1, "Public charge status"). Pure: the
 * store applies the outcome in one transaction guarded by the charge's current status.
 */

import type { ChargeRecord } from './charges.ts';
import { effectiveStatus } from './charges.ts';

export interface IncomingPix {
  endToEndId: string;
  amount: number;
  /** CPF/CNPJ of the payer as the bank reported it; absent when the bank did not report it. */
  payerDocument?: string;
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
  if (status !== 'WAITING_PAYMENT' && status !== 'PENDING') return { kind: 'return', reason: 'not_payable' };
  // An underpaid Pix charge stays pending and the bank returns the money (Part 1).
  if (pix.amount < charge.amount) return { kind: 'return', reason: 'underpaid' };
  if (pix.amount > charge.amount) return { kind: 'return', reason: 'overpaid' };
  if (charge.expectedPayerTaxId === undefined) return { kind: 'credit' };
  if (pix.payerDocument === undefined) return { kind: 'hold' };
  return pix.payerDocument === charge.expectedPayerTaxId
    ? { kind: 'credit' }
    : { kind: 'refund', reason: 'payer_mismatch' };
}
