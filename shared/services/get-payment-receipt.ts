/**
 * `GET /v1/payments/{id}/receipt` (Part 2): the PDF receipt of a settled transaction, as
 * `{contentType, base64}`. One round trip reads the charge, the merchant's profile and the
 * refunds; the domain decides whether there is a receipt and what it says
 * (`shared/domain/receipts.ts`); the document adapter lays it out (`shared/documents/`).
 * Rendered on every request: nothing is stored, so a refund that advances shows on the next read.
 */

import { NotFound } from '../domain/errors.ts';
import { buildReceipt } from '../domain/receipts.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { getAccount } from '../store/accounts.ts';
import { getCharge } from '../store/charges.ts';
import { listRefunds } from '../store/refunds.ts';

interface PaymentReceipt {
  contentType: 'application/pdf';
  base64: string;
}

export async function getPaymentReceipt(
  scope: MerchantScope,
  chargeId: string,
  now: Date,
): Promise<PaymentReceipt> {
  const [charge, account, refunds] = await Promise.all([
    getCharge(scope, chargeId),
    getAccount(scope.accountId),
    listRefunds(scope, chargeId),
  ]);
  if (!charge || !account) throw new NotFound('No such payment.');
  const receipt = buildReceipt({
    charge,
    refunds,
    merchant: {
      name: account.settings.merchantName,
      ...(account.settings.merchantDocument !== undefined && { document: account.settings.merchantDocument }),
    },
    issuedAt: now.toISOString(),
  });
  // Loaded on the first receipt only: pdf-lib is most of the payments bundle, and every other
  // payments route (and its cold start) does without it.
  const { renderReceiptPdf } = await import('../documents/receipt-pdf.ts');
  const pdf = await renderReceiptPdf(receipt);
  return { contentType: 'application/pdf', base64: Buffer.from(pdf).toString('base64') };
}
