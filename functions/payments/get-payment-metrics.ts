import { parseMetricsQuery } from '#shared/domain/payment-reports.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { getPaymentMetrics as metrics } from '#shared/services/get-payment-metrics.ts';

/** GET /v1/payments/metrics: `days` business days (default 7, no upper limit), optional `currency`. */
export const getPaymentMetrics: RouteHandler<KeyPrincipal> = async ({ principal, query }) => ({
  status: 200,
  body: await metrics(principal, parseMetricsQuery(query), Date.now()),
});
