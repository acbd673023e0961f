/**
 * The charge: its stored record, the transaction-format statuses it moves through, the public
 * vocabulary those map to, and the allowlist serializer of the public Charge (Part 1).
 */

import type { MedMetadata } from './med-cases.ts';
import { locationToken, publicChargeId } from './pix-ids.ts';
import type { MerchantScope } from './scope.ts';
import { awaitingPayment, PUBLIC_STATUS, type PublicStatus, type TxStatus } from './transaction-status.ts';

interface Customer {
  name?: string;
  document?: string;
  email?: string;
  phone?: string;
}

export interface Fees {
  providerFee: number;
  platformFee: number;
  netAmount: number;
}

export interface ChargeRecord {
  /** Raw id (the public id is `ch_<id>`). */
  id: string;
  accountId: string;
  mode: 'live' | 'test';
  amount: number;
  currency: string;
  status: TxStatus;
  paymentMethod: 'pix';
  customer: Customer;
  metadata: Record<string, unknown>;
  expectedPayerTaxId?: string;
  idempotencyKey: string;
  /** The service address the charge was created at: its URLs (checkout, QR, location) use it. */
  baseUrl: string;
  provider: string;
  txid?: string;
  brCode?: string;
  qrCodeBase64?: string;
  expiresAt: string;
  createdAt: string;
  updatedAt: string;
  endToEndId?: string;
  paidAt?: string;
  fees?: Fees;
  /** Who actually paid: never exposed (payer lock only). */
  payer?: { document?: string; name?: string };
  failure?: { reason: string; providerErrorCode: string; ttlSeconds?: number; at: string };
  /** Created through `POST /v1/payments`: the methods the merchant asked for (only Pix is served). */
  paymentMethods?: string[];
  /** The merchant's own user id (`POST /v1/payments`), echoed in legacy webhooks. */
  customerId?: string;
  /** Per-transaction destination of the legacy (`payment.*`) events, beside the endpoints. */
  webhookUrl?: string;
  /** Sum of the refunds not FAILED (reserved or paid): what no further refund may exceed. */
  refundedAmount?: number;
  /** Sum of the REFUNDED refunds: reaching `amount` makes the transaction REFUNDED. */
  refundedSettled?: number;
  /** The latest MED case against this charge, as `metadata.med` shows it (informational). */
  med?: MedMetadata;
  /** What that case holds of the charge (its amount less the refunds paid before), for the metrics. */
  disputedAmount?: number;
  /** The wallet shard every journal of this charge moves (absent: the unsharded wallet item). */
  walletShard?: number;
  /** The live-charge counter shard its creation counted in, which its end decrements. */
  liveCounterShard?: number;
}

/** The merchant scope a charge belongs to. */
export const scopeOf = (charge: Pick<ChargeRecord, 'accountId' | 'mode'>): MerchantScope => ({
  accountId: charge.accountId,
  mode: charge.mode,
});

/**
 * The status a reader must see: a charge past its expiry is `EXPIRED` even before the
 * scheduler has recorded it (a read after `expires_at` never shows pending).
 */
export function effectiveStatus(charge: Pick<ChargeRecord, 'status' | 'expiresAt'>, now: number): TxStatus {
  return awaitingPayment(charge.status) && Date.parse(charge.expiresAt) <= now ? 'EXPIRED' : charge.status;
}

export const publicStatusOf = (
  charge: Pick<ChargeRecord, 'status' | 'expiresAt'>,
  now: number,
): PublicStatus => PUBLIC_STATUS[effectiveStatus(charge, now)];

const checkoutUrl = (baseUrl: string, rawId: string) => `${baseUrl}/checkout/${rawId}`;
export const qrCodeUrl = (baseUrl: string, rawId: string) => `${baseUrl}/checkout/${rawId}/qr.png`;
/** The BR Code location: no scheme, at most 77 characters (API Pix `PayloadLocation`). */
export const pixLocation = (baseUrl: string, rawId: string) =>
  `${baseUrl.replace(/^https?:\/\//, '')}/pix/${locationToken(rawId)}`;

/**
 * The public Charge, field by field (allowlist): no internal or provider fields, no fees, no
 * customer e-mail or phone, never the payer's document.
 */
export function serializeCharge(charge: ChargeRecord, now: number) {
  const status = publicStatusOf(charge, now);
  const hasPix = charge.brCode !== undefined;
  return {
    id: publicChargeId(charge.id),
    object: 'charge' as const,
    amount: charge.amount,
    currency: charge.currency,
    status,
    payment_method: charge.paymentMethod,
    customer: {
      ...(charge.customer.name !== undefined && { name: charge.customer.name }),
      ...(charge.customer.document !== undefined && { document: charge.customer.document }),
    },
    pix: {
      ...(hasPix && {
        br_code: charge.brCode,
        qr_code_url: qrCodeUrl(charge.baseUrl, charge.id),
        ...(charge.qrCodeBase64 !== undefined && { qr_code_base64: charge.qrCodeBase64 }),
      }),
      expires_at: charge.expiresAt,
      ...(charge.txid !== undefined && { txid: charge.txid }),
    },
    checkout_url: checkoutUrl(charge.baseUrl, charge.id),
    // Once settled it stays (a refund and a MED address the Pix by it); a Pix returned without
    // settling (payer lock) never settled the charge.
    settlement: {
      ...(charge.endToEndId !== undefined &&
        charge.paidAt !== undefined && { end_to_end_id: charge.endToEndId }),
    },
    metadata: charge.metadata,
    ...(charge.expectedPayerTaxId !== undefined && { expected_payer_tax_id: charge.expectedPayerTaxId }),
    created_at: charge.createdAt,
  };
}

export type PublicCharge = ReturnType<typeof serializeCharge>;
