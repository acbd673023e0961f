/**
 * The transaction-format view of a charge (Part 2, "Payment"): the same stored record as the
 * Charge, serialized field by field (allowlist) with the transaction statuses and camelCase
 * names. Fields of methods this service does not offer are always null.
 */

import { type ChargeRecord, effectiveStatus } from './charges.ts';
import { expiryFailure } from './settlement.ts';

/**
 * Informational `metadata.failure` on expired, cancelled or failed transactions: a payment read
 * as EXPIRED before the scheduler recorded it shows the failure the scheduler will store.
 */
function paymentMetadata(charge: ChargeRecord, now: number): Record<string, unknown> {
  const withMed = charge.med ? { ...charge.metadata, med: charge.med } : charge.metadata;
  const failure =
    charge.failure ??
    (effectiveStatus(charge, now) === 'EXPIRED' ? expiryFailure(charge, charge.expiresAt) : undefined);
  if (!failure) return withMed;
  const { reason, providerErrorCode, ttlSeconds, at } = failure;
  return {
    ...withMed,
    failure: { reason, providerErrorCode, ...(ttlSeconds !== undefined && { ttlSeconds }), at },
  };
}

/** `POST /v1/payments` 201 body. */
export function serializePaymentCreated(charge: ChargeRecord, now: number) {
  return {
    id: charge.id,
    status: effectiveStatus(charge, now),
    amount: charge.amount,
    currency: charge.currency,
    paymentMethods: charge.paymentMethods ?? ['PIX'],
    customerName: charge.customer.name ?? null,
    customerDocument: charge.customer.document ?? null,
    customerEmail: charge.customer.email ?? null,
    metadata: paymentMetadata(charge, now),
    createdAt: charge.createdAt,
  };
}

const NOT_OFFERED = {
  cardRedirectUrl: null,
  mbEntity: null,
  mbReference: null,
  mbExpiresAt: null,
  boletoBarcode: null,
  boletoLine: null,
  boletoPdfUrl: null,
  boletoExpiresAt: null,
  cryptoAddress: null,
  cryptoAmount: null,
  cryptoNetwork: null,
  cryptoCurrency: null,
} as const;

/** `GET /v1/payments/{id}`: the create shape plus settlement, fees and the Pix fields. */
export function serializePayment(charge: ChargeRecord, now: number) {
  const settled = charge.paidAt !== undefined;
  return {
    ...serializePaymentCreated(charge, now),
    paidWith: settled ? 'PIX' : null,
    providerFee: charge.fees?.providerFee ?? null,
    platformFee: charge.fees?.platformFee ?? null,
    netAmount: charge.fees?.netAmount ?? null,
    paidAt: charge.paidAt ?? null,
    pixQrCode: charge.qrCodeBase64 === undefined ? null : `data:image/png;base64,${charge.qrCodeBase64}`,
    pixCopyPaste: charge.brCode ?? null,
    pixExpiresAt: charge.brCode === undefined ? null : charge.expiresAt,
    ...NOT_OFFERED,
  };
}
