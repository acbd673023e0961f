/**
 * The sandbox acquirer's `GET /cob/{txid}` answer: the API Pix `CobCompleta` (release 2.9.0,
 * `shared/reference/bcb-api-pix-2.9.0.openapi.yaml`) of a charge, built from the service's own
 * records. The sandbox keeps no state: the charge and its refunds are what its bank "holds".
 * Pure, so the mapping is tested field by field (test/unit/sandbox-cob.test.ts).
 *
 * How the service's state reads at a PSP:
 * - `status` (CobrancaStatus) is the charge record's, not the payment's: `ATIVA` until a Pix
 *   concludes it, also past its expiry ("não guarda relação com o fato de a cobrança
 *   encontrar-se vencida ou expirada": API Pix has no expired status, expiry is the service's own
 *   job); `CONCLUIDA` once a Pix of the charge arrived (paid, held for review, returned to a
 *   payer the payer lock refused, refunded or disputed after); `REMOVIDA_PELO_USUARIO_RECEBEDOR`
 *   once cancelled (the PATCH that removed it is revision 1).
 * - `pix[]` lists every Pix received with this txid: the one that concluded the charge, and any
 *   the service returned by itself (underpaid, overpaid, late, a second payment), each with its
 *   `devolucoes`. A merchant's `cashout` refund is a Pix-out, not a devolution: it is not listed.
 * - `devedor` is the expected payer the charge was created with (the payer lock): the payer who
 *   actually paid is not part of a `cob` (API Pix `Pix` carries no payer).
 */

import { createHash } from 'node:crypto';
import type { ChargeRecord } from '../domain/charges.ts';
import { pixLocation } from '../domain/charges.ts';
import { endToEndTimestamp } from '../domain/pix-ids.ts';
import { devolutionIdOf, type RefundRecord, type RefundStatus } from '../domain/refunds.ts';
import type { TxStatus } from '../domain/transaction-status.ts';
import { toDecimalString } from './api-pix/money.ts';
import type { CobSnapshot, CobStatus, DevolutionStatus } from './provider.ts';

/** The ISPB of the sandbox's bank: its return ids (`rtrId`) and its payers' end-to-end ids. */
export const SANDBOX_ACQUIRER_ISPB = '99999999';

/** What the sandbox "holds" for one txid: the charge and every refund of it. */
export interface SandboxCobRecord {
  charge: ChargeRecord;
  refunds: readonly RefundRecord[];
}

export { toDecimalString };

/** The charge record's state as API Pix `CobrancaStatus`. */
export function cobStatusOf(status: TxStatus): CobStatus {
  switch (status) {
    case 'PENDING':
    case 'WAITING_PAYMENT':
    case 'EXPIRED':
      return 'ATIVA';
    case 'REFUSED':
      throw new Error('A charge the acquirer refused has no cob');
    case 'CANCELLED':
      return 'REMOVIDA_PELO_USUARIO_RECEBEDOR';
    case 'PROCESSING':
    case 'PAID':
    case 'APPROVED':
    case 'REFUNDED':
    case 'DISPUTE':
    case 'CHARGEBACK':
      return 'CONCLUIDA';
  }
}

const DEVOLUTION_STATUS: Record<RefundStatus, DevolutionStatus> = {
  PENDING: 'EM_PROCESSAMENTO',
  IN_PROGRESS: 'EM_PROCESSAMENTO',
  REFUNDED: 'DEVOLVIDO',
  FAILED: 'NAO_REALIZADO',
};

const hex = (text: string) => createHash('sha256').update(text).digest('hex');

