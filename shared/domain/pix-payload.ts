/**
 * The charge as API Pix's `CobPayload` (what a payer's bank reads from the location URL):
 * calendar, txid, revision, status, amount, receiving key.
 */

import { createHash } from 'node:crypto';
import { formatEmvAmount } from './br-code.ts';
import { type ChargeRecord, effectiveStatus } from './charges.ts';
import { awaitingPayment } from './transaction-status.ts';

/** API Pix `CobrancaStatus`: ATIVA while payable, CONCLUIDA once paid, REMOVIDA_PELO_PSP otherwise. */
function cobStatus(charge: ChargeRecord, now: Date): 'ATIVA' | 'CONCLUIDA' | 'REMOVIDA_PELO_PSP' {
  const status = effectiveStatus(charge, now.getTime());
  if (awaitingPayment(status)) return 'ATIVA';
  if (status === 'PAID' || status === 'APPROVED' || status === 'PROCESSING') return 'CONCLUIDA';
  return 'REMOVIDA_PELO_PSP';
}

/** The merchant's receiving Pix key at the acquirer: a random-key (EVP) UUID per account and mode. */
function receivingKey(accountId: string, mode: string): string {
  const h = createHash('sha256').update(`evp:${accountId}:${mode}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export function pixPayload(charge: ChargeRecord, now: Date) {
  return {
    calendario: {
      criacao: charge.createdAt,
      apresentacao: now.toISOString(),
      expiracao: Math.round((Date.parse(charge.expiresAt) - Date.parse(charge.createdAt)) / 1000),
    },
    txid: charge.txid,
    revisao: 0,
    status: cobStatus(charge, now),
    valor: { original: formatEmvAmount(charge.amount), modalidadeAlteracao: 0 },
    chave: receivingKey(charge.accountId, charge.mode),
    ...(typeof charge.metadata.description === 'string' && {
      solicitacaoPagador: charge.metadata.description.slice(0, 140),
    }),
  };
}
