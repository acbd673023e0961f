/** `payments` group: the transaction-format view of charges, refunds and reports (Part 2). */

import * as v from 'valibot';
import { CreatePaymentBody } from '../../domain/payment-input.ts';
import { ListPaymentsQuery } from '../../domain/payment-list.ts';
import { MetricsQuery, StatsQuery } from '../../domain/payment-reports.ts';
import { RefundBody } from '../../domain/refund-input.ts';
import { refundStatuses } from '../../domain/refunds.ts';
import { txStatuses } from '../../domain/transaction-status.ts';
import { chargeCreationErrors } from './charges.ts';
import { Amount, Count, Currency, Metadata, NullableTimestamp, Timestamp } from './common.ts';
import type { Operations } from './operation.ts';

const TxStatus = v.picklist(txStatuses);
const NullableAmount = v.nullable(Amount);

const paymentCreatedFields = {
  id: v.string(),
  status: TxStatus,
  amount: Amount,
  currency: Currency,
  paymentMethods: v.array(v.string()),
  customerName: v.nullable(v.string()),
  customerDocument: v.nullable(v.string()),
  customerEmail: v.nullable(v.string()),
  metadata: Metadata,
  createdAt: Timestamp,
};

/** `POST /v1/payments` 201. */
export const PaymentCreated = v.strictObject(paymentCreatedFields);

/** `GET /v1/payments/{id}`: fields of methods this service does not offer are always null. */
export const Payment = v.strictObject({
  ...paymentCreatedFields,
  paidWith: v.nullable(v.literal('PIX')),
  providerFee: NullableAmount,
  platformFee: NullableAmount,
  netAmount: NullableAmount,
  paidAt: NullableTimestamp,
  pixQrCode: v.nullable(v.pipe(v.string(), v.startsWith('data:image/png;base64,'))),
  pixCopyPaste: v.nullable(v.string()),
  pixExpiresAt: NullableTimestamp,
  cardRedirectUrl: v.null(),
  mbEntity: v.null(),
  mbReference: v.null(),
  mbExpiresAt: v.null(),
  boletoBarcode: v.null(),
  boletoLine: v.null(),
  boletoPdfUrl: v.null(),
  boletoExpiresAt: v.null(),
  cryptoAddress: v.null(),
  cryptoAmount: v.null(),
  cryptoNetwork: v.null(),
  cryptoCurrency: v.null(),
});

export const Refund = v.pipe(
  v.strictObject({
    id: v.pipe(v.string(), v.startsWith('re_')),
    transactionId: v.string(),
    amount: Amount,
    currency: Currency,
    status: v.picklist(refundStatuses),
    reason: v.nullable(v.string()),
    strategy: v.picklist(['devolution', 'cashout']),
    fee: Amount,
    automatic: v.boolean(),
    destinationKey: v.optional(v.string()),
    failureReason: v.nullable(v.string()),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    completedAt: NullableTimestamp,
  }),
  v.examples([
    {
      id: 're_0193a1b2-d4e5-7f60-8a9b-0c1d2e3f4a5b',
      transactionId: '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
      amount: 500,
      currency: 'BRL',
      status: 'PENDING',
      reason: 'Item out of stock',
      strategy: 'cashout',
      fee: 0,
      automatic: false,
      destinationKey: '***.982.247-**',
      failureReason: null,
      createdAt: '2026-11-22T20:05:00.000Z',
      updatedAt: '2026-11-22T20:05:00.000Z',
      completedAt: null,
    },
  ]),
);

const CurrencyVolume = v.strictObject({ currency: Currency, volume: Amount, count: Count });
const VolumeByCurrency = v.record(v.string(), Amount);

export const PaymentStats = v.strictObject({
  totalTransactions: Count,
  paidTransactions: Count,
  todayTransactions: Count,
  successRate: v.number(),
  volumeByCurrency: v.array(CurrencyVolume),
  todayVolumeByCurrency: VolumeByCurrency,
  dailyVolume: v.array(
    v.strictObject({ date: v.pipe(v.string(), v.isoDate()), currencies: VolumeByCurrency }),
  ),
  methodBreakdown: v.array(v.strictObject({ method: v.string(), volume: Amount, count: Count })),
});

const metricsFields = {
  funnel: v.strictObject({
    created: Count,
    paid: Count,
    expired: Count,
    cancelled: Count,
    failed: Count,
    returned: Count,
    refunded: Count,
    disputed: Count,
    disputeLost: Count,
  }),
  /** Percentages with two decimals. */
  rates: v.strictObject({
    conversion: v.number(),
    expiry: v.number(),
    cancellation: v.number(),
    failure: v.number(),
    return: v.number(),
    refund: v.number(),
    refundVolume: v.number(),
    med: v.number(),
    medLoss: v.number(),
  }),
  volume: v.array(
    v.strictObject({
      currency: Currency,
      gross: Amount,
      fees: Amount,
      refunded: Amount,
      disputeLost: Amount,
      net: Amount,
      averageTicket: Amount,
    }),
  ),
  timeToPay: v.strictObject({
    payments: Count,
    p50Seconds: v.nullable(v.number()),
    p90Seconds: v.nullable(v.number()),
  }),
};

export const PaymentMetrics = v.strictObject({
  object: v.literal('payment_metrics'),
  timeZone: v.string(),
  days: Count,
  from: v.pipe(v.string(), v.isoDate()),
  to: v.pipe(v.string(), v.isoDate()),
  currency: v.nullable(Currency),
  ...metricsFields,
  daily: v.array(v.strictObject({ date: v.pipe(v.string(), v.isoDate()), ...metricsFields })),
});