/** The merchant's Pix key at the sandbox PSP: a random-looking (EVP) key, stable per account. */
export function sandboxPixKey(accountId: string): string {
  const h = hex(`sandbox-pix-key:${accountId}`);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The PSP's location id (int64), stable per charge and within JavaScript's safe integers. */
const locationId = (chargeId: string): number => Number.parseInt(hex(`loc:${chargeId}`).slice(0, 12), 16);

/**
 * The return id of the PACS.004 (`rtrId`, 32 characters: `D`, ISPB, `yyyyMMddHHmm`, 11
 * characters), derived from the refund so every read shows the same one.
 */
function returnId(refund: RefundRecord): string {
  const at = new Date(refund.requestedAt ?? refund.createdAt);
  return `D${SANDBOX_ACQUIRER_ISPB}${endToEndTimestamp(at)}${devolutionIdOf(refund.id).slice(-11)}`;
}

function devolucao(refund: RefundRecord): Record<string, unknown> {
  const status = DEVOLUTION_STATUS[refund.status];
  return {
    id: devolutionIdOf(refund.id),
    rtrId: returnId(refund),
    valor: toDecimalString(refund.amount),
    natureza: 'ORIGINAL',
    horario: {
      solicitacao: refund.requestedAt ?? refund.createdAt,
      ...(status === 'DEVOLVIDO' && refund.completedAt !== undefined && { liquidacao: refund.completedAt }),
    },
    status,
    ...(status === 'NAO_REALIZADO' &&
      refund.failureReason !== undefined && { motivo: refund.failureReason.slice(0, 140) }),
  };
}

/** Every Pix received with the charge's txid, oldest first, each with its devolutions. */
function receivedPix(charge: ChargeRecord, refunds: readonly RefundRecord[]): Record<string, unknown>[] {
  const devolutions = refunds
    .filter((r) => r.strategy === 'devolution' && r.endToEndId !== undefined)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  const received = new Map<string, { valor: number; horario: string }>();
  if (charge.endToEndId !== undefined) {
    // The Pix that concluded the charge was of its exact amount (others are returned unapplied).
    const returnedWhole = devolutions.find((r) => r.automatic && r.endToEndId === charge.endToEndId);
    received.set(charge.endToEndId, {
      valor: charge.amount,
      horario: charge.paidAt ?? returnedWhole?.createdAt ?? charge.updatedAt,
    });
  }
  // A Pix the service returned by itself: its return was recorded when it arrived, for all of it.
  for (const refund of devolutions)
    if (refund.automatic && !received.has(refund.endToEndId as string))
      received.set(refund.endToEndId as string, { valor: refund.amount, horario: refund.createdAt });
  return [...received]
    .sort(([, a], [, b]) => a.horario.localeCompare(b.horario))
    .map(([endToEndId, pix]) => {
      const returns = devolutions.filter((r) => r.endToEndId === endToEndId).map(devolucao);
      return {
        endToEndId,
        ...(charge.txid !== undefined && { txid: charge.txid }),
        valor: toDecimalString(pix.valor),
        horario: pix.horario,
        ...(returns.length > 0 && { devolucoes: returns }),
      };
    });
}

/** The `cob` as the sandbox PSP answers `GET /cob/{txid}`, and its status. */
export function sandboxCob({ charge, refunds }: SandboxCobRecord): CobSnapshot {
  const status = cobStatusOf(charge.status);
  const location = pixLocation(charge.baseUrl, charge.id);
  const expiracao =
    charge.failure?.ttlSeconds ??
    Math.round((Date.parse(charge.expiresAt) - Date.parse(charge.createdAt)) / 1000);
  const payerDocument = charge.expectedPayerTaxId;
  const description = charge.metadata.description;
  const pix = receivedPix(charge, refunds);
  const raw: Record<string, unknown> = {
    calendario: { criacao: charge.createdAt, expiracao },
    txid: charge.txid,
    revisao: status === 'REMOVIDA_PELO_USUARIO_RECEBEDOR' ? 1 : 0,
    // CobGerada's `loc` names the txid beside PayloadLocation's own fields.
    loc: {
      id: locationId(charge.id),
      txid: charge.txid,
      location,
      tipoCob: 'cob',
      criacao: charge.createdAt,
    },
    location,
    status,
    ...(payerDocument !== undefined && {
      devedor: {
        [payerDocument.length === 11 ? 'cpf' : 'cnpj']: payerDocument,
        ...(charge.customer.name !== undefined && { nome: charge.customer.name.slice(0, 200) }),
      },
    }),
    valor: { original: toDecimalString(charge.amount), modalidadeAlteracao: 0 },
    chave: sandboxPixKey(charge.accountId),
    ...(typeof description === 'string' && { solicitacaoPagador: description.slice(0, 140) }),
    ...(charge.brCode !== undefined && { pixCopiaECola: charge.brCode }),
    ...(pix.length > 0 && { pix }),
  };
  return { status, raw };
}
