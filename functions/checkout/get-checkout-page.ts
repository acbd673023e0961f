import { randomBytes } from 'node:crypto';
import { publicStatusOf, qrCodeUrl } from '#shared/domain/charges.ts';
import { renderCheckoutNotFoundPage, renderCheckoutPage } from '#shared/domain/checkout-page.ts';
import { NotFound } from '#shared/domain/errors.ts';
import type { ApiResponse, RouteHandler } from '#shared/http/types.ts';
import { getAccountCached } from '#shared/store/accounts.ts';
import { loadPublicCharge, noStore } from './load-charge.ts';

/**
 * GET /checkout/{id}: the hosted payment page. A link that names no charge is a 404: a page for
 * a browser (it accepts `text/html`), the API's error envelope for anything else.
 */
export const getCheckoutPage: RouteHandler<undefined> = async ({ pathParameters, baseUrl, headers }) => {
  const nonce = randomBytes(16).toString('base64');
  const charge = await loadPublicCharge(pathParameters.id).catch((error: unknown) => {
    if (error instanceof NotFound && headers.accept?.includes('text/html')) return undefined;
    throw error;
  });
  if (!charge) return htmlPage(404, renderCheckoutNotFoundPage(nonce), nonce);
  const account = await getAccountCached(charge.accountId);
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
  return htmlPage(200, html, nonce);
};

const htmlPage = (status: number, html: string, nonce: string): ApiResponse => ({
  status,
  raw: { contentType: 'text/html; charset=utf-8', body: html },
  headers: {
    ...noStore,
    'Content-Security-Policy': `default-src 'none'; img-src 'self' data:; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; connect-src 'self'; base-uri 'none'; frame-ancestors 'none'`,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  },
});