export const ProviderStatus = v.strictObject({
  localStatus: TxStatus,
  provider: v.nullable(v.string()),
  providerTransactionId: v.nullable(v.string()),
  /** API Pix `cob.status`: `ATIVA`, `CONCLUIDA`, `REMOVIDA_PELO_USUARIO_RECEBEDOR`… */
  providerStatus: v.nullable(v.string()),
  /** The acquirer's API Pix `cob` as it answered. */
  rawResponse: v.nullable(v.record(v.string(), v.unknown())),
  error: v.optional(v.literal('TRANSACTION_HAS_NO_PROVIDER_REFERENCE')),
});

const noStore = ['Cache-Control'] as const;

export const paymentOperations: Operations<'payments'> = {
  createPayment: {
    summary: 'Create a payment',
    description:
      'A Pix charge in the transaction format, idempotent on the body’s `idempotencyKey` (a replay answers the first response with `Idempotent-Replayed: true`). Validation (400) and the method and currency rules (422) come first.',
    body: CreatePaymentBody,
    bodyExample: { amount: 1050, paymentMethods: ['PIX'], idempotencyKey: 'order-42-attempt-1' },
    responses: {
      201: { description: 'The payment.', schema: PaymentCreated, headers: ['Idempotent-Replayed'] },
    },
    errors: chargeCreationErrors,
  },
  listPayments: {
    summary: 'List payments',
    description:
      'Page/limit paging (at most 1000 deep), status and creation-date filters, any field as sort key.',
    query: ListPaymentsQuery,
    responses: {
      200: {
        description: 'A page of payments; `total` counts every match.',
        schema: v.strictObject({ data: v.array(Payment), total: Count, page: Count, limit: Count }),
      },
    },
  },
  getPaymentStats: {
    summary: 'Payment statistics',
    description: 'Totals over the last `days` Brazilian business days (default 7), from per-day aggregates.',
    query: StatsQuery,
    responses: { 200: { description: 'The statistics.', schema: PaymentStats } },
  },
  getPaymentMetrics: {
    summary: 'Payment metrics',
    description:
      'Funnel, rates, volumes and time to pay over the last `days` business days, in total and per day (America/Sao_Paulo).',
    query: MetricsQuery,
    responses: { 200: { description: 'The metrics.', schema: PaymentMetrics } },
  },
  getPayment: {
    summary: 'Retrieve a payment',
    responses: { 200: { description: 'The payment.', schema: Payment } },
  },
  cancelPayment: {
    summary: 'Cancel a payment',
    description:
      '`WAITING_PAYMENT`, `PENDING` or `PROCESSING` → `CANCELLED` (the acquirer removes the cob first); any other status is 400 `payment_not_cancellable`.',
    responses: { 200: { description: 'The cancelled payment.', schema: Payment } },
    errors: {
      400: ['payment_not_cancellable'],
      422: ['unprocessable_entity'],
      503: ['service_unavailable'],
    },
  },
  refundPayment: {
    summary: 'Refund a payment',
    description:
      'Full (no `amount`) or partial refund of a `PAID`/`APPROVED` payment, idempotent on `idempotencyKey`. The amount (and a passed-on Pix-out fee) is reserved from `available` in the same step. 429 `lock_timeout` (`Retry-After`) when concurrent refunds of the account kept it from reserving for 5 s: nothing was written, retry with the same key. Without `strategy`: `cashout` where the acquirer offers Pix-out (or `destinationKey`/`passFeeToTenant` is sent), else `devolution`.',
    body: RefundBody,
    bodyExample: { amount: 500, reason: 'Item fora de estoque', idempotencyKey: 'refund-order-42-1' },
    responses: {
      201: { description: 'The refund, `PENDING`.', schema: Refund, headers: ['Idempotent-Replayed'] },
    },
    errors: {
      400: [
        'invalid_amount',
        'payment_not_refundable',
        'payment_disputed',
        'refund_exceeds_remaining',
        'insufficient_balance',
      ],
      409: ['idempotency_key_reused'],
      422: ['REFUND_NOT_SUPPORTED'],
      429: ['lock_timeout'],
    },
  },
  listRefunds: {
    summary: 'List a payment’s refunds',
    description: 'Newest first, automatic returns included.',
    responses: {
      200: { description: 'The refunds.', schema: v.strictObject({ data: v.array(Refund) }) },
    },
  },
  resendPaymentWebhook: {
    summary: 'Resend a payment’s webhook',
    description:
      'Emits the payment’s current status again as a new legacy event; `resent: false` when no destination takes it.',
    responses: {
      200: {
        description: 'Whether an event was sent.',
        schema: v.strictObject({ resent: v.boolean(), status: TxStatus }),
      },
    },
  },
  getPaymentProviderStatus: {
    summary: 'Read a payment at the acquirer',
    description: 'Asks the acquirer on every call (API Pix `GET /cob/{txid}`).',
    responses: {
      200: { description: 'The acquirer’s view.', schema: ProviderStatus, headers: noStore },
    },
    errors: { 422: ['unprocessable_entity'], 503: ['service_unavailable'] },
  },
  getPaymentReceipt: {
    summary: 'A settled payment’s receipt',
    description: 'One A4 page in Brazilian Portuguese, as a base64 PDF.',
    responses: {
      200: {
        description: 'The receipt.',
        schema: v.strictObject({
          contentType: v.literal('application/pdf'),
          base64: v.pipe(v.string(), v.base64()),
        }),
        headers: noStore,
      },
    },
    errors: { 400: ['payment_not_settled'] },
  },
};
