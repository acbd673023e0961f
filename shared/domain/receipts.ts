/**
 * The payment receipt ("comprovante de pagamento Pix", `GET /v1/payments/{id}/receipt`): which
 * transactions have one, and what it says, as plain text fields. Laying them out on a page is
 * the document renderer's job (`shared/documents/receipt-pdf.ts`); every decision about content
 * (what is shown, how money, instants and documents read, what is masked) is made here, pure.
 *
 * The receipt is in Brazilian Portuguese, as the payer's and the merchant's banks issue theirs:
 * amounts in `R$ 1.234,56`, instants in America/Sao_Paulo, the payer's CPF masked.
 */

import type { ChargeRecord } from './charges.ts';
import { InvalidInput } from './errors.ts';
import { formatBrazilDateTime, formatMoney, formatTaxId, maskTaxId } from './format.ts';
import type { RefundRecord, RefundStatus } from './refunds.ts';
import { classifyTaxId } from './tax-id.ts';
import type { TxStatus } from './transaction-status.ts';

/** What a field shows when the information does not exist ("not informed"). */
export const NOT_INFORMED = 'Não informado';

interface ReceiptField {
  label: string;
  value: string;
}

interface ReceiptSection {
  heading: string;
  fields: ReceiptField[];
}

interface ReceiptRefundRow {
  id: string;
  amount: string;
  status: string;
  requestedAt: string;
}

export interface Receipt {
  title: string;
  /** Who issues it, under the title. */
  merchantName: string;
  /** The amount paid, the receipt's headline. */
  amount: string;
  /** When it was paid, under the headline. */
  paidAt: string;
  sections: ReceiptSection[];
  /** The payment's refunds, oldest first (empty when there are none). */
  refunds: ReceiptRefundRow[];
  refundColumns: [string, string, string, string];
  refundsHeading: string;
  footer: string;
  /** Document properties (PDF Title, Subject, dates). */
  properties: { title: string; subject: string; author: string; createdAt: string };
}

interface ReceiptInput {
  charge: ChargeRecord;
  /** Every refund record of the transaction (`listRefunds`), in any order. */
  refunds: readonly RefundRecord[];
  merchant: { name: string; document?: string };
  /** When the receipt is issued (the caller's clock). */
  issuedAt: string;
}

/** A settled transaction: one the payer's Pix paid (`paidAt`), whatever happened to it after. */
type SettledCharge = ChargeRecord & { paidAt: string; endToEndId: string };

const isSettled = (charge: ChargeRecord): charge is SettledCharge =>
  charge.paidAt !== undefined && charge.endToEndId !== undefined;

/**
 * Only a settled transaction has a receipt: PAID/APPROVED, and REFUNDED or disputed after being
 * paid. Never paid (waiting, expired, refused, cancelled, held for review, or returned to a payer
 * the payer lock refused) → 400 `payment_not_settled`.
 */
function assertSettled(charge: ChargeRecord): asserts charge is SettledCharge {
  if (!isSettled(charge))
    throw new InvalidInput(
      `Only a settled payment has a receipt; this one is ${charge.status} and was never paid.`,
      { code: 'payment_not_settled' },
    );
}

/**
 * The refunds a receipt lists: the merchant's refunds of this payment and returns of its own
 * Pix. A Pix the service returned by itself without crediting it (a second payment of a paid
 * charge, an underpaid or late one) is another payer's money, not a refund of this payment.
 */
export const refundsOfPayment = (
  charge: Pick<ChargeRecord, 'endToEndId'>,
  refunds: readonly RefundRecord[],
): RefundRecord[] =>
  refunds
    .filter((refund) => !refund.automatic || refund.endToEndId === charge.endToEndId)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));

const TX_STATUS_LABEL: Partial<Record<TxStatus, string>> = {
  PAID: 'Pago',
  APPROVED: 'Aprovado',
  REFUNDED: 'Devolvido',
  DISPUTE: 'Em contestação (MED)',
  CHARGEBACK: 'Contestação perdida (MED)',
};

const REFUND_STATUS_LABEL: Record<RefundStatus, string> = {
  PENDING: 'Pendente',
  IN_PROGRESS: 'Em processamento',
  REFUNDED: 'Devolvida',
  FAILED: 'Não realizada',
};

/** `Pago (PAID)`: the word a payer reads and the code the merchant's systems know. */
const statusLabel = (label: string | undefined, code: string) => (label ? `${label} (${code})` : code);

/** The merchant's own document: a CNPJ in full (public company data), a CPF masked like a payer's. */
function merchantDocument(document: string | undefined): string {
  if (document === undefined) return NOT_INFORMED;
  return classifyTaxId(document) === 'cpf' ? maskTaxId(document) : formatTaxId(document);
}

/** The receipt of a settled transaction; throws `payment_not_settled` for any other. */
export function buildReceipt(input: ReceiptInput): Receipt {
  const { charge, merchant, issuedAt } = input;
  assertSettled(charge);
  const money = (amount: number) => formatMoney(amount, charge.currency);
  const refunds = refundsOfPayment(charge, input.refunds);
  const returned = refunds.filter((r) => r.status === 'REFUNDED').reduce((sum, r) => sum + r.amount, 0);
  const paidAt = `${formatBrazilDateTime(charge.paidAt)} (horário de Brasília)`;
  return {
    title: 'Comprovante de pagamento Pix',
    merchantName: merchant.name,
    amount: money(charge.amount),
    paidAt,
    sections: [
      {
        heading: 'Recebedor',
        fields: [
          { label: 'Nome', value: merchant.name },
          { label: 'CNPJ/CPF', value: merchantDocument(merchant.document) },
        ],
      },
      {
        heading: 'Pagador',
        fields: [
          { label: 'Nome', value: charge.payer?.name ?? NOT_INFORMED },
          {
            label: 'CPF/CNPJ',
            value: charge.payer?.document === undefined ? NOT_INFORMED : maskTaxId(charge.payer.document),
          },
        ],
      },
      {
        heading: 'Transação',
        fields: [
          { label: 'Valor', value: money(charge.amount) },
          { label: 'Data do pagamento', value: paidAt },
          { label: 'Situação', value: statusLabel(TX_STATUS_LABEL[charge.status], charge.status) },
          ...(returned > 0 ? [{ label: 'Valor devolvido', value: money(returned) }] : []),
          { label: 'ID da transação', value: charge.id },
          { label: 'ID fim a fim (E2E)', value: charge.endToEndId },
          ...(charge.txid !== undefined ? [{ label: 'Identificador (txid)', value: charge.txid }] : []),
        ],
      },
    ],
    refunds: refunds.map((refund) => ({
      id: refund.id,
      amount: money(refund.amount),
      status: statusLabel(REFUND_STATUS_LABEL[refund.status], refund.status),
      requestedAt: formatBrazilDateTime(refund.createdAt, { seconds: false }),
    })),
    refundColumns: ['ID da devolução', 'Valor', 'Situação', 'Solicitada em'],
    refundsHeading: 'Devoluções',
    footer: `Emitido em ${formatBrazilDateTime(issuedAt)} (horário de Brasília) por ${merchant.name} via Pix.`,
    properties: {
      title: `Comprovante de pagamento Pix ${charge.id}`,
      subject: `Pix ${charge.endToEndId}`,
      author: merchant.name,
      createdAt: issuedAt,
    },
  };
}
