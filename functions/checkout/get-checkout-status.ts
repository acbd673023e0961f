import { publicStatusOf } from '#shared/domain/charges.ts';
import type { RouteHandler } from '#shared/http/types.ts';
import { loadPublicCharge, noStore } from './load-charge.ts';

/** GET /checkout/{id}/status: what the page polls; nothing beyond the page's own data. */
export const getCheckoutStatus: RouteHandler<undefined> = async ({ pathParameters }) => {
  const charge = await loadPublicCharge(pathParameters.id);
  return {
    status: 200,
    body: {
      status: publicStatusOf(charge, Date.now()),
      amount: charge.amount,
      currency: charge.currency,
      expires_at: charge.expiresAt,
    },
    headers: noStore,
  };
};
