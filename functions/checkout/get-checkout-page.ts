import { randomBytes } from 'node:crypto';
import { publicStatusOf, qrCodeUrl } from '#shared/domain/charges.ts';
import { renderCheckoutPage } from '#shared/domain/checkout-page.ts';
import type { RouteHandler } from '#shared/http/types.ts';
import { getAccountCached } from '#shared/store/accounts.ts';
import { loadPublicCharge, noStore } from './load-charge.ts';

/** GET /checkout/{id}: the hosted payment page. */
export const getCheckoutPage: RouteHandler<undefined> = async ({ pathParameters, baseUrl }) => {
  const charge = await loadPublicCharge(pathParameters.id);
  const account = await getAccountCached(charge.accountId);
  const nonce = randomBytes(16).toString('base64');
  const html = renderCheckoutPage(
    {
      chargeId: charge.id,
      merchantName: account?.settings.merchantName ?? '',
      amount: charge.amount,
      currency: charge.currency,
      status: publicStatusOf(charge, Date.now()),
      brCode: charge.brCode,
      qrCodeUrl: qrCodeUrl(baseUrl, charge.id),
      statusUrl: `${baseUrl}/checkout/${charge.id}/status`,
      expiresAt: charge.expiresAt,
    },
    nonce,
  );
  return {
    status: 200,
    raw: { contentType: 'text/html; charset=utf-8', body: html },
    headers: {
      ...noStore,
      'Content-Security-Policy': `default-src 'none'; img-src 'self' data:; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; connect-src 'self'; base-uri 'none'; frame-ancestors 'none'`,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    },
  };
};
