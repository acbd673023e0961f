import { randomBytes } from 'node:crypto';
import Negotiator from 'negotiator';
import { publicStatusOf, qrCodeUrl } from '#shared/domain/charges.ts';
import { renderCheckoutNotFoundPage, renderCheckoutPage } from '#shared/domain/checkout-page.ts';
import { NotFound } from '#shared/domain/errors.ts';
import { HttpError } from '#shared/http/errors.ts';
import type { ApiResponse, RouteHandler } from '#shared/http/types.ts';
import { getAccountCached } from '#shared/store/accounts.ts';
import { loadPublicCharge, noStore } from './load-charge.ts';

/**
 * GET /checkout/{id}: the hosted payment page. A link that names no charge is a 404: a page for
 * a browser (it prefers `text/html` to JSON), the API's error envelope for anything else; both
 * say they vary by `Accept`.
 */
export const getCheckoutPage: RouteHandler<undefined> = async ({ pathParameters, baseUrl, headers }) => {
  const nonce = randomBytes(16).toString('base64');
  const charge = await loadPublicCharge(pathParameters.id).catch((error: unknown) => {
    if (!(error instanceof NotFound)) throw error;
    if (prefersHtml(headers.accept)) return undefined;
    throw new HttpError(404, error.code, error.message, { headers: { Vary: 'Accept' } });
  });
  if (!charge) return htmlPage(404, renderCheckoutNotFoundPage(nonce), nonce, { Vary: 'Accept' });
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

/** Whether `Accept` ranks an HTML page above the JSON envelope (a browser's does; none: JSON). */
const prefersHtml = (accept: string | undefined): boolean =>
  accept !== undefined &&
  new Negotiator({ headers: { accept } }).mediaType(['application/json', 'text/html']) === 'text/html';

const htmlPage = (
  status: number,
  html: string,
  nonce: string,
  extra: Record<string, string> = {},
): ApiResponse => ({
  status,
  raw: { contentType: 'text/html; charset=utf-8', body: html },
  headers: {
    ...noStore,
    ...extra,
    'Content-Security-Policy': `default-src 'none'; img-src 'self' data:; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; connect-src 'self'; base-uri 'none'; frame-ancestors 'none'`,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  },
});
