import { createApiHandler } from '#shared/http/api-handler.ts';
import { cancelPayment } from './cancel-payment.ts';
import { createPayment } from './create-payment.ts';
import { getPayment } from './get-payment.ts';
import { getPaymentMetrics } from './get-payment-metrics.ts';
import { getPaymentProviderStatus } from './get-payment-provider-status.ts';
import { getPaymentReceipt } from './get-payment-receipt.ts';
import { getPaymentStats } from './get-payment-stats.ts';
import { listPayments } from './list-payments.ts';
import { listRefunds } from './list-refunds.ts';
import { refundPayment } from './refund-payment.ts';
import { resendPaymentWebhook } from './resend-payment-webhook.ts';

export const handler = createApiHandler('payments', {
  createPayment,
  getPayment,
  listPayments,
  cancelPayment,
  refundPayment,
  listRefunds,
  resendPaymentWebhook,
  getPaymentProviderStatus,
  getPaymentReceipt,
  getPaymentStats,
  getPaymentMetrics,
});
