import { parseStatsQuery } from '#shared/domain/payment-reports.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { getPaymentStats as stats } from '#shared/services/get-payment-stats.ts';

/** GET /v1/payments/stats: `days` business days (default 7); 400 with `param: days` otherwise. */
export const getPaymentStats: RouteHandler<KeyPrincipal> = async ({ principal, query }) => ({
  status: 200,
  body: await stats(principal, parseStatsQuery(query), Date.now()),
});
