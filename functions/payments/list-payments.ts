import { parsePaymentListQuery } from '#shared/domain/payment-list.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { listPayments as list } from '#shared/services/list-payments.ts';

/**
 * GET /v1/payments: page/limit paging, status and creation-date filters, any field as sort key
 * (Part 2, "List query"); 400 with `param` on any fault, including a page or an in-memory sort
 * beyond its bound.
 */
export const listPayments: RouteHandler<KeyPrincipal> = async ({ principal, query }) => ({
  status: 200,
  body: await list(principal, parsePaymentListQuery(query), Date.now()),
});
